/**
 * The aggregated `<svc>-global` Service (the multi-cluster StatefulSet discovery proposal): one
 * headless Service per namespace per source, one EndpointSlice per contributing cluster.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { Cluster, Link } from '../../src/model/index.js';
import type { FleetSnapshot, SourceSnapshot } from '../../src/snapshot/snapshot.js';
import { compileObjects, snapshot, source, spec, statefulService, target } from '../fixtures/snapshots.js';

/** london mirrors kafka from each of `targets`, with `-global` on every link. */
function fleetWith(targets: string[], linkProps: { globalServices?: boolean } = { globalServices: true }) {
  return spec((fleet) => {
    const london = new Cluster(fleet, 'london', { pinnedServiceIPRange: '10.96.0.0/24' });
    for (const t of targets) new Link(fleet, `london-${t}`, { source: london, target: new Cluster(fleet, t), ...linkProps });
  });
}

function kafkaIn(targets: string[], london: Partial<SourceSnapshot> = {}, pinned?: Record<string, string>): FleetSnapshot {
  const snap = snapshot(
    Object.fromEntries(targets.map((t) => [t, target([statefulService('data', 'kafka', ['kafka-0', 'kafka-1'])])])),
    { london: { ...source(['data']), pinnedRangeServices: [], ...london } },
  );
  return pinned ? { ...snap, pinnedServiceIPs: { london: pinned } } : snap;
}

