/**
 * `mirrorc access` against real kube-apiservers: from the admin identity it applies the reader RBAC
 * and mints TokenRequest tokens into a 0600 kubeconfig; that kubeconfig lets synth observe every
 * cluster and cannot write; nothing secret is printed; rotating one cluster keeps the others' entries.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import YAML from 'yaml';
import { observationRules } from '../../src/observe/observation-rbac.js';
import { renderLockFile } from '../../src/observe/lock-file.js';
import { emptySnapshot } from '../../src/snapshot/snapshot.js';
import { kubeFleetForTests, kubeFleetSkipReason, type KubeFleet } from '../harness/kube-fleet.js';
import { SafetyRepo } from '../safety/support.js';
import { applyService, ensureNamespace, installGateway } from './support.js';

const EXPORTED = { 'mirror.linkerd.io/exported': 'true' };

interface Kubeconfig {
  clusters: { name: string; cluster: Record<string, unknown> }[];
  users: { name: string; user: { token: string } }[];
  contexts: { name: string; context: { cluster: string; user: string } }[];
}

function jwtClaims(token: string): Record<string, unknown> {
  return JSON.parse(Buffer.from(token.split('.')[1]!, 'base64url').toString('utf8')) as Record<string, unknown>;
}

describe('mirrorc access (real kube-apiservers)', () => {
  let fleet: KubeFleet | undefined;
  let repo: SafetyRepo;
  let secrets: string;
  before(async () => {
    // The harness's own reader identity is not used here: access makes the fleet's.
    fleet = await kubeFleetForTests(undefined, ['london', 'paris'], { readerRules: observationRules({ source: true, target: true }) });
    repo = new SafetyRepo();
    secrets = mkdtempSync(join(tmpdir(), 'mirrorc-access-'));
    repo.writeFleet(`const london = new Cluster(fleet, 'london');
const paris = new Cluster(fleet, 'paris');
new Link(fleet, 'london-from-paris', { source: london, target: paris });`);
    repo.writeLock(renderLockFile(emptySnapshot()));
    if (fleet) {
      await installGateway(fleet, 'paris', '192.0.2.10');
      await applyService(fleet, 'paris', 'shop', 'cart', { app: 'cart', ...EXPORTED });
      await ensureNamespace(fleet, 'london', 'shop');
    }
  });
  after(async () => {
    await fleet?.stop();
    repo?.remove();
    rmSync(secrets, { recursive: true, force: true });
  });

  test('the minted kubeconfig observes both clusters, cannot write, is 0600, and nothing secret is printed', async (t) => {
    if (!fleet) return t.skip(kubeFleetSkipReason);
    const out = join(secrets, 'observer.kubeconfig');
    // WHEN access runs with the admin kubeconfig
    const minted = await repo.run(['access', '--kubeconfig', fleet.kubeconfig('admin'), '--kubeconfig-out', out, '--duration', '2h'], { report: false });
    assert.equal(minted.code, 0, minted.stderr);
    // THEN the file is private and has one context per cluster, named as the fleet expects, each with its CA and a token
    assert.equal(statSync(out).mode & 0o777, 0o600);
    const cfg = YAML.parse(readFileSync(out, 'utf8')) as Kubeconfig;
    assert.deepEqual(cfg.contexts.map((c) => c.name), ['london', 'paris']);
    for (const name of ['london', 'paris']) {
      const cluster = cfg.clusters.find((c) => c.name === name)!;
      assert.equal(cluster.cluster.server, fleet.clusters[name]!.server);
      assert.ok(typeof cluster.cluster['certificate-authority-data'] === 'string');
      assert.equal(cluster.cluster['insecure-skip-tls-verify'], undefined);
    }
    const tokens = cfg.users.map((u) => u.user.token);
    assert.equal(tokens.length, 2);
    // AND the tokens are the observer ServiceAccount's, bound to the requested lifetime
    for (const token of tokens) {
      const claims = jwtClaims(token);
      assert.equal(claims.sub, 'system:serviceaccount:mirrorc-system:mirrorc-observer');
      assert.equal(Number(claims.exp) - Number(claims.iat), 7200);
    }
    // AND neither a token nor a CA is in what access printed
    for (const secret of [...tokens, ...cfg.clusters.map((c) => String(c.cluster['certificate-authority-data']))]) {
      assert.ok(!minted.stdout.includes(secret) && !minted.stderr.includes(secret), 'a secret was printed');
      assert.ok(!minted.stderr.includes(secret.slice(0, 40)), 'part of a secret was printed');
    }
    assert.match(minted.stderr, /paris: reader identity applied .*valid until \d{4}-\d\d-\d\dT/);

    // WHEN synth runs with that kubeconfig alone
    const synth = await repo.run(['synth', '--kubeconfig', out]);
    // THEN both clusters are observed (nothing stale) and the mirror is compiled
    assert.equal(synth.code, 0, synth.stderr);
    assert.deepEqual(synth.report.targets.map((c: { cluster: string; reachable: boolean }) => [c.cluster, c.reachable]), [['paris', true]]);
    assert.deepEqual(synth.report.sources.map((c: { cluster: string; reachable: boolean }) => [c.cluster, c.reachable]), [['london', true]]);
    assert.ok(existsSync(join(repo.outDir, 'london', 'from-paris', 'shop', 'service-cart-paris.yaml')), `the mirror of cart was written: ${JSON.stringify(synth.report.sources)} ${synth.stderr}`);

    // AND a write with it is forbidden
    const write = spawnSync(join(fleet.binDir, 'kubectl'), [`--kubeconfig=${out}`, '--context=paris', 'create', 'configmap', 'sneaky', '-n', 'default'], { encoding: 'utf8', env: { ...process.env, KUBECONFIG: '' } });
    assert.notEqual(write.status, 0);
    assert.match(write.stderr, /forbidden/i);
    assert.match(write.stderr, /system:serviceaccount:mirrorc-system:mirrorc-observer/);

    // WHEN one cluster is rotated
    const rotated = await repo.run(['access', '--kubeconfig', fleet.kubeconfig('admin'), '--kubeconfig-out', out, '--cluster', 'paris'], { report: false });
    assert.equal(rotated.code, 0, rotated.stderr);
    const after = YAML.parse(readFileSync(out, 'utf8')) as Kubeconfig;
    const tokenOf = (c: Kubeconfig, name: string): string => c.users.find((u) => u.name === `${name}-mirrorc-observer`)!.user.token;
    // THEN only paris got a new token (default lifetime 1h); london's entry is kept as it was
    assert.equal(tokenOf(after, 'london'), tokenOf(cfg, 'london'));
    assert.notEqual(tokenOf(after, 'paris'), tokenOf(cfg, 'paris'));
    assert.equal(Number(jwtClaims(tokenOf(after, 'paris')).exp) - Number(jwtClaims(tokenOf(after, 'paris')).iat), 3600);
    assert.deepEqual(after.contexts.map((c) => c.name), ['london', 'paris']);
  });

  test('an admin context that may not manage RBAC: exit 4 naming the cluster, nothing written', async (t) => {
    if (!fleet) return t.skip(kubeFleetSkipReason);
    const out = join(secrets, 'refused.kubeconfig');
    const run = await repo.run(['access', '--kubeconfig', fleet.kubeconfig('nobody'), '--kubeconfig-out', out], { report: false });
    assert.equal(run.code, 4, run.stderr);
    assert.match(run.stderr, /cluster "london": apply Namespace mirrorc-system: HTTP 403 .*cluster-admin/);
    assert.doesNotMatch(run.stderr, /\n\s+at /);
    assert.ok(!existsSync(out));
  });

  test('a cluster that is no link\'s: exit 2 listing the known ones; a missing --kubeconfig-out is exit 2', async (t) => {
    if (!fleet) return t.skip(kubeFleetSkipReason);
    const run = await repo.run(['access', '--kubeconfig', fleet.kubeconfig('admin'), '--kubeconfig-out', join(secrets, 'x'), '--cluster', 'rome'], { report: false });
    assert.equal(run.code, 2);
    assert.match(run.stderr, /--cluster rome: not a cluster of any link in the fleet \(known: london, paris\)/);
    const noOut = await repo.run(['access'], { report: false });
    assert.equal(noOut.code, 2);
    assert.match(noOut.stderr, /needs --kubeconfig-out/);
  });
});
