/**
 * Every list observation makes, past one page, against a real kube-apiserver (issue 16, finding 1:
 * the raw ServiceExport list carries its continue token as `metadata.continue`, which the pager
 * once read as `metadata._continue`, so exports after the first page were silently lost). Small
 * pages (observationBudget.listPageSize) make every list span several; one synth reads 609
 * ServiceExports at the default page size of 500. Also: the count budgets stop a real list, the
 * budgets counted while the bytes arrive (values, nesting, string size) hold across its pages, and a
 * Service whose labels and annotations a mirror could not carry is skipped by name.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { ExitCode } from '../../src/errors/exit-codes.js';
import type { FleetDefinition } from '../../src/load/load-fleet.js';
import { Cluster, Link } from '../../src/model/index.js';
import { DEFAULT_OBSERVATION_BUDGET } from '../../src/model/observation-budget.js';
import { ClusterClient } from '../../src/observe/cluster-client.js';
import { ObservationError } from '../../src/observe/observation-error.js';
import { observationRules } from '../../src/observe/observation-rbac.js';
import { kubeFleetForTests, type KubeFleet } from '../harness/kube-fleet.js';
import { ensureNamespace, installGateway, Workspace } from './support.js';

const EXPORTED = { 'mirror.linkerd.io/exported': 'true' };
const kubeList = (items: unknown[]): string => JSON.stringify({ apiVersion: 'v1', kind: 'List', items });
const svc = (namespace: string, name: string, labels: Record<string, string> = {}, annotations: Record<string, string> = {}): unknown => ({
  apiVersion: 'v1', kind: 'Service', metadata: { name, namespace, labels, annotations }, spec: { selector: { app: name }, ports: [{ name: 'http', port: 80, targetPort: 8080 }] },
});
const serviceExport = (namespace: string, name: string): unknown => ({ apiVersion: 'multicluster.x-k8s.io/v1alpha1', kind: 'ServiceExport', metadata: { name, namespace } });
const slice = (namespace: string, service: string, i: number): unknown => ({
  apiVersion: 'discovery.k8s.io/v1', kind: 'EndpointSlice', addressType: 'IPv4',
  metadata: { name: `${service}-${i}`, namespace, labels: { 'kubernetes.io/service-name': service } },
  endpoints: [{ addresses: [`10.1.0.${i + 1}`], conditions: { ready: true } }],
  ports: [{ name: 'http', port: 8080, protocol: 'TCP' }],
});

describe('every list past one page, against a real API server', () => {
  let fleet: KubeFleet | undefined;

  before(async (t) => {
    fleet = await kubeFleetForTests(t as never, ['london', 'paris'], { readerRules: observationRules({ source: true, target: true, mcsTarget: true, mcsSource: true }) });
    if (!fleet) return;
    for (const crd of ['mcs-serviceimports-crd.yaml', 'mcs-serviceexports-crd.yaml']) await fleet.kubectl('paris', ['apply', '--server-side', '-f', `test/fixtures/crds/mcs/${crd}`]);
    await fleet.kubectl('paris', ['wait', '--for=condition=Established', 'crd/serviceexports.multicluster.x-k8s.io', '--timeout=60s']);
    await installGateway(fleet, 'paris', '203.0.113.10');
    for (const ns of ['shop', 'bulk', 'ns-1', 'ns-2', 'ns-3']) await ensureNamespace(fleet, 'paris', ns);
    await ensureNamespace(fleet, 'london', 'bulk');
    await ensureNamespace(fleet, 'london', 'shop');
    // GIVEN 5 exported Services, 5 ServiceExports and 5 EndpointSlices of one Service in shop
    const names = ['a1', 'a2', 'a3', 'a4', 'a5'];
    await fleet.kubectl('paris', ['apply', '-f', '-'], kubeList(names.map((n) => svc('shop', n, EXPORTED))));
    await fleet.kubectl('paris', ['apply', '--server-side', '-f', '-'], kubeList(names.map((n) => serviceExport('shop', n))));
    await fleet.kubectl('paris', ['apply', '-f', '-'], kubeList([0, 1, 2, 3, 4].map((i) => slice('shop', 'a1', i))));
  });

  after(async () => {
    await fleet?.stop();
  });

  const client = (budget: Partial<typeof DEFAULT_OBSERVATION_BUDGET>): ClusterClient =>
    ClusterClient.fromAccess('paris', { kubeconfig: fleet!.kubeconfig('reader'), context: 'paris' }, { requestTimeoutMs: 30_000, budget: { ...DEFAULT_OBSERVATION_BUDGET, ...budget } });

  test('with pages of 2, every list returns every item: Services (with and without a selector), namespaces, EndpointSlices (of one Service and of all), ServiceExports', async (t) => {
    if (!fleet) return t.skip('no kube-apiserver');
    const c = client({ listPageSize: 2 });
    const names = (items: { metadata?: { name?: string } }[]): string[] => items.map((i) => i.metadata?.name ?? '').sort();
    assert.deepEqual(names(await c.listServices('mirror.linkerd.io/exported=true')), ['a1', 'a2', 'a3', 'a4', 'a5']);
    assert.ok(names(await c.listServices()).length >= 7, 'all Services: the five, kubernetes, the gateway');
    assert.deepEqual(names(await c.listNamespaces()).filter((n) => n.startsWith('ns-')), ['ns-1', 'ns-2', 'ns-3']);
    assert.deepEqual(names(await c.listEndpointSlices('shop', 'a1')), ['a1-0', 'a1-1', 'a1-2', 'a1-3', 'a1-4']);
    assert.deepEqual(names(await c.listAllEndpointSlices()).filter((n) => n.startsWith('a1-')), ['a1-0', 'a1-1', 'a1-2', 'a1-3', 'a1-4']);
    assert.deepEqual((await c.listServiceExports())?.sort(), ['shop/a1', 'shop/a2', 'shop/a3', 'shop/a4', 'shop/a5']);
  });

  test('the count budgets stop a real list: 5 ServiceExports in pages of 2 exceed maxPagesPerList 2, and maxItemsPerList 4; 5 Services exceed maxRequests 2', async (t) => {
    if (!fleet) return t.skip('no kube-apiserver');
    for (const [budget, field] of [[{ listPageSize: 2, maxPagesPerList: 2 }, 'maxPagesPerList'], [{ listPageSize: 2, maxItemsPerList: 4 }, 'maxItemsPerList']] as const) {
      const error = await client(budget).listServiceExports().then(() => undefined, (e: unknown) => e);
      assert.ok(error instanceof ObservationError, `${field}: ${String(error)}`);
      assert.equal(error.failure, 'over-budget');
      assert.match(error.message, new RegExp(`^cluster "paris": list serviceexports\\.multicluster\\.x-k8s\\.io in all namespaces: over its observation budget ${field} `));
    }
    const error = await client({ listPageSize: 2, maxRequests: 2 }).listServices('mirror.linkerd.io/exported=true').then(() => undefined, (e: unknown) => e);
    assert.ok(error instanceof ObservationError && /over its observation budget maxRequests \(2\)/.test(error.message), String(error));
  });

  test('the budgets counted while the bytes arrive hold a real list across its pages: exactly its JSON values, nesting and longest string pass, one less of any is over that budget', async (t) => {
    if (!fleet) return t.skip('no kube-apiserver');
    // GIVEN the 5 ServiceExports, one with a 4,000-byte annotation (longer than any token the API server varies, such as a continue token), in pages
    // of 2 as the API server sends them: their values (all pages), deepest nesting, longest string or number as sent
    await fleet.kubectl('paris', ['annotate', 'serviceexport', 'a3', '-n', 'shop', `example.com/note=${'n'.repeat(4000)}`]);
    t.after(() => fleet!.kubectl('paris', ['annotate', 'serviceexport', 'a3', '-n', 'shop', 'example.com/note-']));
    let values = 0;
    let depth = 0;
    let longest = 0;
    let pageValues = 0;
    let cont = '';
    do {
      const raw = await fleet.kubectl('paris', ['get', '--raw', `/apis/multicluster.x-k8s.io/v1alpha1/serviceexports?limit=2${cont ? `&continue=${encodeURIComponent(cont)}` : ''}`]);
      const page = JSON.parse(raw) as { metadata?: { continue?: string } };
      let here = 0;
      const walk = (v: unknown, d: number): void => {
        here++;
        if (v !== null && typeof v === 'object') {
          depth = Math.max(depth, d + 1);
          for (const x of Object.values(v)) walk(x, d + 1);
        }
      };
      walk(page, 0);
      values += here;
      pageValues = Math.max(pageValues, here);
      for (const m of raw.matchAll(/"((?:[^"\\]|\\.)*)"|-?[0-9][0-9.eE+-]*/g)) longest = Math.max(longest, Buffer.byteLength(m[1] ?? m[0]));
      cont = page.metadata?.continue ?? '';
    } while (cont);
    assert.equal(longest, 4000);
    assert.ok(pageValues < values - 1, `every page alone (${pageValues} values) is under the list's ${values - 1}: only the pages together pass it`);
    // WHEN listed at exactly those budgets THEN every export is read
    const exact = { listPageSize: 2, maxValuesPerList: values, maxNestingDepth: depth, maxStringBytes: longest };
    assert.equal((await client(exact).listServiceExports())?.length, 5);
    // WHEN one less of any THEN the list is over that budget
    for (const [budget, field] of [[{ maxValuesPerList: values - 1 }, 'maxValuesPerList'], [{ maxNestingDepth: depth - 1 }, 'maxNestingDepth'], [{ maxStringBytes: longest - 1 }, 'maxStringBytes']] as const) {
      const error = await client({ ...exact, ...budget }).listServiceExports().then(() => undefined, (e: unknown) => e);
      assert.ok(error instanceof ObservationError && error.failure === 'over-budget', `${field}: ${String(error)}`);
      assert.match(error.message, new RegExp(`^cluster "paris": list serviceexports\\.multicluster\\.x-k8s\\.io in all namespaces: over its observation budget ${field} \\(${Object.values(budget)[0]}\\)`));
    }
  });

  test('GIVEN 609 Services named by ServiceExports WHEN synth runs at the default page size THEN all 609 are imported (none lost after the first page of 500)', async (t) => {
    if (!fleet) return t.skip('no kube-apiserver');
    const names = Array.from({ length: 609 }, (_, i) => `svc-${String(i).padStart(3, '0')}`);
    await fleet.kubectl('paris', ['apply', '-f', '-'], kubeList(names.map((n) => svc('bulk', n))));
    await fleet.kubectl('paris', ['apply', '--server-side', '-f', '-'], kubeList(names.map((n) => serviceExport('bulk', n))));
    const define: FleetDefinition = (f) => {
      new Link(f, 'london-from-paris', { source: new Cluster(f, 'london'), target: new Cluster(f, 'paris'), mcs: true, serviceExports: true });
    };
    const ws = new Workspace(define, fleet.kubeconfig('reader'));
    try {
      const result = await ws.synth();
      assert.equal(result.exitCode, ExitCode.OK, ws.logs.join('\n'));
      assert.deepEqual(result.stale.map((s) => s.error.message), []);
      const imports = ws.paths('london').filter((p) => p.startsWith('bulk/serviceimport-'));
      assert.equal(imports.length, 609);
      assert.ok(imports.includes('bulk/serviceimport-svc-608.yaml'), 'the last one, sorted after the first page');
    } finally {
      ws.remove();
    }
  });

  test('GIVEN a Service with 250 KiB of annotations (the API accepts it; a mirror could not carry it) WHEN synth runs THEN it alone is skipped with a warning naming it; the others are mirrored', async (t) => {
    if (!fleet) return t.skip('no kube-apiserver');
    await fleet.kubectl('paris', ['apply', '--server-side', '-f', '-'], JSON.stringify(svc('shop', 'heavy', EXPORTED, { 'example.com/blob': 'x'.repeat(250 * 1024) })));
    const define: FleetDefinition = (f) => {
      new Link(f, 'london-from-paris', { source: new Cluster(f, 'london'), target: new Cluster(f, 'paris') });
    };
    const ws = new Workspace(define, fleet.kubeconfig('reader'));
    try {
      const result = await ws.synth();
      assert.equal(result.exitCode, ExitCode.OK, ws.logs.join('\n'));
      assert.ok(result.warnings.some((w) => /^cluster "paris": Service "shop"\/"heavy" is skipped, because .*labels and annotations together hold \d+ bytes, more than the 253952 a mirror can carry/.test(w)), result.warnings.join('\n'));
      const files = ws.paths('london');
      assert.ok(files.includes('shop/service-a1-paris.yaml'), files.join('\n'));
      assert.ok(!files.some((f) => f.includes('heavy')), files.join('\n'));
    } finally {
      ws.remove();
      await fleet.kubectl('paris', ['delete', 'service', 'heavy', '-n', 'shop']);
    }
  });
});
