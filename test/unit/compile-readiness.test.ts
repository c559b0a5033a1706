/**
 * Readiness parity with Linkerd's service mirror (issue 11): the empty form for a target service
 * without ready endpoints, the not-ready form for a gateway the probe found dead, and not-ready
 * StatefulSet pods, each behind its per-link or per-target option.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { Cluster, Link, type GatewayProbeProps, type LinkProps } from '../../src/model/index.js';
import { fleetSnapshotSchema } from '../../src/observe/lock-schema.js';
import type { ObservedService, TargetSnapshot } from '../../src/snapshot/snapshot.js';
import { compileObjects, service, snapshot, source, spec, statefulService, target } from '../fixtures/snapshots.js';

type LinkOptions = Pick<LinkProps, 'followServiceReadiness' | 'followPodReadiness' | 'globalServices'>;

function londonParis(link: LinkOptions = {}, probe?: GatewayProbeProps) {
  return spec((fleet) => {
    const london = new Cluster(fleet, 'london', { pinnedServiceIPRange: '10.96.0.0/28' });
    const paris = new Cluster(fleet, 'paris', probe ? { gateway: { probe } } : {});
    new Link(fleet, 'london-paris', { source: london, target: paris, ...link });
  });
}

function compile(services: ObservedService[], link: LinkOptions = {}, targetOverrides: Partial<TargetSnapshot> = {}, probe?: GatewayProbeProps) {
  const snap = snapshot({ paris: target(services, targetOverrides) }, { london: { ...source(['default', 'data']), pinnedRangeServices: [] } });
  return compileObjects(londonParis(link, probe), snap).objects;
}

describe('a target service without ready endpoints (Linkerd: empty subsets)', () => {
  test('its mirror keeps the Service and gets Endpoints without subsets and slices without endpoints', () => {
    // GIVEN cart, observed with no ready endpoint, and web, observed ready
    const objects = compile([service('default', 'cart', { hasReadyEndpoints: false }), service('default', 'web')]);
    // THEN cart-paris still has its Service, and empty Endpoints and EndpointSlice with the same metadata
    assert.ok(objects.get('london/Service/default/cart-paris'));
    const ep = objects.get('london/Endpoints/default/cart-paris');
    assert.equal('subsets' in ep, false, JSON.stringify(ep));
    assert.equal(ep.metadata.annotations['mirror.linkerd.io/remote-svc-fq-name'], 'cart.default.svc.cluster.local');
    const slice = objects.get('london/EndpointSlice/default/cart-paris-ipv4');
    assert.deepEqual(slice.endpoints, []);
    assert.deepEqual(slice.ports, [{ name: 'http', port: 4143, protocol: 'TCP' }]);
    // AND web-paris points at the gateway as before
    assert.deepEqual(objects.get('london/Endpoints/default/web-paris').subsets[0].addresses, [{ ip: '203.0.113.10' }]);
    assert.deepEqual(objects.get('london/EndpointSlice/default/web-paris-ipv4').endpoints, [{ addresses: ['203.0.113.10'], conditions: { ready: true } }]);
  });

  test('a link with followServiceReadiness: false keeps the gateway address', () => {
    // GIVEN cart with no ready endpoint, and a link that opts out
    const objects = compile([service('default', 'cart', { hasReadyEndpoints: false })], { followServiceReadiness: false });
    // THEN cart-paris is written as if it were ready
    assert.deepEqual(objects.get('london/Endpoints/default/cart-paris').subsets[0].addresses, [{ ip: '203.0.113.10' }]);
    assert.deepEqual(objects.get('london/EndpointSlice/default/cart-paris-ipv4').endpoints, [{ addresses: ['203.0.113.10'], conditions: { ready: true } }]);
  });

  test('an old lock without the field compiles exactly as a ready service', () => {
    // GIVEN the same service with and without hasReadyEndpoints: true, and without it at all
    const plain = compile([service('default', 'cart')]);
    const explicit = compile([service('default', 'cart', { hasReadyEndpoints: true })]);
    // THEN the output is the same, and a lock without the new fields passes the schema
    assert.deepEqual([...explicit.entries()], [...plain.entries()]);
    const lock = snapshot({ paris: target([service('default', 'cart')]) }, { london: source() });
    assert.equal(fleetSnapshotSchema.safeParse(JSON.parse(JSON.stringify(lock))).success, true);
  });
});

describe('gateway probe verdict (Linkerd: notReadyAddresses while the gateway is dead)', () => {
  const dead: Partial<TargetSnapshot> = { gatewayProbe: { alive: false } };

  test('under probe mode not-ready, a dead gateway makes every gateway-mode mirror not ready, per-pod mirrors included', () => {
    // GIVEN paris's gateway found dead, and both an ordinary and a StatefulSet service exported
    const objects = compile([service('default', 'web'), statefulService('data', 'kafka', ['kafka-0'])], {}, dead, { mode: 'not-ready' });
    // THEN web-paris lists the gateway as not ready in Endpoints and EndpointSlice
    const ep = objects.get('london/Endpoints/default/web-paris');
    assert.deepEqual(ep.subsets, [{ notReadyAddresses: [{ ip: '203.0.113.10' }], ports: [{ name: 'http', port: 4143, protocol: 'TCP' }] }]);
    assert.deepEqual(objects.get('london/EndpointSlice/default/web-paris-ipv4').endpoints, [{ addresses: ['203.0.113.10'], conditions: { ready: false } }]);
    // AND so does the per-pod mirror kafka-0-paris
    assert.deepEqual(objects.get('london/EndpointSlice/data/kafka-0-paris-ipv4').endpoints, [{ addresses: ['203.0.113.10'], conditions: { ready: false } }]);
  });

  test('under probe mode warn (or a model without a probe), the same verdict changes nothing', () => {
    const ready = compile([service('default', 'web')]);
    // GIVEN the dead verdict in the lock, but the model only warns, or does not probe
    for (const probe of [{ mode: 'warn' } as const, undefined]) {
      const objects = compile([service('default', 'web')], {}, dead, probe);
      // THEN the output equals the ready output
      assert.deepEqual([...objects.entries()], [...ready.entries()]);
    }
  });

  test('an empty service stays empty when the gateway is dead too', () => {
    const objects = compile([service('default', 'cart', { hasReadyEndpoints: false })], {}, dead, { mode: 'not-ready' });
    assert.equal('subsets' in objects.get('london/Endpoints/default/cart-paris'), false);
  });
});

describe('not-ready StatefulSet pods', () => {
  const kafka = statefulService('data', 'kafka', ['kafka-0', 'kafka-1', 'kafka-2'], { notReadyHostnames: ['kafka-1'] });

  test('by default every pod with a hostname keeps its per-pod mirror and its place in the headless and -global mirrors', () => {
    const objects = compile([kafka], { globalServices: true });
    for (const pod of ['kafka-0', 'kafka-1', 'kafka-2']) assert.ok(objects.get(`london/Service/data/${pod}-paris`), pod);
    assert.equal(objects.get('london/Endpoints/data/kafka-paris').subsets[0].addresses.length, 3);
    assert.equal(objects.get('london/EndpointSlice/data/kafka-global-paris').endpoints.length, 3);
  });

  test('with followPodReadiness, a not-ready pod loses its per-pod mirror and leaves the headless and -global mirrors', () => {
    const objects = compile([kafka], { globalServices: true, followPodReadiness: true });
    assert.equal(objects.get('london/Service/data/kafka-1-paris'), undefined);
    assert.ok(objects.get('london/Service/data/kafka-0-paris'));
    assert.deepEqual(objects.get('london/Endpoints/data/kafka-paris').subsets[0].addresses.map((a: any) => a.hostname), ['kafka-0', 'kafka-2']);
    assert.deepEqual(objects.get('london/EndpointSlice/data/kafka-global-paris').endpoints.map((e: any) => e.hostname), ['kafka-0-paris', 'kafka-2-paris']);
  });

  test('with followPodReadiness and no pod ready, the headless mirror stays with no subsets and no slices', () => {
    const allDown = statefulService('data', 'kafka', ['kafka-0'], { notReadyHostnames: ['kafka-0'] });
    const objects = compile([allDown], { followPodReadiness: true });
    assert.ok(objects.get('london/Service/data/kafka-paris'));
    assert.equal('subsets' in objects.get('london/Endpoints/data/kafka-paris'), false);
    assert.equal(objects.get('london/EndpointSlice/data/kafka-paris-ipv4'), undefined);
    assert.equal(objects.get('london/Service/data/kafka-0-paris'), undefined);
  });
});
