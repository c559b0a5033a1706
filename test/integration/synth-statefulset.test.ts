/**
 * StatefulSet mirroring end to end against real kube-apiservers: london mirrors kafka from paris and
 * rome per pod, with ClusterIPs pinned in london's Service CIDR, and aggregates them in kafka-global;
 * linking madrid later grows kafka-global and changes nothing else.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, describe, test } from 'node:test';
import { ExitCode } from '../../src/errors/exit-codes.js';
import type { FleetDefinition } from '../../src/load/load-fleet.js';
import { Cluster, Link } from '../../src/model/index.js';
import { observationRules } from '../../src/observe/observation-rbac.js';
import { kubeFleetForTests, SERVICE_CIDR, type KubeFleet } from '../harness/kube-fleet.js';
import { applyService, applyStatefulService, applyWithoutDrift, ensureNamespace, installGateway, unitFree, Workspace } from './support.js';

const EXPORTED = { 'mirror.linkerd.io/exported': 'true' };
/** The lower, static band of the harness's 10.96.0.0/16 Service CIDR. */
const PINNED_RANGE = '10.96.0.0/24';

function fleetOf(targets: string[]): FleetDefinition {
  return (fleet) => {
    const london = new Cluster(fleet, 'london', { pinnedServiceIPRange: PINNED_RANGE });
    for (const t of targets) new Link(fleet, `london-from-${t}`, { source: london, target: new Cluster(fleet, t), globalServices: true });
  };
}