describe('<svc>-global', () => {
  test('aggregates the per-pod mirrors of every linked target, one EndpointSlice per cluster, hostnames <pod>-<cluster>', () => {
    // GIVEN kafka (2 pods) in paris and rome, both links opting into -global
    // WHEN compiled for london
    const { objects, result } = compileObjects(fleetWith(['paris', 'rome']), kafkaIn(['paris', 'rome']));
    // THEN one headless kafka-global with the remote ports exists
    const global = objects.get('london/Service/data/kafka-global');
    assert.equal(global.spec.clusterIP, 'None');
    assert.equal(global.spec.selector, undefined);
    assert.deepEqual(global.spec.ports, [{ name: 'client', protocol: 'TCP', port: 9092, targetPort: 9092 }]);
    // AND one slice per cluster lists <pod>-<cluster> at that per-pod mirror's pinned IP
    const pinned = result.pinnedServiceIPs.london!;
    for (const cluster of ['paris', 'rome']) {
      const slice = objects.get(`london/EndpointSlice/data/kafka-global-${cluster}`);
      assert.equal(slice.metadata.labels['kubernetes.io/service-name'], 'kafka-global');
      assert.deepEqual(
        slice.endpoints.map((e: any) => [e.hostname, e.addresses[0]]),
        ['kafka-0', 'kafka-1'].map((pod) => [`${pod}-${cluster}`, pinned[`data/${pod}-${cluster}`]]),
      );
      assert.deepEqual(slice.ports, [{ name: 'client', port: 9092, protocol: 'TCP' }]);
    }
  });

  test('linking a third cluster adds its slice and pod mirrors, and changes nothing that existed', () => {
    // GIVEN the two-target output, with its pinned IPs in the lock
    const before = compileObjects(fleetWith(['paris', 'rome']), kafkaIn(['paris', 'rome']));
    // WHEN madrid is linked too and compiled with that lock
    const after = compileObjects(fleetWith(['madrid', 'paris', 'rome']), kafkaIn(['madrid', 'paris', 'rome'], {}, before.result.pinnedServiceIPs.london));
    // THEN every object of the first run is byte-identical
    for (const [key, object] of before.objects) assert.deepEqual(after.objects.get(key), object, key);
    // AND exactly the madrid objects are new: its root mirror, two pod mirrors, and its -global slice
    const added = [...after.objects.keys()].filter((k) => !before.objects.has(k)).sort();
    assert.deepEqual(added, [
      'london/EndpointSlice/data/kafka-0-madrid-ipv4',
      'london/EndpointSlice/data/kafka-1-madrid-ipv4',
      'london/EndpointSlice/data/kafka-global-madrid',
      'london/EndpointSlice/data/kafka-madrid-ipv4',
      'london/Endpoints/data/kafka-0-madrid',
      'london/Endpoints/data/kafka-1-madrid',
      'london/Endpoints/data/kafka-madrid',
      'london/Service/data/kafka-0-madrid',
      'london/Service/data/kafka-1-madrid',
      'london/Service/data/kafka-madrid',
    ]);
  });

  test('is opt-in: without the link option or the mirrorc.io/global label there is none; the label alone opts one service in', () => {
    // GIVEN links without globalServices, kafka unlabelled in paris and labelled in rome
    const labelled = statefulService('data', 'kafka', ['kafka-0'], { labels: { app: 'kafka', 'mirror.linkerd.io/exported': 'true', 'mirrorc.io/global': 'true' } });
    const snap = snapshot(
      { paris: target([statefulService('data', 'kafka', ['kafka-0'])]), rome: target([labelled]) },
      { london: { ...source(['data']), pinnedRangeServices: [] } },
    );
    // WHEN compiled
    const { objects } = compileObjects(fleetWith(['paris', 'rome'], {}), snap);
    // THEN kafka-global holds rome's slice only
    assert.ok(objects.has('london/Service/data/kafka-global'));
    assert.ok(objects.has('london/EndpointSlice/data/kafka-global-rome'));
    assert.equal(objects.has('london/EndpointSlice/data/kafka-global-paris'), false);
    // AND with no opt-in at all there is no -global Service
    const none = compileObjects(fleetWith(['paris'], {}), kafkaIn(['paris']));
    assert.equal([...none.objects.keys()].some((k) => k.includes('kafka-global')), false);
  });

  test("the source's own labelled StatefulSet joins through pinned per-pod Services that select one pod each", () => {
    // GIVEN london's own kafka (headless, labelled, selector app=kafka) with pods kafka-0 and kafka-1
    const own = statefulService('data', 'kafka', ['kafka-0', 'kafka-1'], {
      labels: { app: 'kafka', 'mirrorc.io/global': 'true' },
      selector: { app: 'kafka' },
    });
    // WHEN compiled with paris linked
    const { objects, result } = compileObjects(fleetWith(['paris']), kafkaIn(['paris'], { globalMembers: [own] }));
    // THEN kafka-0-london selects exactly pod kafka-0 at a pinned IP
    const podSvc = objects.get('london/Service/data/kafka-0-london');
    assert.deepEqual(podSvc.spec.selector, { app: 'kafka', 'statefulset.kubernetes.io/pod-name': 'kafka-0' });
    assert.equal(podSvc.spec.clusterIP, result.pinnedServiceIPs.london!['data/kafka-0-london']);
    // AND the -global Service lists london's own pods first
    const slices = [...objects.keys()].filter((k) => k.startsWith('london/EndpointSlice/data/kafka-global-'));
    assert.deepEqual(slices.sort(), ['london/EndpointSlice/data/kafka-global-london', 'london/EndpointSlice/data/kafka-global-paris']);
    assert.deepEqual(objects.get('london/EndpointSlice/data/kafka-global-london').endpoints.map((e: any) => e.hostname), ['kafka-0-london', 'kafka-1-london']);
  });

  test('different ports across contributors are reported, and the first contributor wins', () => {
    // GIVEN paris's kafka on 9092 and rome's on 9093
    const snap = snapshot(
      {
        paris: target([statefulService('data', 'kafka', ['kafka-0'])]),
        rome: target([statefulService('data', 'kafka', ['kafka-0'], { ports: [{ name: 'client', protocol: 'TCP', port: 9093, targetPort: 9093 }] })]),
      },
      { london: { ...source(['data']), pinnedRangeServices: [] } },
    );
    // WHEN compiled
    const { objects, result } = compileObjects(fleetWith(['paris', 'rome']), snap);
    // THEN the Service uses paris's port and the warning names both clusters and ports
    assert.equal(objects.get('london/Service/data/kafka-global').spec.ports[0].port, 9092);
    assert.ok(result.warnings.some((w) => w.includes('"paris" (ports client 9092/TCP)') && w.includes('"rome" (ports client 9093/TCP)')));
  });
});
