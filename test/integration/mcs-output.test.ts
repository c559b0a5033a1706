/**
 * MCS-API output against real kube-apiservers: the upstream MCS CRDs (test/fixtures/crds/mcs/) are
 * installed in london; the ServiceImport and EndpointSlices compiled from paris and rome validate
 * against them, server-side apply without drift, and a port conflict is reported. paris also has the
 * CRDs and exports by ServiceExport objects; rome has no CRD at all.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { ExitCode } from '../../src/errors/exit-codes.js';
import type { FleetDefinition } from '../../src/load/load-fleet.js';
import { Cluster, Link } from '../../src/model/index.js';
import { observationRules } from '../../src/observe/observation-rbac.js';
import { kubeFleetForTests, type KubeFleet } from '../harness/kube-fleet.js';
import { readFileSync } from 'node:fs';
import { applyService, applyWithoutDrift, ensureNamespace, installGateway, Workspace } from './support.js';

const EXPORTED = { 'mirror.linkerd.io/exported': 'true' };

const defineFleet: FleetDefinition = (fleet) => {
  const london = new Cluster(fleet, 'london');
  new Link(fleet, 'london-from-paris', { source: london, target: new Cluster(fleet, 'paris'), mcs: true });
  new Link(fleet, 'london-from-rome', { source: london, target: new Cluster(fleet, 'rome'), mcs: true });
};

describe('MCS-API output against real API servers', () => {
  let fleet: KubeFleet | undefined;

  before(async (t) => {
    fleet = await kubeFleetForTests(t as never, ['london', 'paris', 'rome'], { readerRules: observationRules({ source: true, target: true, mcsTarget: true, mcsSource: true }) });
    if (!fleet) return;
    // GIVEN the upstream MCS CRDs in london, and shop/orders exported by paris and rome
    for (const crd of ['mcs-serviceimports-crd.yaml', 'mcs-serviceexports-crd.yaml']) await fleet.kubectl('london', ['apply', '--server-side', '-f', `test/fixtures/crds/mcs/${crd}`]);
    await fleet.kubectl('london', ['wait', '--for=condition=Established', 'crd/serviceimports.multicluster.x-k8s.io', '--timeout=60s']);
    // AND in paris (the ServiceExport CRD is what paris exports with); rome gets none
    for (const crd of ['mcs-serviceimports-crd.yaml', 'mcs-serviceexports-crd.yaml']) await fleet.kubectl('paris', ['apply', '--server-side', '-f', `test/fixtures/crds/mcs/${crd}`]);
    await fleet.kubectl('paris', ['wait', '--for=condition=Established', 'crd/serviceexports.multicluster.x-k8s.io', '--timeout=60s']);
    await installGateway(fleet, 'paris', '203.0.113.10');
    await installGateway(fleet, 'rome', '198.51.100.30');
    await applyService(fleet, 'paris', 'shop', 'orders', { app: 'orders', ...EXPORTED });
    await applyService(fleet, 'rome', 'shop', 'orders', { app: 'orders', ...EXPORTED });
    await ensureNamespace(fleet, 'london', 'shop');
  });

  after(async () => {
    await fleet?.stop();
  });

  test('the ServiceImport and its EndpointSlices validate against the real CRDs and apply without drift; a port conflict is reported', async (t) => {
    if (!fleet) return t.skip('no kube-apiserver');
    const ws = new Workspace(defineFleet, fleet.kubeconfig('reader'));
    try {
      // WHEN synth runs
      const result = await ws.synth();
      assert.equal(result.exitCode, ExitCode.OK, ws.logs.join('\n'));
      assert.deepEqual(ws.paths('london').filter((p) => p.startsWith('shop/')).sort(), [
        'shop/endpointslice-orders-paris-mcs-ipv4.yaml', 'shop/endpointslice-orders-rome-mcs-ipv4.yaml', 'shop/serviceimport-orders.yaml',
      ]);
      // THEN server-side apply (CRD schema validation included) accepts everything, and re-applying changes nothing
      const live = await applyWithoutDrift(fleet, ws, 'london');
      const imported = live.get('london/shop/serviceimport-orders.yaml');
      assert.deepEqual(imported.spec, { type: 'ClusterSetIP', ports: [{ name: 'http', protocol: 'TCP', port: 80 }] });
      const rome = live.get('london/shop/endpointslice-orders-rome-mcs-ipv4.yaml');
      assert.equal(rome.metadata.labels['multicluster.kubernetes.io/source-cluster'], 'rome');
      assert.equal(rome.metadata.labels['multicluster.kubernetes.io/service-name'], 'orders');
      // AND an object the CRD rejects is refused by this apiserver (the validation is real)
      await assert.rejects(fleet.kubectl('london', ['apply', '--server-side', '--dry-run=server', '-f', '-'],
        JSON.stringify({ apiVersion: 'multicluster.x-k8s.io/v1alpha1', kind: 'ServiceImport', metadata: { name: 'bad', namespace: 'shop' }, spec: { type: 'Nonsense', ports: [] } })));

      // WHEN rome's orders changes its port
      await applyService(fleet, 'rome', 'shop', 'orders', { app: 'orders', ...EXPORTED }, { spec: { ports: [{ name: 'http', port: 8080, targetPort: 8080 }] } });
      const printed: string[] = [];
      const plan = await ws.synth({ mode: 'plan', print: (l) => printed.push(l) });
      // THEN the conflict is reported: paris (first by name) keeps the ports, rome is left out
      assert.equal(plan.exitCode, ExitCode.OK);
      assert.ok(printed.includes('mcs: london ← ServiceImport shop/orders (ClusterSetIP; http/TCP/80) from paris; conflict: rome left out'), printed.join('\n'));
      assert.ok(plan.warnings.some((w) => w.includes('"rome" exports it with a different type or ports than "paris"')), plan.warnings.join('\n'));
    } finally {
      ws.remove();
    }
  });

  test('a Service named by a ServiceExport is imported without the export label, and no longer once the ServiceExport is deleted; a target without the CRD is observed', async (t) => {
    if (!fleet) return t.skip('no kube-apiserver');
    const serviceExport = (name: string): string => JSON.stringify({ apiVersion: 'multicluster.x-k8s.io/v1alpha1', kind: 'ServiceExport', metadata: { name, namespace: 'shop' } });
    // GIVEN paris's shop/pay without the export label, named by a ServiceExport, and a ServiceExport shop/ghost naming no Service
    await applyService(fleet, 'paris', 'shop', 'pay', { app: 'pay' });
    await fleet.kubectl('paris', ['apply', '--server-side', '-f', '-'], serviceExport('pay'));
    await fleet.kubectl('paris', ['apply', '--server-side', '-f', '-'], serviceExport('ghost'));
    const ws = new Workspace(defineFleet, fleet.kubeconfig('reader'));
    try {
      // WHEN synth runs
      const result = await ws.synth();
      // THEN london imports shop/pay from paris, and the objects validate and apply without drift
      assert.equal(result.exitCode, ExitCode.OK, ws.logs.join('\n'));
      assert.deepEqual(result.stale.map((s) => `${s.role} ${s.cluster}: ${s.error.message}`), []);
      const payFiles = (): string[] => ws.paths('london').filter((p) => p.includes('-pay')).sort();
      assert.deepEqual(payFiles(), ['shop/endpointslice-pay-paris-mcs-ipv4.yaml', 'shop/serviceimport-pay.yaml']);
      const live = await applyWithoutDrift(fleet, ws, 'london');
      assert.deepEqual(live.get('london/shop/serviceimport-pay.yaml').spec, { type: 'ClusterSetIP', ports: [{ name: 'http', protocol: 'TCP', port: 80 }] });
      // AND the lock records only that pay is ServiceExported, and that both targets' ServiceExports were listed (rome's: none, no CRD)
      const lock = JSON.parse(readFileSync(ws.lockFile, 'utf8'));
      const pay = lock.observed.targets.paris.services.find((s: any) => s.name === 'pay');
      assert.equal(pay.serviceExport, true);
      assert.equal(lock.observed.targets.paris.serviceExportsListed, true);
      assert.equal(lock.observed.targets.rome.serviceExportsListed, true);
      assert.ok(!lock.observed.targets.rome.services.some((s: any) => s.serviceExport), 'rome has no ServiceExports');
      // AND the ServiceExport naming no Service is a warning; rome's missing CRD is not (no link asked for ServiceExports)
      assert.ok(result.warnings.some((w) => w.includes('cluster "paris": ServiceExport shop/ghost names no Service in "paris"')), result.warnings.join('\n'));
      assert.ok(!result.warnings.some((w) => w.includes('CRD is not installed')), result.warnings.join('\n'));

      // WHEN a link asks for ServiceExports of rome explicitly
      const asking: FleetDefinition = (f) => {
        const london = new Cluster(f, 'london');
        new Link(f, 'london-from-paris', { source: london, target: new Cluster(f, 'paris'), mcs: true });
        new Link(f, 'london-from-rome', { source: london, target: new Cluster(f, 'rome'), mcs: true, serviceExports: true });
      };
      const askingWs = new Workspace(asking, fleet.kubeconfig('reader'));
      const plan = await askingWs.synth({ mode: 'plan', print: () => {} }).finally(() => askingWs.remove());
      // THEN rome is still observed, with a warning naming the cluster, the CRD and the link
      assert.equal(plan.exitCode, ExitCode.OK, plan.warnings.join('\n'));
      assert.deepEqual(plan.stale, []);
      assert.ok(plan.warnings.some((w) => w.startsWith('cluster "rome": the MCS API\'s ServiceExport CRD is not installed') && w.includes('fleet/london-from-rome')), plan.warnings.join('\n'));

      // WHEN the ServiceExport of shop/pay is deleted
      await fleet.kubectl('paris', ['delete', 'serviceexports.multicluster.x-k8s.io', 'pay', '-n', 'shop']);
      const again = await ws.synth();
      // THEN the next synth removes the import
      assert.equal(again.exitCode, ExitCode.OK, ws.logs.join('\n'));
      assert.deepEqual(payFiles(), []);
      const after = JSON.parse(readFileSync(ws.lockFile, 'utf8'));
      assert.ok(!after.observed.targets.paris.services.some((s: any) => s.name === 'pay'), 'pay left the lock');
    } finally {
      ws.remove();
    }
  });
});
