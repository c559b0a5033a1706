/**
 * The shared trust-anchor check against real kube-apiservers: observation reads each cluster's
 * `linkerd/linkerd-identity-trust-roots` ConfigMap, the lock keeps only fingerprints, subjects and
 * expiry, and a link whose clusters share no root is left out while the fleet's other links compile.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, describe, test } from 'node:test';
import { ExitCode } from '../../src/errors/exit-codes.js';
import type { FleetDefinition } from '../../src/load/load-fleet.js';
import { Cluster, Link } from '../../src/model/index.js';
import { observationRules } from '../../src/observe/observation-rbac.js';
import { kubeFleetForTests, type KubeFleet } from '../harness/kube-fleet.js';
import { applyService, ensureNamespace, installGateway, Workspace } from './support.js';

const EXPORTED = { 'mirror.linkerd.io/exported': 'true' };
const ROOT_A = readFileSync('test/fixtures/trust-roots/root-a.crt', 'utf8');
const ROOT_B = readFileSync('test/fixtures/trust-roots/root-b.crt', 'utf8');

// london mirrors paris and rome; rome's control plane lives in namespace "linkerd-cp".
const defineFleet: FleetDefinition = (fleet) => {
  const london = new Cluster(fleet, 'london');
  new Link(fleet, 'london-from-paris', { source: london, target: new Cluster(fleet, 'paris') });
  new Link(fleet, 'london-from-rome', { source: london, target: new Cluster(fleet, 'rome', { controlPlaneNamespace: 'linkerd-cp' }) });
};

describe('shared trust-anchor check against real API servers', () => {
  let fleet: KubeFleet | undefined;

  const setTrustRoots = async (cluster: string, namespace: string, pems: string[]): Promise<void> => {
    await ensureNamespace(fleet!, cluster, namespace);
    const configMap = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'linkerd-identity-trust-roots', namespace }, data: { 'ca-bundle.crt': pems.join('') } };
    await fleet!.kubectl(cluster, ['apply', '--server-side', '--force-conflicts', '--field-manager=test', '-f', '-'], JSON.stringify(configMap));
  };

  before(async (t) => {
    fleet = await kubeFleetForTests(t as never, ['london', 'paris', 'rome'], { readerRules: observationRules({ source: true, target: true }) });
    if (!fleet) return;
    await installGateway(fleet, 'paris', '203.0.113.10');
    await installGateway(fleet, 'rome', '198.51.100.30');
    await applyService(fleet, 'paris', 'shop', 'orders', { app: 'orders', ...EXPORTED });
    await applyService(fleet, 'rome', 'shop', 'billing', { app: 'billing', ...EXPORTED });
    await ensureNamespace(fleet, 'london', 'shop');
  });

  after(async () => {
    await fleet?.stop();
  });

  test('a link whose clusters share no root is left out, the other link compiles; a rotation that adds the shared root brings it back', async (t) => {
    if (!fleet) return t.skip('no kube-apiserver');
    const ws = new Workspace(defineFleet, fleet.kubeconfig('reader'));
    try {
      // GIVEN london trusts root A, paris roots A and B, rome (control plane in linkerd-cp) only root B
      await setTrustRoots('london', 'linkerd', [ROOT_A]);
      await setTrustRoots('paris', 'linkerd', [ROOT_B, ROOT_A]);
      await setTrustRoots('rome', 'linkerd-cp', [ROOT_B]);
      // WHEN synth runs
      const result = await ws.synth();
      // THEN it succeeds, london mirrors paris but not rome, and the warning names both clusters and the roots
      assert.equal(result.exitCode, ExitCode.OK, ws.logs.join('\n'));
      assert.deepEqual(result.stale, []);
      assert.ok(ws.paths('london').includes('shop/service-orders-paris.yaml'), ws.paths('london').join(', '));
      assert.ok(!ws.paths('london').some((p) => p.includes('billing-rome')), ws.paths('london').join(', '));
      const warning = result.warnings.find((w) => w.startsWith('link fleet/london-from-rome:'));
      assert.ok(warning, result.warnings.join('\n'));
      assert.match(warning, /"london" and "rome" share no Linkerd trust root.*"london" trusts "CN=root-a\.linkerd\.cluster\.local" \(SHA-256 .*, expires \d{4}-\d{2}-\d{2}\); "rome" trusts "CN=root-b\.linkerd\.cluster\.local"/);
      // AND the lock holds fingerprints, subjects and expiry only: no certificate content
      const lock = JSON.parse(readFileSync(ws.lockFile, 'utf8'));
      assert.deepEqual(lock.observed.targets.paris.trustRoots.map((r: { subject: string }) => r.subject).sort(), ['CN=root-a.linkerd.cluster.local', 'CN=root-b.linkerd.cluster.local']);
      assert.deepEqual(Object.keys(lock.observed.sources.london.trustRoots[0]).sort(), ['fingerprint', 'notAfter', 'subject']);
      assert.ok(!readFileSync(ws.lockFile, 'utf8').includes('BEGIN CERTIFICATE'));
      assert.ok(![...ws.files().values()].some((text) => text.includes(ROOT_A.split('\n')[1]!)), 'certificate content in dist/');

      // AND plan shows the check of each link
      const printed: string[] = [];
      const plan = await ws.synth({ mode: 'plan', print: (l) => printed.push(l) });
      assert.equal(plan.exitCode, ExitCode.OK, ws.logs.join('\n'));
      assert.ok(printed.some((l) => /^trust anchors: link fleet\/london-from-paris \(london ← paris\): shared "CN=root-a\.linkerd\.cluster\.local"/.test(l)), printed.join('\n'));
      assert.ok(printed.includes('trust anchors: link fleet/london-from-rome (london ← rome): FAILED: no shared root'), printed.join('\n'));

      // AND with --strict the mismatch is a compile error and nothing is written
      const strict = await ws.synth({ strict: true });
      assert.equal(strict.exitCode, ExitCode.COMPILE_ERROR);
      assert.match(strict.error ?? '', /link fleet\/london-from-rome: "london" and "rome" share no Linkerd trust root/);

      // WHEN rome's bundle gains root A (the first step of a rotation)
      await setTrustRoots('rome', 'linkerd-cp', [ROOT_B, ROOT_A]);
      const rotated = await ws.synth();
      // THEN the link compiles again
      assert.equal(rotated.exitCode, ExitCode.OK, ws.logs.join('\n'));
      assert.ok(ws.paths('london').includes('shop/service-billing-rome.yaml'), ws.paths('london').join(', '));
      assert.ok(!rotated.warnings.some((w) => w.includes('share no Linkerd trust root')), rotated.warnings.join('\n'));
    } finally {
      ws.remove();
    }
  });

  test('a cluster without the ConfigMap is a warning and its links compile unchecked', async (t) => {
    if (!fleet) return t.skip('no kube-apiserver');
    const ws = new Workspace(defineFleet, fleet.kubeconfig('reader'));
    try {
      // GIVEN paris has no trust roots ConfigMap (rome's shares root A with london)
      await setTrustRoots('london', 'linkerd', [ROOT_A]);
      await setTrustRoots('rome', 'linkerd-cp', [ROOT_A]);
      await fleet.kubectl('paris', ['delete', 'configmap', 'linkerd-identity-trust-roots', '-n', 'linkerd', '--ignore-not-found']);
      // WHEN synth runs
      const result = await ws.synth();
      // THEN both links compile, and the warning says what is missing where
      assert.equal(result.exitCode, ExitCode.OK, ws.logs.join('\n'));
      assert.ok(ws.paths('london').includes('shop/service-orders-paris.yaml'));
      assert.ok(ws.paths('london').includes('shop/service-billing-rome.yaml'));
      assert.ok(result.warnings.some((w) => w.startsWith('cluster "paris": ConfigMap linkerd/linkerd-identity-trust-roots does not exist, so the trust-anchor check of this cluster\'s links is skipped')), result.warnings.join('\n'));
      assert.equal(JSON.parse(readFileSync(ws.lockFile, 'utf8')).observed.targets.paris.trustRoots, undefined);
    } finally {
      ws.remove();
    }
  });
});
