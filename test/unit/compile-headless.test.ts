/**
 * Headless/StatefulSet mirrors (contract §2.5): the headless root mirror, per-pod mirrors with
 * ClusterIPs pinned from the source's declared range, and how pinning stays stable and safe.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { planFleet } from '../../src/compile/compile-fleet.js';
import { CompileError } from '../../src/compile/diagnostics.js';
import { Cluster, Link } from '../../src/model/index.js';
import type { FleetSnapshot, PinnedRangeService } from '../../src/snapshot/snapshot.js';
import { compileObjects, IDENTITY, service, snapshot, source, spec, statefulService, target } from '../fixtures/snapshots.js';

const RANGE = '10.96.0.0/28';

const londonParis = spec((fleet) => {
  const london = new Cluster(fleet, 'london', { pinnedServiceIPRange: RANGE });
  const paris = new Cluster(fleet, 'paris');
  new Link(fleet, 'london-paris', { source: london, target: paris });
});

function withLive(snap: FleetSnapshot, live: PinnedRangeService[], pinned?: Record<string, string>): FleetSnapshot {
  return {
    ...snap,
    sources: { london: { ...source(['data']), pinnedRangeServices: live } },
    ...(pinned ? { pinnedServiceIPs: { london: pinned } } : {}),
  };
}

describe('headless mirror of a StatefulSet (contract §2.5)', () => {
  test('the root mirror is headless and maps each pod hostname to the pinned IP of its per-pod mirror', () => {
    // GIVEN a headless kafka in paris with two pods, and london declaring a pinned range
    const kafka = statefulService('data', 'kafka', ['kafka-0', 'kafka-1']);
    // WHEN compiled
    const { objects, result } = compileObjects(londonParis, withLive(snapshot({ paris: target([kafka]) }, {}), []));
    // THEN kafka-paris is headless, with the remote ports
    const root = objects.get('london/Service/data/kafka-paris');
    assert.equal(root.spec.clusterIP, 'None');
    assert.deepEqual(root.spec.ports, [{ name: 'client', protocol: 'TCP', port: 9092, targetPort: 9092 }]);
    // AND its Endpoints and EndpointSlice give each hostname the per-pod mirror's pinned IP, on the container port
    const pinned = result.pinnedServiceIPs.london!;
    assert.deepEqual(pinned, { 'data/kafka-0-paris': '10.96.0.1', 'data/kafka-1-paris': '10.96.0.2' });
    const ep = objects.get('london/Endpoints/data/kafka-paris');
    assert.deepEqual(ep.subsets, [
      { addresses: [{ hostname: 'kafka-0', ip: '10.96.0.1' }, { hostname: 'kafka-1', ip: '10.96.0.2' }], ports: [{ name: 'client', port: 9092, protocol: 'TCP' }] },
    ]);
    assert.equal(ep.metadata.labels['endpointslice.kubernetes.io/skip-mirror'], 'true');
    assert.equal(ep.metadata.annotations['mirror.linkerd.io/remote-gateway-identity'], IDENTITY);
    const slice = objects.get('london/EndpointSlice/data/kafka-paris-ipv4');
    assert.deepEqual(slice.endpoints.map((e: any) => [e.hostname, e.addresses[0]]), [['kafka-0', '10.96.0.1'], ['kafka-1', '10.96.0.2']]);
    assert.equal(slice.metadata.labels['kubernetes.io/service-name'], 'kafka-paris');
  });

  test('each pod gets a per-pod gateway mirror <hostname>-<target> with the pinned ClusterIP and the pod authority', () => {
    // GIVEN the same service
    const kafka = statefulService('data', 'kafka', ['kafka-0'], { annotations: { 'example.com/owner': 'x' } });
    // WHEN compiled
    const { objects } = compileObjects(londonParis, withLive(snapshot({ paris: target([kafka]) }, {}), []));
    // THEN kafka-0-paris pins 10.96.0.1 and carries the headless-mirror label but no copied annotation; Argo CD applies it before Services without a pin (sync wave -1)
    const pod = objects.get('london/Service/data/kafka-0-paris');
    assert.equal(pod.spec.clusterIP, '10.96.0.1');
    assert.deepEqual(pod.spec.ports, [{ name: 'client', protocol: 'TCP', port: 9092, targetPort: 9092 }]);
    assert.equal(pod.metadata.labels['mirror.linkerd.io/headless-mirror-svc-name'], 'kafka-paris');
    assert.equal(pod.metadata.labels['mirror.linkerd.io/cluster-name'], 'paris');
    assert.deepEqual(pod.metadata.annotations, { 'argocd.argoproj.io/sync-wave': '-1', 'mirror.linkerd.io/remote-svc-fq-name': 'kafka-0.kafka.data.svc.cluster.local' });
    // AND its endpoints point at the gateway with the pod's authority
    const ep = objects.get('london/Endpoints/data/kafka-0-paris');
    assert.deepEqual(ep.subsets[0].addresses, [{ ip: '203.0.113.10' }]);
    assert.equal(ep.metadata.annotations['mirror.linkerd.io/remote-svc-fq-name'], 'kafka-0.kafka.data.svc.cluster.local');
  });

  test('a headless service without hostnames, or a source without a pinned range, falls back to one gateway mirror', () => {
    // GIVEN a headless service without hostnames (a Deployment) and a StatefulSet in a fleet without a range
    const noHosts = statefulService('data', 'web', []);
    const noRange = spec((fleet) => {
      const london = new Cluster(fleet, 'london');
      new Link(fleet, 'l', { source: london, target: new Cluster(fleet, 'paris') });
    });
    // WHEN compiled
    const a = compileObjects(londonParis, withLive(snapshot({ paris: target([noHosts]) }, {}), []));
    const b = compileObjects(noRange, snapshot({ paris: target([statefulService('data', 'kafka', ['kafka-0'])]) }, { london: source(['data']) }));
    // THEN both become ordinary ClusterIP mirrors pointing at the gateway, and no pod mirror exists
    assert.equal(a.objects.get('london/Service/data/web-paris').spec.clusterIP, undefined);
    assert.deepEqual(a.objects.get('london/Endpoints/data/web-paris').subsets[0].addresses, [{ ip: '203.0.113.10' }]);
    assert.equal(b.objects.get('london/Service/data/kafka-paris').spec.clusterIP, undefined);
    assert.equal(b.objects.has('london/Service/data/kafka-0-paris'), false);
    // AND the run says how to get per-pod mirrors
    assert.ok(b.result.warnings.some((w) => w.includes('paris/data/kafka') && w.includes('pinnedServiceIPRange')));
  });
});

describe('pinned ClusterIPs', () => {
  test('kept across runs: a new pod gets a fresh IP and never one released in the same run', () => {
    // GIVEN a previous run that pinned kafka-0 and kafka-1, and kafka-1 gone and kafka-2 new now
    const kafka = statefulService('data', 'kafka', ['kafka-0', 'kafka-2']);
    const previous = { 'data/kafka-0-paris': '10.96.0.1', 'data/kafka-1-paris': '10.96.0.2' };
    // WHEN compiled
    const { result } = compileObjects(londonParis, withLive(snapshot({ paris: target([kafka]) }, {}), [], previous));
    // THEN kafka-0 keeps .1, kafka-2 skips the just-released .2
    assert.deepEqual(result.pinnedServiceIPs.london, { 'data/kafka-0-paris': '10.96.0.1', 'data/kafka-2-paris': '10.96.0.3' });
  });

  test('live Services in the range are skipped, and a live per-pod mirror of ours keeps its IP', () => {
    // GIVEN the source's kubernetes Service at .1 and kube-dns at .10, and our kafka-1-paris live at .7
    const live: PinnedRangeService[] = [
      { namespace: 'default', name: 'kubernetes', ip: '10.96.0.1', managed: false },
      { namespace: 'data', name: 'kafka-1-paris', ip: '10.96.0.7', managed: true },
      { namespace: 'kube-system', name: 'kube-dns', ip: '10.96.0.10', managed: false },
    ];
    const kafka = statefulService('data', 'kafka', ['kafka-0', 'kafka-1']);
    // WHEN compiled without any lock allocation
    const { result } = compileObjects(londonParis, withLive(snapshot({ paris: target([kafka]) }, {}), live));
    // THEN kafka-0 takes .2 (the first free) and kafka-1 keeps its live .7
    assert.deepEqual(result.pinnedServiceIPs.london, { 'data/kafka-0-paris': '10.96.0.2', 'data/kafka-1-paris': '10.96.0.7' });
  });

  test('with --strict, a pinned IP taken by a Service mirrorc did not write is a compile error naming both', () => {
    // GIVEN kafka-0-paris pinned at .1 and someone's Service now holding .1
    const live: PinnedRangeService[] = [{ namespace: 'apps', name: 'legacy', ip: '10.96.0.1', managed: false }];
    const kafka = statefulService('data', 'kafka', ['kafka-0']);
    // WHEN compiled
    // THEN compile fails, naming the IP, the mirror, the other Service and what to do
    assert.throws(
      () => compileObjects(londonParis, withLive(snapshot({ paris: target([kafka]) }, {}), live, { 'data/kafka-0-paris': '10.96.0.1' }), { strict: true }),
      (e: unknown) =>
        e instanceof CompileError &&
        /london: ClusterIP 10\.96\.0\.1, pinned for per-pod mirror data\/kafka-0-paris .* is held by Service apps\/legacy, which mirrorc did not write/.test(e.message),
    );
  });

  test('with --strict, an exhausted range is a compile error that says how many IPs are needed', () => {
    // GIVEN a /30 (two usable addresses) and three pods
    const tiny = spec((fleet) => {
      const london = new Cluster(fleet, 'london', { pinnedServiceIPRange: '10.96.0.0/30' });
      new Link(fleet, 'l', { source: london, target: new Cluster(fleet, 'paris') });
    });
    const kafka = statefulService('data', 'kafka', ['kafka-0', 'kafka-1', 'kafka-2']);
    // WHEN compiled THEN it fails and names the range
    assert.throws(
      () => compileObjects(tiny, withLive(snapshot({ paris: target([kafka]) }, {}), []), { strict: true }),
      (e: unknown) => e instanceof CompileError && e.message.includes('pinnedServiceIPRange 10.96.0.0/30 has no free address left'),
    );
  });

  test('with --strict, per-pod mirror names are checked for length and collisions like every mirror', () => {
    // GIVEN a pod hostname that collides with an exported service's mirror, and one that is too long
    const kafka = statefulService('data', 'kafka', ['api', 'k'.repeat(60)]);
    const api = service('data', 'api');
    // WHEN compiled THEN both problems are reported
    assert.throws(
      () => compileObjects(londonParis, withLive(snapshot({ paris: target([api, kafka]) }, {}), []), { strict: true }),
      (e: unknown) =>
        e instanceof CompileError &&
        e.message.includes('would both be mirrored as Service data/api-paris') &&
        e.message.includes('(66 characters)'),
    );
  });
});

describe('pinned ClusterIPs and the static band of the Service CIDR (MRC3026)', () => {
  const fleetWith = (props: { pinnedServiceIPRange: string; additionalPinnedServiceIPRanges?: string[]; serviceCidrs?: string[] }) =>
    spec((fleet) => {
      const london = new Cluster(fleet, 'london', props);
      new Link(fleet, 'l', { source: london, target: new Cluster(fleet, 'paris') });
    });
  const kafka = statefulService('data', 'kafka', ['kafka-0', 'kafka-1']);
  const bandWarnings = <D extends { code: string }>(result: { diagnostics: readonly D[] }): D[] => result.diagnostics.filter((d) => d.code === 'MRC3026');

  test('GIVEN a range inside the static band (a /28 without serviceCidrs, a /24 at the bottom of a declared /16) THEN compile reports nothing new', () => {
    for (const props of [{ pinnedServiceIPRange: RANGE }, { pinnedServiceIPRange: '10.96.0.0/24', serviceCidrs: ['10.96.0.0/16'] }]) {
      const { result } = compileObjects(fleetWith(props), withLive(snapshot({ paris: target([kafka]) }, {}), []));
      assert.deepEqual(bandWarnings(result), [], JSON.stringify(props));
    }
  });

  test('GIVEN a source pinning in a /16 without serviceCidrs, with one pin above the first 256 addresses THEN compile warns once, naming the source, and still writes every mirror', () => {
    // GIVEN the lock pinned kafka-1 at 10.96.3.1 (offset 769 of the range)
    const previous = { 'data/kafka-0-paris': '10.96.0.1', 'data/kafka-1-paris': '10.96.3.1' };
    const { objects, result } = compileObjects(fleetWith({ pinnedServiceIPRange: '10.96.0.0/16' }), withLive(snapshot({ paris: target([kafka]) }, {}), [], previous));
    // THEN one MRC3026 warning about london
    const found = bandWarnings(result);
    assert.equal(found.length, 1);
    assert.equal(found[0]!.severity, 'warning');
    assert.equal(found[0]!.cluster, 'london');
    assert.match(found[0]!.message, /^london: pinnedServiceIPRange 10\.96\.0\.0\/16 .* 1 of the 2 ClusterIPs pinned now lie there/);
    // AND both per-pod mirrors are written with their pinned IPs
    assert.equal(objects.get('london/Service/data/kafka-1-paris').spec.clusterIP, '10.96.3.1');
    assert.deepEqual(result.pinnedServiceIPs.london, previous);
  });

  test('GIVEN a declared Service CIDR and a range reaching beyond its static band THEN compile warns, even before anything is pinned there', () => {
    const { result } = compileObjects(fleetWith({ pinnedServiceIPRange: '10.96.0.0/16', serviceCidrs: ['10.96.0.0/16'] }), withLive(snapshot({ paris: target([kafka]) }, {}), []));
    const found = bandWarnings(result);
    assert.equal(found.length, 1);
    assert.match(found[0]!.message, /0 of the 2 ClusterIPs pinned now lie there\. Declare pinnedServiceIPRange: '10\.96\.0\.0\/24'/);
  });

  test('GIVEN a full band in the first block and a second block at the bottom of another Service CIDR THEN the new pin goes to the second band, not past the first; a second block past its band is warned about by its field', () => {
    // GIVEN the band of 10.97.0.0/23 is 10.97.0.1-32, all held (kafka-0 pinned at .32 by an earlier run, the rest by other Services)
    const live = Array.from({ length: 31 }, (_, i) => ({ namespace: 'kube-system', name: `s${i}`, ip: `10.97.0.${i + 1}`, managed: false }));
    const previous = { 'data/kafka-0-paris': '10.97.0.32' };
    const props = { pinnedServiceIPRange: '10.97.0.0/25', additionalPinnedServiceIPRanges: ['10.98.0.0/27'], serviceCidrs: ['10.97.0.0/23', '10.98.0.0/23'] };
    const { result } = compileObjects(fleetWith(props), withLive(snapshot({ paris: target([kafka]) }, {}), live, previous));
    // THEN kafka-1 gets 10.98.0.1 (not 10.97.0.33, past the first band), kafka-0 keeps its pin
    assert.deepEqual(result.pinnedServiceIPs.london, { 'data/kafka-0-paris': '10.97.0.32', 'data/kafka-1-paris': '10.98.0.1' });
    // AND only the first block, which reaches past its band, is warned about
    assert.deepEqual(bandWarnings(result).map((d) => d.message.split(' reaches')[0]), ['london: pinnedServiceIPRange 10.97.0.0/25']);
    const past = compileObjects(fleetWith({ ...props, additionalPinnedServiceIPRanges: ['10.98.0.0/25'] }), withLive(snapshot({ paris: target([kafka]) }, {}), live, previous));
    assert.deepEqual(bandWarnings(past.result).map((d) => d.message.split(' reaches')[0]), ['london: pinnedServiceIPRange 10.97.0.0/25', 'london: additionalPinnedServiceIPRanges 10.98.0.0/25']);
  });

  test('GIVEN --strict THEN it stays a warning: nothing is skipped, the output is complete, and the collision is a risk at apply time, not a certainty', () => {
    const { result } = compileObjects(fleetWith({ pinnedServiceIPRange: '10.96.0.0/16', serviceCidrs: ['10.96.0.0/16'] }), withLive(snapshot({ paris: target([kafka]) }, {}), []), { strict: true });
    assert.deepEqual(bandWarnings(result).map((d) => d.severity), ['warning']);
  });

  test('GIVEN the source is not planned this run (synth\'s source skip) THEN the warning is reported all the same, from the lock\'s pins, and is no part of the source\'s recorded warnings', () => {
    const fleet = fleetWith({ pinnedServiceIPRange: '10.96.0.0/16' });
    const snap = withLive(snapshot({ paris: target([kafka]) }, {}), [], { 'data/kafka-0-paris': '10.96.0.1', 'data/kafka-1-paris': '10.96.3.1' });
    const planned = planFleet(fleet, snap);
    const unplanned = planFleet(fleet, snap, { unplanned: new Set(['london']) });
    assert.deepEqual(unplanned.plans, []);
    assert.equal(bandWarnings(planned).length, 1);
    assert.deepEqual(bandWarnings(unplanned), bandWarnings(planned));
    assert.deepEqual(bandWarnings({ diagnostics: planned.plans[0]!.warnings ?? [] }), []);
  });
});
