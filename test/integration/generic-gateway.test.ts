/**
 * A gateway that need not be Linkerd's, against real kube-apiservers: paris's traffic enters through
 * a TCP gateway (Service ingress/tcp-gateway, no Linkerd identity) that reserves a port per service;
 * london's mirrors point at it on each service's port, and apply by server-side apply without drift.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { ExitCode } from '../../src/errors/exit-codes.js';
import type { FleetDefinition } from '../../src/load/load-fleet.js';
import { Cluster, Link } from '../../src/model/index.js';
import { observationRules } from '../../src/observe/observation-rbac.js';
import { kubeFleetForTests, type KubeFleet } from '../harness/kube-fleet.js';
import { applyService, applyWithoutDrift, ensureNamespace, Workspace } from './support.js';

const EXPORTED = { 'mirror.linkerd.io/exported': 'true' };

const defineFleet: FleetDefinition = (fleet) => {
  const paris = new Cluster(fleet, 'paris', { gateway: { kind: 'generic', namespace: 'ingress', name: 'tcp-gateway', servicePorts: { 'shop/billing': 31002 } } });
  new Link(fleet, 'london-from-paris', { source: new Cluster(fleet, 'london'), target: paris });
};

describe('generic gateway against real API servers', () => {
  let fleet: KubeFleet | undefined;

  before(async (t) => {
    fleet = await kubeFleetForTests(t as never, ['london', 'paris'], { readerRules: observationRules({ source: true, target: true }) });
    if (!fleet) return;
    // GIVEN paris's TCP gateway: a LoadBalancer Service with one port per service and no Linkerd identity annotation
    await ensureNamespace(fleet, 'paris', 'ingress');
    await fleet.kubectl('paris', ['apply', '-f', '-'], JSON.stringify({
      apiVersion: 'v1', kind: 'Service', metadata: { name: 'tcp-gateway', namespace: 'ingress' },
      spec: { type: 'LoadBalancer', selector: { app: 'tcp-gateway' }, ports: [{ name: 'orders', port: 31001 }, { name: 'billing', port: 31002 }] },
    }));
    await fleet.kubectl('paris', ['patch', 'service', 'tcp-gateway', '-n', 'ingress', '--subresource=status', '--type=merge', '-p',
      JSON.stringify({ status: { loadBalancer: { ingress: [{ ip: '203.0.113.77' }] } } })]);
    await ensureNamespace(fleet, 'london', 'shop');
  });

  after(async () => {
    await fleet?.stop();
  });

  test('each mirror points at the gateway on its service\'s port, without gateway identity; a service with no port is skipped alone; SSA shows no drift', async (t) => {
    if (!fleet) return t.skip('no kube-apiserver');
    const ws = new Workspace(defineFleet, fleet.kubeconfig('reader'));
    try {
      // GIVEN orders annotated with its port, billing's port in the model, and audit with none
      await applyService(fleet, 'paris', 'shop', 'orders', { app: 'orders', ...EXPORTED }, { annotations: { 'mirrorc.io/gateway-port': '31001' } });
      await applyService(fleet, 'paris', 'shop', 'billing', { app: 'billing', ...EXPORTED });
      await applyService(fleet, 'paris', 'shop', 'audit', { app: 'audit', ...EXPORTED });
      // WHEN synth runs
      const result = await ws.synth();
      // THEN orders and billing are mirrored, audit is skipped with a warning naming it and what to do
      assert.equal(result.exitCode, ExitCode.OK, ws.logs.join('\n'));
      const files = ws.paths('london');
      assert.ok(files.includes('shop/service-orders-paris.yaml') && files.includes('shop/service-billing-paris.yaml'), files.join(', '));
      assert.ok(!files.some((f) => f.includes('audit')), files.join(', '));
      assert.ok(result.warnings.some((w) => w.includes('paris/shop/audit: cluster "paris" has a generic gateway, but no gateway port is known for this service')), result.warnings.join('\n'));
      // AND no warning about a missing gateway identity (a generic gateway has none)
      assert.ok(!result.warnings.some((w) => w.includes('gateway-identity')), result.warnings.join('\n'));

      // WHEN dist/london is applied by server-side apply (twice)
      const live = await applyWithoutDrift(fleet, ws, 'london');
      // THEN the live Endpoints and EndpointSlices point at 203.0.113.77 on each service's port, with no gateway identity
      const orders = live.get('london/shop/endpoints-orders-paris.yaml');
      assert.deepEqual(orders.subsets, [{ addresses: [{ ip: '203.0.113.77' }], ports: [{ name: 'http', port: 31001, protocol: 'TCP' }] }]);
      assert.equal(orders.metadata.annotations['mirror.linkerd.io/remote-svc-fq-name'], 'orders.shop.svc.cluster.local');
      assert.equal(orders.metadata.annotations['mirror.linkerd.io/remote-gateway-identity'], undefined);
      const billing = live.get('london/shop/endpointslice-billing-paris-ipv4.yaml');
      assert.deepEqual(billing.ports, [{ name: 'http', port: 31002, protocol: 'TCP' }]);
      assert.deepEqual(billing.endpoints.map((e: { addresses: string[] }) => e.addresses), [['203.0.113.77']]);

      // WHEN audit is given billing's port as well
      await applyService(fleet, 'paris', 'shop', 'audit', { app: 'audit', ...EXPORTED }, { annotations: { 'mirrorc.io/gateway-port': '31002' } });
      const duplicate = await ws.synth({ strict: true });
      // THEN with --strict that is a compile error naming the newcomer only (billing has the mirror already and
      // keeps its port, as an established name does), and nothing is written
      assert.equal(duplicate.exitCode, ExitCode.COMPILE_ERROR);
      assert.match(duplicate.error ?? '', /paris\/shop\/audit: gateway port 31002 of cluster "paris" is also given to shop\/billing, which has that mirror already and keeps the port/);
      assert.doesNotMatch(duplicate.error ?? '', /paris\/shop\/billing: gateway port/);
    } finally {
      ws.remove();
    }
  });
});
