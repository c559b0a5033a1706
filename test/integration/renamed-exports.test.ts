/**
 * Renamed and relocated exports against real kube-apiservers: london mirrors paris's shop/orders
 * as compat/legacy-orders-paris (ExplicitExport mirrorAs) and the rest of shop into shop-paris (a
 * link namespaceMap); the objects apply by server-side apply without drift, and every data-plane
 * field still names the original service.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { ExitCode } from '../../src/errors/exit-codes.js';
import type { FleetDefinition } from '../../src/load/load-fleet.js';
import { Cluster, ExplicitExport, Link } from '../../src/model/index.js';
import { observationRules } from '../../src/observe/observation-rbac.js';
import { kubeFleetForTests, type KubeFleet } from '../harness/kube-fleet.js';
import { applyService, applyWithoutDrift, ensureNamespace, installGateway, Workspace } from './support.js';

const EXPORTED = { 'mirror.linkerd.io/exported': 'true' };

const defineFleet: FleetDefinition = (fleet) => {
  const paris = new Cluster(fleet, 'paris');
  new Link(fleet, 'london-from-paris', { source: new Cluster(fleet, 'london'), target: paris, namespaceMap: { shop: 'shop-paris' } });
  new ExplicitExport(fleet, 'orders', { cluster: paris, namespace: 'shop', name: 'orders', mirrorAs: { name: 'legacy-orders', namespace: 'compat' } });
};

describe('renamed and relocated exports against real API servers', () => {
  let fleet: KubeFleet | undefined;

  before(async (t) => {
    fleet = await kubeFleetForTests(t as never, ['london', 'paris'], { readerRules: observationRules({ source: true, target: true }) });
    if (!fleet) return;
    await installGateway(fleet, 'paris', '203.0.113.10');
    await applyService(fleet, 'paris', 'shop', 'orders', { app: 'orders' });
    await applyService(fleet, 'paris', 'shop', 'cart', { app: 'cart', ...EXPORTED });
    for (const ns of ['compat', 'shop-paris']) await ensureNamespace(fleet, 'london', ns);
  });

  after(async () => {
    await fleet?.stop();
  });

  test('mirrors land under their final names, apply without drift, and point at the original service', async (t) => {
    if (!fleet) return t.skip('no kube-apiserver');
    const ws = new Workspace(defineFleet, fleet.kubeconfig('reader'));
    try {
      // WHEN synth runs
      const result = await ws.synth();
      // THEN orders is mirrored as compat/legacy-orders-paris and cart into shop-paris
      assert.equal(result.exitCode, ExitCode.OK, ws.logs.join('\n'));
      const files = ws.paths('london');
      assert.ok(files.includes('compat/service-legacy-orders-paris.yaml'), files.join(', '));
      assert.ok(files.includes('shop-paris/service-cart-paris.yaml'), files.join(', '));
      assert.ok(!files.some((f) => f.startsWith('shop/')), files.join(', '));
      // AND the objects apply by server-side apply, read back unchanged, and a second apply changes nothing
      const live = await applyWithoutDrift(fleet, ws, 'london');
      const endpoints = live.get('london/compat/endpoints-legacy-orders-paris.yaml');
      assert.equal(endpoints.metadata.annotations['mirror.linkerd.io/remote-svc-fq-name'], 'orders.shop.svc.cluster.local');
      assert.deepEqual(endpoints.subsets[0].addresses, [{ ip: '203.0.113.10' }]);
      const slice = live.get('london/shop-paris/endpointslice-cart-paris-ipv4.yaml');
      assert.equal(slice.metadata.annotations['mirror.linkerd.io/remote-svc-fq-name'], 'cart.shop.svc.cluster.local');
      // AND plan shows both mappings
      const printed: string[] = [];
      await ws.synth({ mode: 'plan', print: (l) => printed.push(l) });
      assert.ok(printed.includes('renamed export: london ← paris/shop/orders as compat/legacy-orders-paris (remote-svc-fq-name still orders.shop)'), printed.join('\n'));
      assert.ok(printed.includes('renamed export: london ← paris/shop/cart as shop-paris/cart-paris (remote-svc-fq-name still cart.shop)'), printed.join('\n'));
    } finally {
      ws.remove();
    }
  });
});
