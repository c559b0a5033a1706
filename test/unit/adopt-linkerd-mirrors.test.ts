/**
 * Adoption of the mirrors Linkerd's service-mirror controller wrote (link `adoptLinkerdMirrors`):
 * which foreign names a link takes over, which it still refuses and why, the ClusterIPs adopted
 * per-pod mirrors keep, and the Endpoints left to Kubernetes' EndpointSlice mirroring meanwhile.
 * The end-to-end takeover on real apiservers is test/integration/linkerd-takeover.test.ts.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { App } from 'cdk8s';
import { Cluster, Fleet, FleetDefinitionError, Link } from '../../src/model/index.js';
import type { ForeignService, PinnedRangeService } from '../../src/snapshot/snapshot.js';
import { groupedLines } from '../../src/diagnostics/group-diagnostics.js';
import { compileObjects, DEFAULT_SELECTOR_QUERIES, federatedService, federatedSource, service, snapshot, source, spec, statefulService, target } from '../fixtures/snapshots.js';

const RANGE = '10.96.0.0/28';

function fleet(adopt: boolean, range?: string) {
  return spec((f) => {
    const london = new Cluster(f, 'london', range !== undefined ? { pinnedServiceIPRange: range } : {});
    new Link(f, 'london-paris', { source: london, target: new Cluster(f, 'paris'), ...(adopt ? { adoptLinkerdMirrors: true } : {}) });
  });
}

/** A Service Linkerd's controller wrote in london for target `cluster`. */
function linkerdMirror(namespace: string, name: string, cluster: string, clusterIP?: string): ForeignService {
  return { namespace, name, linkerdCluster: cluster, ...(clusterIP !== undefined ? { clusterIP } : {}) };
}

