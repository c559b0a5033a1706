/**
 * Federated-mode synth end to end, against real kube-apiservers: london federates its own members
 * with those of paris and rome. Observation runs with the least-privilege reader identity.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, describe, test } from 'node:test';
import { parse } from 'yaml';
import { ExitCode } from '../../src/errors/exit-codes.js';
import type { FleetDefinition } from '../../src/load/load-fleet.js';
import { Cluster, Link } from '../../src/model/index.js';
import { observationRules } from '../../src/observe/observation-rbac.js';
import { kubeFleetForTests, type KubeFleet } from '../harness/kube-fleet.js';
import { applyService, ensureNamespace, Workspace } from './support.js';

const MEMBER = { 'mirror.linkerd.io/federated': 'member' };

/** Links declared rome first: the member order must still be paris, rome (cluster-name order). */
const defineFleet: FleetDefinition = (fleet) => {
  const london = new Cluster(fleet, 'london');
  const paris = new Cluster(fleet, 'paris');
  const rome = new Cluster(fleet, 'rome');
  new Link(fleet, 'london-from-rome', { source: london, target: rome, remoteDiscoveryCredentials: { provided: 'external' } });
  new Link(fleet, 'london-from-paris', { source: london, target: paris, remoteDiscoveryCredentials: { provided: 'external' } });
};

const TWO_PORTS = { ports: [{ name: 'http', port: 80, targetPort: 8080 }, { name: 'grpc', port: 9090, targetPort: 9090 }] };

