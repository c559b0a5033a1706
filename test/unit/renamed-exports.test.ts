/**
 * Renamed and relocated exports (src/compile/mirror-placement.ts): an ExplicitExport's mirrorAs or a
 * link's namespaceMap moves a gateway-mode mirror; remote-svc-fq-name and the data plane still name
 * the original; length and collisions are checked on the final names; plan shows the mapping.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { CompileError } from '../../src/compile/diagnostics.js';
import { buildFleet, type FleetDefinition } from '../../src/load/load-fleet.js';
import { FleetDefinitionError } from '../../src/model/fleet.js';
import { Cluster, ExplicitExport, Link, type LinkProps, type MirrorAs } from '../../src/model/index.js';
import { compileObjects, DEFAULT_SELECTOR_QUERIES, flatService, service, snapshot, source, spec, target } from '../fixtures/snapshots.js';

function fleetWith(options: { mirrorAs?: MirrorAs; link?: Partial<LinkProps> } = {}) {
  return spec((f) => {
    const paris = new Cluster(f, 'paris');
    new Link(f, 'london-from-paris', { source: new Cluster(f, 'london'), target: paris, ...options.link });
    if (options.mirrorAs) new ExplicitExport(f, 'orders', { cluster: paris, namespace: 'shop', name: 'orders', mirrorAs: options.mirrorAs });
  });
}

const snap = (services = [service('shop', 'orders'), service('shop', 'cart')], namespaces = ['shop', 'compat', 'shop-paris']) =>
  snapshot({ paris: target(services, { selectors: DEFAULT_SELECTOR_QUERIES }) }, { london: source(namespaces) });

const services = (objects: Map<string, unknown>): string[] => [...objects.keys()].filter((k) => k.startsWith('london/Service/')).sort();

describe('renamed and relocated exports', () => {
  test('GIVEN a namespaceMap and a target service in namespace "constructor" (a valid DNS label) WHEN compiled THEN it is mirrored in its own namespace: the map is not read through Object.prototype', () => {
    const { objects, result } = compileObjects(fleetWith({ link: { namespaceMap: { shop: 'shop-paris' } } }), snap([service('constructor', 'api')], ['constructor', 'shop', 'shop-paris']));
    assert.deepEqual(services(objects), ['london/Service/constructor/api-paris']);
    assert.ok(!result.warnings.some((w) => w.includes('constructor/api')), result.warnings.join('\n'));
  });

  test('GIVEN an explicit export mirrored as compat/legacy-orders WHEN compiled THEN the mirror has that name and namespace, and every data-plane field names the original', () => {
    const { objects, result } = compileObjects(fleetWith({ mirrorAs: { name: 'legacy-orders', namespace: 'compat' } }), snap());
    assert.deepEqual(services(objects), ['london/Service/compat/legacy-orders-paris', 'london/Service/shop/cart-paris']);
    const svc = objects.get('london/Service/compat/legacy-orders-paris') as any;
    assert.equal(svc.metadata.annotations['mirror.linkerd.io/remote-svc-fq-name'], 'orders.shop.svc.cluster.local');
    assert.equal(svc.metadata.labels['mirror.linkerd.io/cluster-name'], 'paris');
    const ep = objects.get('london/Endpoints/compat/legacy-orders-paris') as any;
    assert.equal(ep.metadata.annotations['mirror.linkerd.io/remote-svc-fq-name'], 'orders.shop.svc.cluster.local');
    assert.ok(ep.metadata.annotations['mirror.linkerd.io/remote-gateway-identity']);
    const slice = objects.get('london/EndpointSlice/compat/legacy-orders-paris-ipv4') as any;
    assert.equal(slice.metadata.labels['kubernetes.io/service-name'], 'legacy-orders-paris');
    assert.equal(slice.metadata.annotations['mirror.linkerd.io/remote-svc-fq-name'], 'orders.shop.svc.cluster.local');
    // AND plan shows the mapping
    assert.deepEqual(result.planRows.filter((r) => r.startsWith('renamed export:')), ['renamed export: london ← paris/shop/orders as compat/legacy-orders-paris (remote-svc-fq-name still orders.shop)']);
  });

  test('GIVEN a link namespaceMap shop → shop-paris WHEN compiled THEN every gateway mirror of shop lands in shop-paris; an export\'s own mirrorAs wins', () => {
    const { objects } = compileObjects(fleetWith({ link: { namespaceMap: { shop: 'shop-paris' } }, mirrorAs: { namespace: 'compat' } }), snap());
    assert.deepEqual(services(objects), ['london/Service/compat/orders-paris', 'london/Service/shop-paris/cart-paris']);
  });

  test('GIVEN a rename onto another mirror\'s name WHEN compiled THEN both are skipped (collision on the final name); with --strict it is an error', () => {
    const fleet = fleetWith({ mirrorAs: { name: 'cart' } });
    const { objects, result } = compileObjects(fleet, snap());
    assert.deepEqual(services(objects), []);
    assert.ok(result.warnings.some((w) => w.includes('paris/shop/orders and paris/shop/cart would all be mirrored as Service shop/cart-paris') || w.includes('paris/shop/cart and paris/shop/orders would all be mirrored as Service shop/cart-paris')), result.warnings.join('\n'));
    assert.throws(() => compileObjects(fleet, snap(), { strict: true }), (e: unknown) => e instanceof CompileError && /would both be mirrored as Service shop\/cart-paris/.test(e.message));
  });

  test('GIVEN a new name whose final form exceeds 63 characters WHEN compiled THEN that mirror alone is skipped, naming the final name', () => {
    const long = 'o'.repeat(58);
    const { objects, result } = compileObjects(fleetWith({ mirrorAs: { name: long } }), snap());
    assert.deepEqual(services(objects), ['london/Service/shop/cart-paris']);
    assert.ok(result.warnings.some((w) => w.includes(`would be named "${long}-paris" (64 characters)`)), result.warnings.join('\n'));
  });

  test('GIVEN a mapped namespace missing in the source WHEN compiled THEN the mirror is skipped with a warning; with createMissingNamespaces the namespace is written', () => {
    const missing = compileObjects(fleetWith({ link: { namespaceMap: { shop: 'elsewhere' } } }), snap());
    assert.deepEqual(services(missing.objects), []);
    assert.ok(missing.result.warnings.some((w) => w.includes('namespace "elsewhere" does not exist, so paris/shop/orders is not mirrored')), missing.result.warnings.join('\n'));
    const created = compileObjects(fleetWith({ link: { namespaceMap: { shop: 'elsewhere' }, createMissingNamespaces: true } }), snap());
    assert.ok(created.objects.has('london/Namespace//elsewhere'), [...created.objects.keys()].join('\n'));
    assert.deepEqual(services(created.objects), ['london/Service/elsewhere/cart-paris', 'london/Service/elsewhere/orders-paris']);
  });

  test('GIVEN a flat-mode service in a mapped namespace WHEN compiled THEN it stays in its own namespace under its own name, with a warning', () => {
    const { objects, result } = compileObjects(fleetWith({ link: { namespaceMap: { shop: 'shop-paris' }, remoteDiscoveryCredentials: { provided: 'external' } } }), snap([flatService('shop', 'inventory')]));
    assert.deepEqual(services(objects), ['london/Service/shop/inventory-paris']);
    assert.ok(result.warnings.some((w) => w.includes('paris/shop/inventory is mirrored in remote-discovery mode') && w.includes('is not applied')), result.warnings.join('\n'));
  });

  test('GIVEN a bad mirrorAs or namespaceMap WHEN the fleet is built THEN each is named', () => {
    const define: FleetDefinition = (f) => {
      const paris = new Cluster(f, 'paris');
      new Link(f, 'l', { source: new Cluster(f, 'london'), target: paris, namespaceMap: { Shop: 'ok' } });
      new ExplicitExport(f, 'e', { cluster: paris, namespace: 'shop', name: 'orders', mirrorAs: { name: 'Bad_Name', namespace: 'x'.repeat(64) } });
    };
    assert.throws(() => buildFleet(define).fleet.toSpec(), (e: unknown) => {
      assert.ok(e instanceof FleetDefinitionError);
      assert.deepEqual(e.problems.map((p) => p.replace(/ \(.*$/, '').replace(/ is \d+ characters long.*/, ' is too long')), [
        'link fleet/l: namespaceMap key "Shop" is not a DNS label',
        'explicit export fleet/e: mirrorAs.name "Bad_Name" is not a DNS label',
        `explicit export fleet/e: mirrorAs.namespace "${'x'.repeat(64)}" is too long`,
      ]);
      return true;
    });
  });
});
