/**
 * MCS-API output (src/compile/modes/mcs/): a link with `mcs: true` writes ServiceImports and
 * per-cluster EndpointSlices instead of Linkerd mirrors; conflicts are settled deterministically.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { Cluster, Link } from '../../src/model/index.js';
import { compileObjects, DEFAULT_SELECTOR_QUERIES, gateway, service, snapshot, source, spec, target } from '../fixtures/snapshots.js';

const fleet = spec((f) => {
  const london = new Cluster(f, 'london');
  for (const name of ['paris', 'rome', 'madrid']) new Link(f, `london-from-${name}`, { source: london, target: new Cluster(f, name), mcs: true });
});

const at = (ip: string) => ({ selectors: DEFAULT_SELECTOR_QUERIES, gateway: gateway({ addresses: [ip] }) });

describe('MCS-API output', () => {
  test('GIVEN shop/orders exported by paris and rome WHEN compiled THEN london gets one ServiceImport and one labelled EndpointSlice per cluster, and no Linkerd mirror', () => {
    const snap = snapshot({ paris: target([service('shop', 'orders')], at('203.0.113.10')), rome: target([service('shop', 'orders')], at('198.51.100.30')) }, { london: source(['shop']) });
    const { objects, result } = compileObjects(fleet, snap);
    assert.deepEqual([...objects.keys()].sort(), [
      'london/EndpointSlice/shop/orders-paris-mcs-ipv4',
      'london/EndpointSlice/shop/orders-rome-mcs-ipv4',
      'london/ServiceImport/shop/orders',
    ]);
    const imp = objects.get('london/ServiceImport/shop/orders') as any;
    assert.equal(imp.apiVersion, 'multicluster.x-k8s.io/v1alpha1');
    assert.deepEqual(imp.spec, { type: 'ClusterSetIP', ports: [{ name: 'http', protocol: 'TCP', port: 80 }] });
    const slice = objects.get('london/EndpointSlice/shop/orders-rome-mcs-ipv4') as any;
    assert.deepEqual(slice.metadata.labels, {
      'endpointslice.kubernetes.io/managed-by': 'mirrorc.io',
      'mirrorc.io/managed': 'true',
      'multicluster.kubernetes.io/service-name': 'orders',
      'multicluster.kubernetes.io/source-cluster': 'rome',
    });
    assert.deepEqual(slice.endpoints, [{ addresses: ['198.51.100.30'], conditions: { ready: true } }]);
    assert.deepEqual(slice.ports, [{ name: 'http', port: 4143, protocol: 'TCP' }]);
    assert.deepEqual(result.planRows.filter((r) => r.startsWith('mcs:')), ['mcs: london ← ServiceImport shop/orders (ClusterSetIP; http/TCP/80) from paris, rome']);
  });

  test('GIVEN rome exports it with other ports WHEN compiled THEN the first cluster by name sets the ports, rome is left out, and both the warning and plan say so', () => {
    const other = service('shop', 'orders', { ports: [{ name: 'http', protocol: 'TCP', port: 8080, targetPort: 8080 }] });
    const snap = snapshot({ paris: target([service('shop', 'orders')], at('203.0.113.10')), rome: target([other], at('198.51.100.30')), madrid: target([service('shop', 'orders')], at('192.0.2.40')) }, { london: source(['shop']) });
    const { objects, result } = compileObjects(fleet, snap);
    assert.deepEqual([...objects.keys()].filter((k) => k.includes('EndpointSlice')).sort(), ['london/EndpointSlice/shop/orders-madrid-mcs-ipv4', 'london/EndpointSlice/shop/orders-paris-mcs-ipv4']);
    assert.deepEqual((objects.get('london/ServiceImport/shop/orders') as any).spec.ports, [{ name: 'http', protocol: 'TCP', port: 80 }]);
    assert.ok(result.warnings.some((w) => w.includes('ServiceImport shop/orders: "rome" exports it with a different type or ports than "madrid"') && w.includes('"rome" is left out of the import')), result.warnings.join('\n'));
    assert.ok(result.planRows.includes('mcs: london ← ServiceImport shop/orders (ClusterSetIP; http/TCP/80) from madrid, paris; conflict: rome left out'), result.planRows.join('\n'));
  });

  test('GIVEN a headless exported service WHEN compiled THEN its ServiceImport is Headless', () => {
    const snap = snapshot({ paris: target([service('shop', 'db', { headless: true })], at('203.0.113.10')) }, { london: source(['shop']) });
    assert.equal((compileObjects(fleet, snap).objects.get('london/ServiceImport/shop/db') as any).spec.type, 'Headless');
  });
});

describe('MCS-API output follows readiness as Linkerd mirrors do', () => {
  test('GIVEN orders without a ready endpoint in paris, and rome\'s gateway failing its not-ready probe WHEN compiled THEN paris\'s slice keeps its name with no endpoints, and rome\'s endpoints are not ready', () => {
    const probed = spec((f) => {
      const london = new Cluster(f, 'london');
      new Link(f, 'london-from-paris', { source: london, target: new Cluster(f, 'paris'), mcs: true });
      new Link(f, 'london-from-rome', { source: london, target: new Cluster(f, 'rome', { gateway: { probe: { mode: 'not-ready' } } }), mcs: true });
    });
    const snap = snapshot({
      paris: target([service('shop', 'orders', { hasReadyEndpoints: false })], at('203.0.113.10')),
      rome: { ...target([service('shop', 'orders')], at('198.51.100.30')), gatewayProbe: { alive: false } },
    }, { london: source(['shop']) });
    const { objects } = compileObjects(probed, snap);
    assert.deepEqual((objects.get('london/EndpointSlice/shop/orders-paris-mcs-ipv4') as any).endpoints, []);
    assert.deepEqual((objects.get('london/EndpointSlice/shop/orders-rome-mcs-ipv4') as any).endpoints, [{ addresses: ['198.51.100.30'], conditions: { ready: false } }]);
    assert.ok(objects.has('london/ServiceImport/shop/orders'));
  });
});

describe('MCS-API output stays isolated to one service', () => {
  test('GIVEN service api-us from east and api from us-east (their slices would share a name) WHEN compiled THEN the later import leaves that cluster out with a warning, nothing crashes, and --strict makes it an error', () => {
    // GIVEN two targets whose cluster names make `<svc>-<cluster>-mcs` equal for two different services
    const clash = spec((f) => {
      const london = new Cluster(f, 'london');
      new Link(f, 'london-from-east', { source: london, target: new Cluster(f, 'east'), mcs: true });
      new Link(f, 'london-from-us-east', { source: london, target: new Cluster(f, 'us-east'), mcs: true });
    });
    const snap = snapshot({ east: target([service('shop', 'api-us')], at('203.0.113.10')), 'us-east': target([service('shop', 'api')], at('198.51.100.30')) }, { london: source(['shop']) });
    // WHEN compiled
    const { objects, result } = compileObjects(clash, snap);
    // THEN one of them keeps the slice name, the other cluster is left out of its import, with a warning
    const slices = [...objects.keys()].filter((k) => k.includes('EndpointSlice')).sort();
    assert.deepEqual(slices, ['london/EndpointSlice/shop/api-us-east-mcs-ipv4']);
    assert.equal((objects.get('london/EndpointSlice/shop/api-us-east-mcs-ipv4') as any).metadata.labels['multicluster.kubernetes.io/service-name'], 'api');
    assert.ok(result.warnings.some((w) => w.includes('ServiceImport shop/api-us from "east" would be named like those of ServiceImport shop/api')), result.warnings.join('\n'));
    // AND with --strict it is a compile error instead
    assert.throws(() => compileObjects(clash, snap, { strict: true }), /would be named like those of ServiceImport shop\/api/);
  });

  test('GIVEN an MCS link with a namespaceMap, and a target namespace called "constructor" WHEN compiled THEN imports stay in the exported namespace with a warning, and nothing reads Object.prototype', () => {
    const mapped = spec((f) => {
      new Link(f, 'london-from-paris', { source: new Cluster(f, 'london'), target: new Cluster(f, 'paris'), mcs: true, namespaceMap: { shop: 'shop-paris' } });
    });
    const snap = snapshot({ paris: target([service('shop', 'orders'), service('constructor', 'x')], at('203.0.113.10')) }, { london: source(['shop', 'shop-paris', 'constructor']) });
    const { objects, result } = compileObjects(mapped, snap);
    assert.ok(objects.has('london/ServiceImport/shop/orders'), [...objects.keys()].join(', '));
    assert.ok(objects.has('london/ServiceImport/constructor/x'), [...objects.keys()].join(', '));
    assert.ok(result.warnings.some((w) => w.includes('paris/shop/orders is imported through the MCS API') && w.includes('is not applied')), result.warnings.join('\n'));
    assert.ok(!result.planRows.some((r) => r.startsWith('renamed export:')), result.planRows.join('\n'));
    assert.ok(!result.warnings.some((w) => w.includes('constructor/x')), result.warnings.join('\n'));
  });
});

describe('MCS exports from the targets\' ServiceExport objects', () => {
  const mixed = spec((f) => {
    const paris = new Cluster(f, 'paris');
    new Link(f, 'london-from-paris', { source: new Cluster(f, 'london'), target: paris, mcs: true });
    new Link(f, 'berlin-from-paris', { source: new Cluster(f, 'berlin'), target: paris });
  });
  const listed = { ...at('203.0.113.10'), serviceExportsListed: true as const };
  // shop/pay has a ServiceExport and no export label.
  const pay = service('shop', 'pay', { labels: { app: 'pay' }, serviceExport: true });

  test('GIVEN paris\'s shop/pay named by a ServiceExport, without the export label WHEN compiled THEN the MCS link imports it and the Linkerd link does not mirror it', () => {
    const snap = snapshot({ paris: target([pay], listed) }, { london: source(['shop']), berlin: source(['shop']) });
    const { objects, result } = compileObjects(mixed, snap);
    assert.deepEqual([...objects.keys()].filter((k) => k.includes('/shop/')).sort(), ['london/EndpointSlice/shop/pay-paris-mcs-ipv4', 'london/ServiceImport/shop/pay']);
    assert.ok(result.planRows.includes('mcs: london ← ServiceImport shop/pay (ClusterSetIP; http/TCP/80) from paris'), result.planRows.join('\n'));
    assert.deepEqual(result.warnings.filter((w) => w.includes('ServiceExport')), []);
  });

  test('GIVEN the MCS link sets serviceExports: false WHEN compiled THEN shop/pay is not imported', () => {
    const optOut = spec((f) => {
      new Link(f, 'london-from-paris', { source: new Cluster(f, 'london'), target: new Cluster(f, 'paris'), mcs: true, serviceExports: false });
    });
    const { objects } = compileObjects(optOut, snapshot({ paris: target([pay], at('203.0.113.10')) }, { london: source(['shop']) }));
    assert.deepEqual([...objects.keys()].filter((k) => k.includes('/shop/')), []);
  });

  test('GIVEN a lock whose paris was observed before ServiceExports were read WHEN compiled THEN a warning says to observe it again', () => {
    const { result } = compileObjects(mixed, snapshot({ paris: target([], at('203.0.113.10')) }, { london: source(['shop']), berlin: source(['shop']) }));
    assert.deepEqual(result.warnings.filter((w) => w.includes('ServiceExport')), [
      'london: the lock holds no observation of "paris"\'s ServiceExport objects (MCS link fleet/london-from-paris exports the Services they name); run synth with cluster access to observe them',
    ]);
  });

  test('GIVEN serviceExports on a link without mcs WHEN the fleet is built THEN it is refused with what to do', () => {
    assert.throws(
      () => spec((f) => new Link(f, 'london-from-paris', { source: new Cluster(f, 'london'), target: new Cluster(f, 'paris'), serviceExports: true })),
      /london-from-paris.*serviceExports applies only to a link with mcs: true/s,
    );
  });
});