describe('federated-mode synth against real API servers', () => {
  let fleet: KubeFleet | undefined;

  before(async (t) => {
    fleet = await kubeFleetForTests(t as never, ['london', 'paris', 'rome'], { readerRules: observationRules({ source: true, target: true }) });
    if (!fleet) return;
    // Federated Services are only compiled into namespaces that exist in the source.
    for (const ns of ['conf', 'det']) await ensureNamespace(fleet, 'london', ns);
  });

  after(async () => {
    await fleet?.stop();
  });

  const workspace = (): Workspace => new Workspace(defineFleet, fleet!.kubeconfig('reader'));

  test('members in two targets plus the source give one <svc>-federated that server-side applies and reads back', async (t) => {
    if (!fleet) return t.skip('no kube-apiserver');
    const ws = workspace();
    try {
      // GIVEN fed/cart is a federated member in london itself (two ports, a team label), in paris and in rome
      await applyService(fleet, 'london', 'fed', 'cart', { app: 'cart', team: 'checkout', ...MEMBER }, { spec: TWO_PORTS });
      await applyService(fleet, 'paris', 'fed', 'cart', { app: 'cart', site: 'paris', ...MEMBER }, { spec: TWO_PORTS });
      await applyService(fleet, 'rome', 'fed', 'cart', { app: 'cart', site: 'rome', ...MEMBER }, { spec: TWO_PORTS });
      // WHEN synth runs
      const result = await ws.synth();
      assert.equal(result.exitCode, ExitCode.OK, ws.logs.join('\n'));
      // THEN london gets fed/service-cart-federated and nothing else for cart
      assert.deepEqual(ws.paths('london').filter((p) => p.startsWith('fed/')), ['fed/service-cart-federated.yaml']);
      const want = parse(readFileSync(ws.pathOf('london/fed/service-cart-federated.yaml'), 'utf8'));
      // AND it takes the local member's metadata and ports, lists paris then rome, and names the local member
      assert.deepEqual(want.metadata.labels, { app: 'cart', team: 'checkout', 'mirror.linkerd.io/mirrored-service': 'true', 'mirrorc.io/managed': 'true' });
      assert.deepEqual(want.metadata.annotations, {
        'multicluster.linkerd.io/local-discovery': 'cart',
        'multicluster.linkerd.io/remote-discovery': 'cart@paris,cart@rome',
      });
      assert.deepEqual(want.spec, { ports: [{ name: 'http', port: 80, protocol: 'TCP', targetPort: 8080 }, { name: 'grpc', port: 9090, protocol: 'TCP', targetPort: 9090 }] });
      // AND the lock records london's own member and the selector it was listed with
      const lock = JSON.parse(readFileSync(ws.lockFile, 'utf8'));
      assert.equal(lock.observed.sources.london.federatedSelector, 'mirror.linkerd.io/federated=member');
      assert.deepEqual(lock.observed.sources.london.federatedMembers.map((s: { namespace: string; name: string }) => `${s.namespace}/${s.name}`), ['fed/cart']);

      // WHEN dist/london is applied server-side
      await fleet.kubectl('london', ['apply', '--server-side', '--field-manager=mirrorc', '-k', `${ws.outDir}/london`]);
      // THEN the live Service has exactly those labels, annotations and ports (the API server adds only defaults)
      const live = JSON.parse(await fleet.kubectl('london', ['get', 'service', 'cart-federated', '-n', 'fed', '-o', 'json']));
      assert.deepEqual(live.metadata.labels, want.metadata.labels);
      assert.deepEqual(live.metadata.annotations, want.metadata.annotations);
      assert.deepEqual(
        live.spec.ports.map((p: Record<string, unknown>) => ({ name: p.name, port: p.port, protocol: p.protocol, targetPort: p.targetPort })),
        want.spec.ports,
      );
      assert.equal(live.spec.selector, undefined);

      // WHEN synth runs again with the federated Service now live in london
      const again = await ws.synth();
      // THEN it is recognised as mirrorc's own (no collision, not a member of itself) and nothing changes
      assert.equal(again.exitCode, ExitCode.OK, ws.logs.join('\n'));
      assert.deepEqual(again.changes, []);
    } finally {
      ws.remove();
    }
  });

  test('conflicting ports across members compile with the documented warning; a headless member is left out', async (t) => {
    if (!fleet) return t.skip('no kube-apiserver');
    const ws = workspace();
    try {
      // GIVEN conf/api in paris serves http on 80; rome's serves http on 8080 and also admin on 9000
      await applyService(fleet, 'paris', 'conf', 'api', { app: 'api', ...MEMBER });
      await applyService(fleet, 'rome', 'conf', 'api', { app: 'api', ...MEMBER }, { spec: { ports: [{ name: 'http', port: 8080 }, { name: 'admin', port: 9000 }] } });
      // AND conf/db is a member in paris and a headless member in rome
      await applyService(fleet, 'paris', 'conf', 'db', { app: 'db', ...MEMBER });
      await applyService(fleet, 'rome', 'conf', 'db', { app: 'db', ...MEMBER }, { spec: { clusterIP: 'None' } });
      // WHEN synth runs
      const result = await ws.synth();
      // THEN it succeeds: api-federated uses paris's ports and lists both members
      assert.equal(result.exitCode, ExitCode.OK, ws.logs.join('\n'));
      const api = parse(readFileSync(ws.pathOf('london/conf/service-api-federated.yaml'), 'utf8'));
      assert.deepEqual(api.spec.ports, [{ name: 'http', port: 80, protocol: 'TCP', targetPort: 8080 }]);
      assert.equal(api.metadata.annotations['multicluster.linkerd.io/remote-discovery'], 'api@paris,api@rome');
      // AND the run prints one warning naming each member and port
      const conflict = ws.logs.filter((l) => l.startsWith('warning: london: the members of federated Service conf/api-federated conflict'));
      assert.equal(conflict.length, 1, ws.logs.join('\n'));
      for (const part of ['port "http": api@paris has 80/TCP, api@rome has 8080/TCP', 'port "admin" (9000/TCP): in api@rome, missing in api@paris']) {
        assert.ok(conflict[0]!.includes(part), `warning lacks ${part}: ${conflict[0]}`);
      }
      // AND db-federated lists paris only, with a warning naming rome's headless member
      const db = parse(readFileSync(ws.pathOf('london/conf/service-db-federated.yaml'), 'utf8'));
      assert.equal(db.metadata.annotations['multicluster.linkerd.io/remote-discovery'], 'db@paris');
      assert.ok(ws.logs.some((l) => l.includes('rome/conf/db is headless (clusterIP: None), and a headless Service cannot join a federated Service')), ws.logs.join('\n'));
    } finally {
      ws.remove();
    }
  });

  test('member order is the same across runs, page sizes, re-created members and offline compiles', async (t) => {
    if (!fleet) return t.skip('no kube-apiserver');
    const ws = workspace();
    try {
      // GIVEN members created rome first and out of name order
      for (const cluster of ['rome', 'paris']) {
        for (const name of ['zeta', 'alpha', 'mid']) await applyService(fleet, cluster, 'det', name, { app: name, ...MEMBER });
      }
      // WHEN synth runs, again, with one item per page, after paris's alpha is deleted and re-created, and offline
      const first = await ws.synth();
      assert.equal(first.exitCode, ExitCode.OK, ws.logs.join('\n'));
      const files1 = ws.outputFiles();
      const second = await ws.synth();
      const files2 = ws.outputFiles();
      await ws.synth({ pageSize: 1 });
      const files3 = ws.outputFiles();
      await fleet.kubectl('paris', ['delete', 'service', 'alpha', '-n', 'det']);
      await applyService(fleet, 'paris', 'det', 'alpha', { app: 'alpha', ...MEMBER });
      await ws.synth();
      const files4 = ws.outputFiles();
      await ws.synth({ offline: true });
      const files5 = ws.outputFiles();
      // THEN every file and the lock are byte-identical and the later runs report no change
      for (const files of [files2, files3, files4, files5]) assert.deepEqual(files, files1);
      assert.deepEqual(second.changes, []);
      // AND every member list is paris then rome, though rome's members were created first and rome's link declared first
      for (const name of ['alpha', 'mid', 'zeta']) {
        const svc = parse(files1.get(`london/det/service-${name}-federated.yaml`)!);
        assert.equal(svc.metadata.annotations['multicluster.linkerd.io/remote-discovery'], `${name}@paris,${name}@rome`);
      }
    } finally {
      ws.remove();
    }
  });
});
