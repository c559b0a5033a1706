/**
 * A gateway that need not be Linkerd's (src/compile/modes/gateway/generic-gateway-port.ts): each
 * mirror points at the target's gateway on its service's own port, without Linkerd's gateway
 * identity; a missing, malformed, contradictory or shared port skips that service alone.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { CompileError } from '../../src/compile/diagnostics.js';
import { buildFleet, type FleetDefinition } from '../../src/load/load-fleet.js';
import { FleetDefinitionError } from '../../src/model/fleet.js';
import { Cluster, Link, type GatewayProps } from '../../src/model/index.js';
import { compileObjects, DEFAULT_SELECTOR_QUERIES, gateway, service, snapshot, source, spec, statefulService, target } from '../fixtures/snapshots.js';

const PORT = 'mirrorc.io/gateway-port';

function genericFleet(gatewayProps: GatewayProps = { kind: 'generic' }) {
  return spec((f) => {
    const london = new Cluster(f, 'london', { pinnedServiceIPRange: '10.96.0.0/24' });
    new Link(f, 'london-from-paris', { source: london, target: new Cluster(f, 'paris', { gateway: gatewayProps }) });
  });
}

// A generic gateway is observed without identity.
const genericGateway = gateway({ addresses: ['203.0.113.50', '2001:db8::50'], port: 443, identity: undefined });
const { identity: _none, ...genericGatewayWithoutIdentity } = genericGateway;

function snap(...services: ReturnType<typeof service>[]) {
  return snapshot({ paris: target(services, { gateway: genericGatewayWithoutIdentity, selectors: DEFAULT_SELECTOR_QUERIES }) }, { london: source(['shop']) });
}

const mirrors = (objects: Map<string, unknown>): string[] => [...objects.keys()].filter((k) => k.startsWith('london/Service/')).sort();

describe('generic gateway', () => {
  test('GIVEN a service annotated with its gateway port WHEN compiled THEN its endpoints point at the gateway on that port, with remote-svc-fq-name of the original and no gateway identity', () => {
    const { objects, result } = compileObjects(genericFleet(), snap(service('shop', 'orders', { annotations: { [PORT]: '31001' }, ports: [{ name: 'http', protocol: 'TCP', port: 80, targetPort: 8080 }, { name: 'grpc', protocol: 'TCP', port: 9090, targetPort: 9090 }] })));
    assert.deepEqual(result.warnings, []);
    const ep = objects.get('london/Endpoints/shop/orders-paris') as any;
    assert.deepEqual(ep.subsets, [{ addresses: [{ ip: '2001:db8::50' }, { ip: '203.0.113.50' }], ports: [{ name: 'http', port: 31001, protocol: 'TCP' }, { name: 'grpc', port: 31001, protocol: 'TCP' }] }]);
    assert.deepEqual(ep.metadata.annotations, { 'mirror.linkerd.io/remote-svc-fq-name': 'orders.shop.svc.cluster.local' });
    const slice = objects.get('london/EndpointSlice/shop/orders-paris-ipv4') as any;
    assert.deepEqual(slice.ports, [{ name: 'http', port: 31001, protocol: 'TCP' }, { name: 'grpc', port: 31001, protocol: 'TCP' }]);
    assert.equal(slice.metadata.annotations['mirror.linkerd.io/remote-gateway-identity'], undefined);
    // AND the mirror Service keeps the service's own ports, and the annotation is not copied
    const svc = objects.get('london/Service/shop/orders-paris') as any;
    assert.deepEqual(svc.spec.ports.map((p: { port: number }) => p.port), [80, 9090]);
    assert.equal(svc.metadata.annotations?.[PORT], undefined);
  });

  test('GIVEN the port in the fleet model WHEN compiled THEN that port is used; the same port in both places is fine', () => {
    const fleet = genericFleet({ kind: 'generic', servicePorts: { 'shop/orders': 31002, 'shop/billing': 31003 } });
    const { objects, result } = compileObjects(fleet, snap(service('shop', 'orders'), service('shop', 'billing', { annotations: { [PORT]: '31003' } })));
    assert.deepEqual(result.warnings, []);
    assert.equal((objects.get('london/Endpoints/shop/orders-paris') as any).subsets[0].ports[0].port, 31002);
    assert.equal((objects.get('london/Endpoints/shop/billing-paris') as any).subsets[0].ports[0].port, 31003);
    // AND plan shows each mirror's gateway address and port (in the snapshot's order)
    assert.deepEqual(result.planRows.filter((r) => r.startsWith('generic gateway:')), [
      'generic gateway: london ← paris/shop/orders: 203.0.113.50,2001:db8::50 port 31002',
      'generic gateway: london ← paris/shop/billing: 203.0.113.50,2001:db8::50 port 31003',
    ]);
  });

  test('GIVEN one service without a port, one malformed, one contradicting the model and two sharing a port WHEN compiled THEN each is skipped with its reason and the good one is mirrored', () => {
    const fleet = genericFleet({ kind: 'generic', servicePorts: { 'shop/split': 31010 } });
    const { objects, result } = compileObjects(fleet, snap(
      service('shop', 'good', { annotations: { [PORT]: '31001' } }),
      service('shop', 'none'),
      service('shop', 'bad', { annotations: { [PORT]: 'http' } }),
      service('shop', 'split', { annotations: { [PORT]: '31011' } }),
      service('shop', 'one', { annotations: { [PORT]: '31020' } }),
      service('shop', 'two', { annotations: { [PORT]: '31020' } }),
    ));
    assert.deepEqual(mirrors(objects), ['london/Service/shop/good-paris']);
    const has = (text: string): void => assert.ok(result.warnings.some((w) => w.includes(text)), `${text}\n${result.warnings.join('\n')}`);
    has('london: paris/shop/none: cluster "paris" has a generic gateway, but no gateway port is known for this service; annotate it with mirrorc.io/gateway-port: "<port>" or add "shop/none" to gateway.servicePorts of cluster "paris"; paris/shop/none is not mirrored, the other mirrors are updated (--strict makes this an error)');
    has('paris/shop/bad: its annotation mirrorc.io/gateway-port: "http" is not a port number (1-65535)');
    has('paris/shop/split: the fleet model gives gateway port 31010 (gateway.servicePorts) but its annotation mirrorc.io/gateway-port says 31011; keep one of them');
    has('paris/shop/one: gateway port 31020 of cluster "paris" is also given to shop/two');
    has('paris/shop/two: gateway port 31020 of cluster "paris" is also given to shop/one');
  });

  test('GIVEN a missing port WHEN compiled strict THEN it is a compile error naming the service', () => {
    assert.throws(() => compileObjects(genericFleet(), snap(service('shop', 'none')), { strict: true }),
      (e: unknown) => e instanceof CompileError && e.problems.length === 1 && e.problems[0]!.startsWith('london: paris/shop/none: cluster "paris" has a generic gateway, but no gateway port is known'));
  });

  test('GIVEN a StatefulSet service behind a generic gateway WHEN compiled THEN it is mirrored as one Service on its port, with a warning', () => {
    const { objects, result } = compileObjects(genericFleet(), snap(statefulService('shop', 'zk', ['zk-0', 'zk-1'], { annotations: { [PORT]: '31030' } })));
    assert.deepEqual(mirrors(objects), ['london/Service/shop/zk-paris']);
    assert.ok(result.warnings.some((w) => w.includes('has a generic gateway (a port per service, not per pod), so it is mirrored as one gateway Service')), result.warnings.join('\n'));
  });

  test('GIVEN Linkerd\'s gateway (the default) WHEN compiled THEN the annotation is ignored and the gateway identity is kept', () => {
    const linkerd = spec((f) => {
      new Link(f, 'l', { source: new Cluster(f, 'london'), target: new Cluster(f, 'paris') });
    });
    const { objects } = compileObjects(linkerd, snapshot({ paris: target([service('shop', 'orders', { annotations: { [PORT]: '31001' } })]) }, { london: source(['shop']) }));
    const ep = objects.get('london/Endpoints/shop/orders-paris') as any;
    assert.equal(ep.subsets[0].ports[0].port, 4143);
    assert.ok(ep.metadata.annotations['mirror.linkerd.io/remote-gateway-identity']);
  });

  test('GIVEN servicePorts on a Linkerd gateway, an identity on a generic one, or a bad entry WHEN the fleet is built THEN each is named', () => {
    const problemsOf = (gw: GatewayProps): readonly string[] => {
      const define: FleetDefinition = (f) => {
        new Link(f, 'l', { source: new Cluster(f, 'london'), target: new Cluster(f, 'paris', { gateway: gw }) });
      };
      try {
        buildFleet(define).fleet.toSpec();
        return [];
      } catch (e) {
        if (e instanceof FleetDefinitionError) return e.problems;
        throw e;
      }
    };
    assert.deepEqual(problemsOf({ servicePorts: { 'shop/orders': 31001 } }), ["cluster fleet/paris: gateway.servicePorts is set, but only a generic gateway (gateway.kind: 'generic') has a port per service"]);
    assert.deepEqual(problemsOf({ kind: 'generic', identity: 'gw.example' }), ["cluster fleet/paris: gateway.identity is set, but a generic gateway has no Linkerd identity; remove it, or use kind 'linkerd'"]);
    assert.deepEqual(problemsOf({ kind: 'generic', servicePorts: { orders: 0 } }), [
      'cluster fleet/paris: gateway.servicePorts key "orders" is not "namespace/name" of a Service',
      'cluster fleet/paris: gateway.servicePorts["orders"] 0 is not a port number (1-65535)',
    ]);
    assert.deepEqual(problemsOf({ kind: 'tcp' as never }), ['cluster fleet/paris: gateway.kind "tcp" is not \'linkerd\' or \'generic\'']);
  });
});
