/**
 * Sharded synth against real kube-apiservers: one `observe` run updates the lock for every shard,
 * then `synth --offline --source <cluster>` per shard. A stopped target is kept from the lock with
 * its stale time recorded once, and no shard touches another shard's folder or the lock.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { ExitCode } from '../../src/errors/exit-codes.js';
import type { FleetDefinition } from '../../src/load/load-fleet.js';
import { readTree } from '../../src/emit/write-output.js';
import { Cluster, Link } from '../../src/model/index.js';
import { readLockFile } from '../../src/observe/lock-file.js';
import { observationRules } from '../../src/observe/observation-rbac.js';
import { kubeFleetForTests, type KubeFleet } from '../harness/kube-fleet.js';
import { applyService, ensureNamespace, installGateway, unitFree, Workspace } from './support.js';

const EXPORTED = { 'mirror.linkerd.io/exported': 'true' };

/** london mirrors paris and rome; rome mirrors paris: two shards (london, rome) sharing target paris. */
const defineFleet: FleetDefinition = (fleet) => {
  const london = new Cluster(fleet, 'london');
  const paris = new Cluster(fleet, 'paris');
  const rome = new Cluster(fleet, 'rome');
  new Link(fleet, 'london-from-paris', { source: london, target: paris });
  new Link(fleet, 'london-from-rome', { source: london, target: rome });
  new Link(fleet, 'rome-from-paris', { source: rome, target: paris });
};

const T1 = new Date('2025-03-01T10:00:00Z');
const T2 = new Date('2025-03-01T10:15:00Z');

/** The files of one cluster folder (`<cluster>/...` keys) of a tree. */
function folder(tree: Map<string, string>, cluster: string): Map<string, string> {
  return new Map([...tree].filter(([p]) => p.startsWith(`${cluster}/`)));
}