describe('StatefulSet (headless) mirroring against real API servers', () => {
  let fleet: KubeFleet | undefined;

  before(async (t) => {
    fleet = await kubeFleetForTests(t as never, ['london', 'paris', 'rome', 'madrid'], { readerRules: observationRules({ source: true, target: true }) });
    if (!fleet) return;
    assert.equal(SERVICE_CIDR, '10.96.0.0/16', 'the pinned range must lie inside the harness Service CIDR');
    await installGateway(fleet, 'paris', '203.0.113.10');
    await installGateway(fleet, 'rome', '198.51.100.30');
    await installGateway(fleet, 'madrid', '192.0.2.40');
    for (const ns of ['data', 'clash', 'own']) await ensureNamespace(fleet, 'london', ns);
  });

  after(async () => {
    await fleet?.stop();
  });

  test('per-pod mirrors get pinned IPs the source accepts; linking a third cluster only adds its objects', async (t) => {
    if (!fleet) return t.skip('no kube-apiserver');
    const ws2 = new Workspace(fleetOf(['paris', 'rome']), fleet.kubeconfig('reader'));
    try {
      // GIVEN kafka with 3 pods in paris and 2 in rome, exported
      await applyStatefulService(fleet, 'paris', 'data', 'kafka', 3, { app: 'kafka', ...EXPORTED });
      await applyStatefulService(fleet, 'rome', 'data', 'kafka', 2, { app: 'kafka', ...EXPORTED });
      await applyStatefulService(fleet, 'madrid', 'data', 'kafka', 2, { app: 'kafka', ...EXPORTED });
      // WHEN synth runs for london linked to paris and rome
      const first = await ws2.synth();
      assert.equal(first.exitCode, ExitCode.OK, ws2.logs.join('\n'));
      // THEN the lock pins one IP per pod, none of them london's live kubernetes Service IP (10.96.0.1)
      const pinned = JSON.parse(readFileSync(ws2.lockFile, 'utf8')).compiled.pinnedServiceIPs.london as Record<string, string>;
      assert.deepEqual(Object.keys(pinned).sort(), ['data/kafka-0-paris', 'data/kafka-0-rome', 'data/kafka-1-paris', 'data/kafka-1-rome', 'data/kafka-2-paris']);
      assert.ok(!Object.values(pinned).includes('10.96.0.1'), JSON.stringify(pinned));
      // AND server-side applying dist/london is accepted, reads back unchanged, and re-applies as a no-op
      const live = await applyWithoutDrift(fleet, ws2, 'london');
      assert.equal(live.get('london/data/service-kafka-0-paris.yaml').spec.clusterIP, pinned['data/kafka-0-paris']);
      assert.equal(live.get('london/data/service-kafka-paris.yaml').spec.clusterIP, 'None');
      const globalRome = live.get('london/data/endpointslice-kafka-global-rome.yaml');
      assert.deepEqual(globalRome.endpoints.map((e: any) => [e.hostname, e.addresses[0]]), [
        ['kafka-0-rome', pinned['data/kafka-0-rome']],
        ['kafka-1-rome', pinned['data/kafka-1-rome']],
      ]);

      // WHEN madrid is linked as well (same workspace, so the same lock and dist/)
      const ws3 = new Workspace(fleetOf(['madrid', 'paris', 'rome']), fleet.kubeconfig('reader'));
      Object.assign(ws3, { dir: ws2.dir, outDir: ws2.outDir, lockFile: ws2.lockFile });
      const before = ws2.files();
      const third = await ws3.synth();
      assert.equal(third.exitCode, ExitCode.OK, ws3.logs.join('\n'));
      // THEN the only objects added are madrid's (its mirrors and its kafka-global slice), and no other object changes
      const after = ws3.files();
      const addedObjects = [...after.keys()].filter((p) => !before.has(p));
      assert.ok(addedObjects.length > 0 && addedObjects.every((f) => f.includes('madrid')), addedObjects.join(', '));
      assert.ok(addedObjects.includes('london/data/endpointslice-kafka-global-madrid.yaml'), addedObjects.join(', '));
      for (const [path, text] of before) if (path !== 'LOCK' && !path.endsWith('kustomization.yaml')) assert.equal(after.get(path), text, path);
      // AND the files written are madrid's added ones, their listing, and kafka-global's file, which holds the slice of every target
      const changes = third.changes.find((c) => c.cluster === 'london')!;
      assert.deepEqual(unitFree(changes.changed), ['data/service-kafka-global.yaml', 'kustomization.yaml']);
      assert.deepEqual(changes.removed, []);
      assert.ok(changes.added.length > 0 && changes.added.every((f) => f.includes('madrid')), changes.added.join(', '));
      assert.ok(unitFree(changes.added).includes('data/service-kafka-madrid.yaml'));
      // AND the earlier pins are kept, and the source accepts the grown output without drift
      const grown = JSON.parse(readFileSync(ws3.lockFile, 'utf8')).compiled.pinnedServiceIPs.london as Record<string, string>;
      for (const [key, ip] of Object.entries(pinned)) assert.equal(grown[key], ip, key);
      await applyWithoutDrift(fleet, ws3, 'london');
    } finally {
      ws2.remove();
    }
  });

  test('with --strict, a pinned IP taken by a Service mirrorc did not write is an error, and nothing is written', async (t) => {
    if (!fleet) return t.skip('no kube-apiserver');
    const ws = new Workspace(fleetOf(['paris']), fleet.kubeconfig('reader'));
    try {
      // GIVEN zk (1 pod) in paris, synthesised once: zk-0-paris is pinned but not yet synced to london
      await applyStatefulService(fleet, 'paris', 'clash', 'zk', 1, { app: 'zk', ...EXPORTED }, 2181);
      assert.equal((await ws.synth()).exitCode, ExitCode.OK, ws.logs.join('\n'));
      const ip = JSON.parse(readFileSync(ws.lockFile, 'utf8')).compiled.pinnedServiceIPs.london['clash/zk-0-paris'] as string;
      // AND someone creates a Service in london with exactly that ClusterIP
      await applyService(fleet, 'london', 'clash', 'squatter', { app: 'squatter' }, { spec: { clusterIP: ip } });
      const before = ws.files();
      // WHEN synth runs again with --strict (without it, only zk is skipped: test/safety/hostile-input.test.ts)
      const result = await ws.synth({ strict: true });
      // THEN it fails with a compile error naming the IP, the per-pod mirror and the other Service
      assert.equal(result.exitCode, ExitCode.COMPILE_ERROR);
      assert.match(result.error ?? '', new RegExp(`ClusterIP ${ip.replace(/\./g, '\\.')}, pinned for per-pod mirror clash/zk-0-paris .* held by Service clash/squatter, which mirrorc did not write`));
      // AND dist/ and the lock are exactly as before
      assert.deepEqual(ws.files(), before);
    } finally {
      ws.remove();
    }
  });

  test("the source's own labelled StatefulSet joins <svc>-global through per-pod Services that the source accepts", async (t) => {
    if (!fleet) return t.skip('no kube-apiserver');
    const ws = new Workspace(fleetOf(['paris']), fleet.kubeconfig('reader'));
    try {
      // GIVEN etcd (2 pods) in paris, and london's own etcd (2 pods), both labelled mirrorc.io/global=true
      const labels = { app: 'etcd', 'mirrorc.io/global': 'true' };
      await applyStatefulService(fleet, 'paris', 'own', 'etcd', 2, { ...labels, ...EXPORTED }, 2379);
      await applyStatefulService(fleet, 'london', 'own', 'etcd', 2, labels, 2379);
      // WHEN synth runs
      const result = await ws.synth();
      assert.equal(result.exitCode, ExitCode.OK, ws.logs.join('\n'));
      // THEN london's pods get per-pod Services selecting one pod each, and etcd-global lists london first, then paris
      const live = await applyWithoutDrift(fleet, ws, 'london');
      assert.deepEqual(live.get('london/own/service-etcd-0-london.yaml').spec.selector, { app: 'etcd', 'statefulset.kubernetes.io/pod-name': 'etcd-0' });
      const slices = [...live.keys()].filter((k) => k.startsWith('london/own/endpointslice-etcd-global-')).sort();
      assert.deepEqual(slices, ['london/own/endpointslice-etcd-global-london.yaml', 'london/own/endpointslice-etcd-global-paris.yaml']);
      assert.deepEqual(live.get('london/own/endpointslice-etcd-global-london.yaml').endpoints.map((e: any) => e.hostname), ['etcd-0-london', 'etcd-1-london']);
    } finally {
      ws.remove();
    }
  });
});