describe('adopting the mirrors of Linkerd\'s service-mirror controller', () => {
  test('without adoptLinkerdMirrors a Linkerd-written mirror is refused, and the message says how to adopt it', () => {
    // GIVEN london holds web-paris, written by Linkerd's controller for paris
    const snap = snapshot({ paris: target([service('shop', 'web')]) }, { london: source(['shop'], [linkerdMirror('shop', 'web-paris', 'paris', '10.96.200.7')]) });
    // WHEN compiled without adoption
    const { objects, result } = compileObjects(fleet(false), snap);
    // THEN the mirror is skipped with a warning naming Linkerd's controller and the setting
    assert.equal(objects.has('london/Service/shop/web-paris'), false);
    assert.ok(result.warnings.some((w) => /not written by mirrorc; it is a mirror written by Linkerd's service-mirror controller for target "paris": to take it over in place, set adoptLinkerdMirrors: true/.test(w)), result.warnings.join('\n'));
  });

  test('with adoptLinkerdMirrors the same Service is written under its name, with no clusterIP, and plan says it is adopted', () => {
    // GIVEN the same Linkerd mirror
    const snap = snapshot({ paris: target([service('shop', 'web')]) }, { london: source(['shop'], [linkerdMirror('shop', 'web-paris', 'paris', '10.96.200.7')]) });
    // WHEN compiled with adoption
    const { objects, result } = compileObjects(fleet(true), snap);
    // THEN web-paris is written without a clusterIP (the live one stays), no warning about it
    const svc = objects.get('london/Service/shop/web-paris');
    assert.ok(svc, 'the adopted mirror is written');
    assert.equal(svc.spec.clusterIP, undefined);
    assert.deepEqual(result.warnings.filter((w) => w.includes('web-paris')), []);
    assert.ok(result.planRows.some((r) => r.includes("adopted from Linkerd's service-mirror controller: london: 1 Service taken over in place (shop/web-paris)")), result.planRows.join('\n'));
    // AND its Endpoints are left to Kubernetes' EndpointSlice mirroring (no skip-mirror): Kubernetes' slice is the one
    //     Linkerd's destination reads, as under Linkerd's controller
    const ep = objects.get('london/Endpoints/shop/web-paris');
    assert.equal(ep.metadata.labels['endpointslice.kubernetes.io/skip-mirror'], undefined);
    assert.equal(ep.subsets[0].addresses.length, 1, 'the Endpoints list the gateway');
    // AND mirrorc's slice of that name is written retired: tied to no Service, no endpoints, so a slice mirrorc
    //     wrote before is updated away from the mirror instead of deleted under it (src/compile/mirror-slices.ts)
    const slice = objects.get('london/EndpointSlice/shop/web-paris-ipv4');
    assert.equal(slice.metadata.labels['kubernetes.io/service-name'], 'retired.mirrorc.io');
    assert.equal(slice.metadata.labels['mirrorc.io/retired-from'], 'web-paris');
    assert.deepEqual(slice.endpoints, []);
    assert.equal(slice.metadata.annotations, undefined);
    // AND without adoption the same mirror has skip-mirror and a live slice of its own
    const own = compileObjects(fleet(false), snapshot({ paris: target([service('shop', 'web')]) }, { london: source(['shop'], []) })).objects;
    assert.equal(own.get('london/Endpoints/shop/web-paris').metadata.labels['endpointslice.kubernetes.io/skip-mirror'], 'true');
    assert.equal(own.get('london/EndpointSlice/shop/web-paris-ipv4').metadata.labels['kubernetes.io/service-name'], 'web-paris');
    assert.equal(own.get('london/EndpointSlice/shop/web-paris-ipv4').endpoints.length > 0, true);
  });

  test('a fleet with many Linkerd mirrors, not adopted, is told how to adopt them without --verbose (its own code, whose hint says how)', () => {
    // GIVEN london holds twelve mirrors Linkerd's controller wrote for paris (more than a code's findings are grouped from)
    const names = Array.from({ length: 12 }, (_, i) => `svc${String(i).padStart(2, '0')}`);
    const snap = snapshot({ paris: target(names.map((n) => service('shop', n))) }, { london: source(['shop'], names.map((n) => linkerdMirror('shop', `${n}-paris`, 'paris', '10.96.200.7'))) });
    // WHEN compiled without adoption
    const { result } = compileObjects(fleet(false), snap);
    // THEN the findings are MRC3027, and the one grouped line a run prints names the setting and the runbook
    assert.deepEqual([...new Set(result.diagnostics.filter((d) => d.service?.endsWith('-paris')).map((d) => d.code))], ['MRC3027']);
    const { lines } = groupedLines(result.diagnostics, 'warning: ');
    const line = lines.find((l) => l.includes('[MRC3027]'));
    assert.ok(line && /12 findings .*set adoptLinkerdMirrors: true on the link of their target \(docs\/migrate-from-linkerd-controller\.md\)/.test(line), lines.join('\n'));
  });

  test("a link whose mirrors the source holds in Linkerd's form keeps that form when adoption is turned off, with MRC3028; any other link writes its own slices", () => {
    // GIVEN london holds paris's mirrors in Linkerd's form (observed: mirrorc.io/endpoint-slices=kubernetes on one of them)
    const snap = snapshot({ paris: target([service('shop', 'web')]) }, { london: { ...source(['shop'], []), kubernetesSlicedTargets: ['paris'] } });
    // WHEN compiled with adoption off
    const { objects, result } = compileObjects(fleet(false), snap);
    // THEN web-paris stays in Linkerd's form: no skip-mirror, the slice retired, the form's label on the Service
    assert.equal(objects.get('london/Endpoints/shop/web-paris').metadata.labels['endpointslice.kubernetes.io/skip-mirror'], undefined);
    assert.equal(objects.get('london/EndpointSlice/shop/web-paris-ipv4').metadata.labels['kubernetes.io/service-name'], 'retired.mirrorc.io');
    assert.equal(objects.get('london/Service/shop/web-paris').metadata.labels['mirrorc.io/endpoint-slices'], 'kubernetes');
    // AND a warning says why and what to do
    assert.ok(result.diagnostics.some((d) => d.code === 'MRC3028' && d.target === 'paris' && /stay in Linkerd's endpoint form/.test(d.message)), result.warnings.join('\n'));
    // AND a link of another target (nothing held in that form) is in mirrorc's form, without the label
    const other = compileObjects(fleet(false), snapshot({ paris: target([service('shop', 'web')]) }, { london: { ...source(['shop'], []), kubernetesSlicedTargets: ['rome'] } }));
    assert.equal(other.objects.get('london/Endpoints/shop/web-paris').metadata.labels['endpointslice.kubernetes.io/skip-mirror'], 'true');
    assert.equal(other.objects.get('london/Service/shop/web-paris').metadata.labels['mirrorc.io/endpoint-slices'], undefined);
    assert.equal(other.result.diagnostics.some((d) => d.code === 'MRC3028'), false);
  });

  test('adoption takes only mirrors Linkerd wrote for the link\'s own target; other foreign Services are still refused', () => {
    // GIVEN web-paris written by Linkerd for another target name, and api-paris a plain Service of a team
    const snap = snapshot(
      { paris: target([service('shop', 'web'), service('shop', 'api')]) },
      { london: source(['shop'], [linkerdMirror('shop', 'web-paris', 'rome', '10.96.200.7'), { namespace: 'shop', name: 'api-paris' }]) },
    );
    // WHEN compiled with adoption
    const { objects, result } = compileObjects(fleet(true), snap);
    // THEN neither is taken over
    assert.equal(objects.has('london/Service/shop/web-paris'), false);
    assert.equal(objects.has('london/Service/shop/api-paris'), false);
    assert.ok(result.warnings.some((w) => w.includes('shop/api-paris, which already exists in "london" and was not written by mirrorc; rename')));
    assert.ok(result.warnings.some((w) => w.includes('written by Linkerd\'s service-mirror controller for target "rome"')));
  });

  test('adopted per-pod mirrors keep the ClusterIPs the source gave them, outside the pinned range too; new pods get range IPs', () => {
    // GIVEN Linkerd mirrored kafka per pod in london: kafka-0-paris got 10.96.123.45 (outside the range), kafka-paris is headless
    const kafka = statefulService('data', 'kafka', ['kafka-0', 'kafka-1']);
    const foreign = [linkerdMirror('data', 'kafka-paris', 'paris'), linkerdMirror('data', 'kafka-0-paris', 'paris', '10.96.123.45')];
    const snap = snapshot({ paris: target([kafka]) }, { london: { ...source(['data'], foreign), pinnedRangeServices: [] } });
    // WHEN compiled with adoption
    const { objects, result } = compileObjects(fleet(true, RANGE), snap);
    // THEN kafka-0-paris keeps its IP, kafka-1-paris (new) gets the first free one of the range, and the lock records both
    assert.deepEqual(result.pinnedServiceIPs.london, { 'data/kafka-0-paris': '10.96.123.45', 'data/kafka-1-paris': '10.96.0.1' });
    assert.equal(objects.get('london/Service/data/kafka-0-paris').spec.clusterIP, '10.96.123.45');
    // AND the headless mirror lists the kept IP for kafka-0
    const ep = objects.get('london/Endpoints/data/kafka-paris');
    assert.deepEqual(ep.subsets[0].addresses, [{ hostname: 'kafka-0', ip: '10.96.123.45' }, { hostname: 'kafka-1', ip: '10.96.0.1' }]);
    assert.equal(ep.metadata.labels['endpointslice.kubernetes.io/skip-mirror'], undefined);
    // AND every slice of the link's mirrors (root and per pod) is retired: Kubernetes mirrors their Endpoints
    for (const name of ['kafka-paris', 'kafka-0-paris', 'kafka-1-paris']) {
      assert.equal(objects.get(`london/EndpointSlice/data/${name}-ipv4`).metadata.labels['kubernetes.io/service-name'], 'retired.mirrorc.io', name);
      assert.equal(objects.get(`london/Endpoints/data/${name}`).metadata.labels['endpointslice.kubernetes.io/skip-mirror'], undefined, name);
    }
  });

  test('once applied (now mirrorc\'s), an adopted per-pod mirror outside the range keeps its IP on later runs', () => {
    // GIVEN the next run: kafka-0-paris is ours now, observed outside the range, and the lock holds its IP
    const kafka = statefulService('data', 'kafka', ['kafka-0']);
    const live: PinnedRangeService[] = [{ namespace: 'data', name: 'kafka-0-paris', ip: '10.96.123.45', managed: true }];
    const snap = {
      ...snapshot({ paris: target([kafka]) }, { london: { ...source(['data']), pinnedRangeServices: live } }),
      pinnedServiceIPs: { london: { 'data/kafka-0-paris': '10.96.123.45' } },
    };
    // WHEN compiled with adoption turned off again
    const { result } = compileObjects(fleet(false, RANGE), snap);
    // THEN the IP does not move into the range (a ClusterIP cannot change in place)
    assert.deepEqual(result.pinnedServiceIPs.london, { 'data/kafka-0-paris': '10.96.123.45' });
  });

  test('a mirror whose headlessness differs from Linkerd\'s is refused with the reason, since clusterIP cannot change', () => {
    // GIVEN Linkerd mirrored kafka headless (its headless support on) but london declares no pinned range,
    //   and mirrored db as a ClusterIP Service (headless support off) while mirrorc mirrors it per pod
    const kafka = statefulService('data', 'kafka', ['kafka-0']);
    const db = statefulService('data', 'db', ['db-0']);
    const noRange = compileObjects(fleet(true), snapshot({ paris: target([kafka]) }, { london: source(['data'], [linkerdMirror('data', 'kafka-paris', 'paris')]) }));
    const withRange = compileObjects(fleet(true, RANGE), snapshot({ paris: target([db]) }, { london: { ...source(['data'], [linkerdMirror('data', 'db-paris', 'paris', '10.96.50.1')]), pinnedRangeServices: [] } }));
    // THEN both are skipped with a message that says what to do or why
    assert.equal(noRange.objects.has('london/Service/data/kafka-paris'), false);
    assert.ok(noRange.result.warnings.some((w) => /headless Service data\/kafka-paris \(clusterIP None\).*declare pinnedServiceIPRange on cluster "london"/.test(w)), noRange.result.warnings.join('\n'));
    assert.equal(withRange.objects.has('london/Service/data/db-paris'), false);
    assert.ok(withRange.result.warnings.some((w) => /with ClusterIP 10\.96\.50\.1 \(its headless support was off\)/.test(w)), withRange.result.warnings.join('\n'));
  });

  test("Linkerd's federated Service is taken over by mirrorc's federated Service of that name when a member's link adopts; refused otherwise, with the hint", () => {
    // GIVEN paris and rome have a federated member shop/cart, and london holds Linkerd's cart-federated
    //       (mirrored-service=true, no cluster-name: it spans targets)
    const linkerdFederated = { namespace: 'shop', name: 'cart-federated', linkerdFederated: true as const };
    const federatedFleet = (adopt: boolean) => spec((f) => {
      const london = new Cluster(f, 'london');
      new Link(f, 'london-paris', { source: london, target: new Cluster(f, 'paris'), remoteDiscoveryCredentials: { provided: 'external' }, ...(adopt ? { adoptLinkerdMirrors: true } : {}) });
      new Link(f, 'london-rome', { source: london, target: new Cluster(f, 'rome'), remoteDiscoveryCredentials: { provided: 'external' } });
    });
    const snap = snapshot(
      { paris: target([federatedService('shop', 'cart')], { selectors: DEFAULT_SELECTOR_QUERIES }), rome: target([federatedService('shop', 'cart')], { selectors: DEFAULT_SELECTOR_QUERIES }) },
      { london: federatedSource(['shop'], [], [linkerdFederated]) },
    );
    // WHEN compiled without adoption THEN it is refused (MRC3023), and the message says how to take it over
    const refused = compileObjects(federatedFleet(false), snap);
    assert.equal(refused.objects.has('london/Service/shop/cart-federated'), false);
    assert.ok(refused.result.warnings.some((w) => /cart-federated, which already exists in "london" and was not written by mirrorc; it is a federated Service written by Linkerd's service-mirror controller: to take it over in place, set adoptLinkerdMirrors: true on a link of one of its members/.test(w)), refused.result.warnings.join('\n'));
    // WHEN a member's link adopts THEN mirrorc writes cart-federated in place (no clusterIP), with no warning about it
    const adopted = compileObjects(federatedFleet(true), snap);
    const svc = adopted.objects.get('london/Service/shop/cart-federated');
    assert.ok(svc, 'the federated Service is written');
    assert.equal(svc.spec.clusterIP, undefined);
    assert.deepEqual(adopted.result.warnings.filter((w) => w.includes('cart-federated')), []);
  });

  test('adoptLinkerdMirrors on an mcs link is a fleet error', () => {
    const f = new Fleet(new App({ outdir: 'unused' }), 'fleet');
    new Link(f, 'l', { source: new Cluster(f, 'london'), target: new Cluster(f, 'paris'), mcs: true, adoptLinkerdMirrors: true });
    const error = (() => {
      try {
        f.toSpec();
      } catch (e) {
        return e;
      }
      return undefined;
    })();
    assert.ok(error instanceof FleetDefinitionError, String(error));
    const problems = error.problems;
    assert.ok(problems.some((p) => p.includes('adoptLinkerdMirrors takes over Linkerd\'s mirror Services, but an mcs link writes ServiceImports')), problems.join('\n'));
  });
});