describe('sharded synth against real API servers', () => {
  let fleet: KubeFleet | undefined;

  before(async (t) => {
    fleet = await kubeFleetForTests(t as never, ['london', 'paris', 'rome'], { readerRules: observationRules({ source: true, target: true }) });
    if (!fleet) return;
    await installGateway(fleet, 'paris', '203.0.113.10');
    await installGateway(fleet, 'rome', '198.51.100.30');
    for (const cluster of ['london', 'rome']) await ensureNamespace(fleet, cluster, 'shard');
  });

  after(async () => {
    await fleet?.stop();
  });

  test('observe once, compile per shard; a stopped target stays stale-but-safe and shards never touch each other', async (t) => {
    if (!fleet) return t.skip('no kube-apiserver');
    const ws = new Workspace(defineFleet, fleet.kubeconfig('reader'));
    const lock = (): string => readFileSync(ws.lockFile, 'utf8');
    try {
      // GIVEN paris exports shard/api and rome exports shard/web
      await applyService(fleet, 'paris', 'shard', 'api', { app: 'api', ...EXPORTED });
      await applyService(fleet, 'rome', 'shard', 'web', { app: 'web', ...EXPORTED });
      // WHEN one observe run and one offline run per shard
      const observed = await ws.synth({ mode: 'observe', now: () => T1 });
      assert.equal(observed.exitCode, ExitCode.OK, ws.logs.join('\n'));
      assert.deepEqual(readTree(ws.outDir), new Map(), 'observe writes no dist/');
      for (const source of ['london', 'rome']) assert.equal((await ws.synth({ offline: true, sources: [source] })).exitCode, ExitCode.OK, ws.logs.join('\n'));
      // THEN each shard wrote its mirrors
      assert.ok(ws.paths('london').includes('shard/service-api-paris.yaml'));
      assert.ok(ws.paths('london').includes('shard/service-web-rome.yaml'));
      assert.ok(ws.paths('rome').includes('shard/service-api-paris.yaml'));
      assert.equal(readLockFile(ws.lockFile).staleSince, undefined);

      // WHEN paris stops and rome exports one more service, and the fleet is observed again
      await fleet.clusters.paris!.stop();
      await applyService(fleet, 'rome', 'shard', 'extra', { app: 'extra', ...EXPORTED });
      const treeBefore = readTree(ws.outDir);
      const lockBefore = lock();
      const down = await ws.synth({ mode: 'observe', now: () => T1 });
      // THEN observe succeeds, paris is reported unreachable, its services are kept and its stale time recorded
      assert.equal(down.exitCode, ExitCode.OK, ws.logs.join('\n'));
      assert.ok(ws.logs.some((l) => l === '  target paris: not observed (unreachable); its last known state is kept'), ws.logs.join('\n'));
      assert.ok(ws.logs.some((l) => l === '  target rome: 2 exported services'), ws.logs.join('\n'));
      const paris = down.report.targets.find((r) => r.cluster === 'paris');
      assert.deepEqual([paris?.reachable, paris?.stale, paris?.staleSince, paris?.exportedServices], [false, true, '2025-03-01T10:00:00Z', 1]);
      assert.match(paris?.error ?? '', /cluster "paris"/);
      const lockDown = readLockFile(ws.lockFile);
      assert.deepEqual(lockDown.staleSince, { targets: { paris: '2025-03-01T10:00:00Z' } });
      assert.deepEqual(JSON.parse(lockBefore).observed.targets.paris, lockDown.targets.paris, 'paris kept from the lock');
      assert.deepEqual(readTree(ws.outDir), treeBefore, 'observe leaves dist/ alone');

      // WHEN only the rome shard is compiled
      const lockAfterObserve = lock();
      const rome = await ws.synth({ offline: true, sources: ['rome'] });
      // THEN it has nothing to change (paris is kept), london is byte-identical (not yet compiled), the lock too
      assert.equal(rome.exitCode, ExitCode.OK);
      assert.deepEqual(rome.changes, []);
      assert.deepEqual(readTree(ws.outDir), treeBefore);
      assert.equal(lock(), lockAfterObserve);
      // WHEN the london shard is compiled
      const london = await ws.synth({ offline: true, sources: ['london'] });
      // THEN london gains rome's new mirror and keeps paris's; rome's folder and the lock are byte-identical
      assert.deepEqual(london.changes.map((c) => [c.cluster, c.removed, unitFree(c.changed)]), [['london', [], ['kustomization.yaml']]]);
      assert.ok(ws.paths('london').includes('shard/service-extra-rome.yaml'));
      assert.ok(ws.paths('london').includes('shard/service-api-paris.yaml'));
      assert.deepEqual(folder(readTree(ws.outDir), 'rome'), folder(treeBefore, 'rome'));
      // the lock: the same observation; only london's unit records (its new mirror) change
      const lockLondon = JSON.parse(lock());
      const lockObserved = JSON.parse(lockAfterObserve);
      assert.deepEqual(lockLondon.observed, lockObserved.observed);
      assert.deepEqual({ ...lockLondon.compiled.units, london: undefined }, { ...lockObserved.compiled.units, london: undefined });
      assert.notDeepEqual(lockLondon.compiled.units.london, lockObserved.compiled.units.london);
      const lockAfterLondon = lock();
      // AND the assembled output equals an unsharded compile of the same lock
      assert.equal((await ws.synth({ offline: true, mode: 'check', print: (l) => ws.logs.push(l) })).exitCode, ExitCode.OK, ws.logs.join('\n'));

      // WHEN observed again later while paris is still down
      await ws.synth({ mode: 'observe', now: () => T2 });
      // THEN the lock does not change: the first stale time is kept
      assert.equal(lock(), lockAfterLondon);

      // WHEN paris is back
      await fleet.clusters.paris!.start();
      const up = await ws.synth({ mode: 'observe', now: () => T2, reportFile: join(ws.dir, 'report.json') });
      // THEN its stale time is gone from the lock and the report
      assert.equal(up.exitCode, ExitCode.OK, ws.logs.join('\n'));
      assert.equal(readLockFile(ws.lockFile).staleSince, undefined);
      const report = JSON.parse(readFileSync(join(ws.dir, 'report.json'), 'utf8'));
      assert.deepEqual(report.targets.map((r: { cluster: string; reachable: boolean; staleSince: string | null }) => [r.cluster, r.reachable, r.staleSince]), [['paris', true, null], ['rome', true, null]]);
    } finally {
      await fleet.clusters.paris!.start();
      ws.remove();
    }
  });
});
