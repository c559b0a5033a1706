/** Shared steps of the integration tests: target setup through kubectl, synth runs, file snapshots. */
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runSynth, type SynthOptions, type SynthResult } from '../../src/pipeline/run-synth.js';
import type { FleetDefinition } from '../../src/load/load-fleet.js';
import { readTree } from '../../src/emit/write-output.js';
import type { KubeFleet } from '../harness/kube-fleet.js';
import { perObjectFiles } from '../unit/support/legacy-layout.js';

export const GATEWAY_IDENTITY = 'linkerd-gateway.linkerd-multicluster.serviceaccount.identity.linkerd.cluster.local';

/** Creates the Linkerd gateway Service of a target, with a load-balancer address in its status. */
export async function installGateway(fleet: KubeFleet, cluster: string, ip: string, port = 4143): Promise<void> {
  await fleet.kubectl(cluster, ['apply', '-f', '-'], JSON.stringify({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'linkerd-multicluster' } }));
  await fleet.kubectl(cluster, ['apply', '-f', '-'], JSON.stringify({
    apiVersion: 'v1',
    kind: 'Service',
    metadata: { name: 'linkerd-gateway', namespace: 'linkerd-multicluster', annotations: { 'mirror.linkerd.io/gateway-identity': GATEWAY_IDENTITY } },
    spec: { type: 'LoadBalancer', selector: { app: 'linkerd-gateway' }, ports: [{ name: 'mc-gateway', port, targetPort: port }, { name: 'mc-probe', port: 4191 }] },
  }));
  await fleet.kubectl(cluster, ['patch', 'service', 'linkerd-gateway', '-n', 'linkerd-multicluster', '--subresource=status', '--type=merge', '-p',
    JSON.stringify({ status: { loadBalancer: { ingress: [{ ip }] } } })]);
}

/** Creates (or updates) a namespace. */
export async function ensureNamespace(fleet: KubeFleet, cluster: string, name: string): Promise<void> {
  await fleet.kubectl(cluster, ['apply', '-f', '-'], JSON.stringify({ apiVersion: 'v1', kind: 'Namespace', metadata: { name } }));
}

/** Creates (or updates) a Service in a target. */
export async function applyService(fleet: KubeFleet, cluster: string, namespace: string, name: string, labels: Record<string, string>, extra: Record<string, unknown> = {}): Promise<void> {
  await ensureNamespace(fleet, cluster, namespace);
  await fleet.kubectl(cluster, ['apply', '-f', '-'], JSON.stringify({
    apiVersion: 'v1',
    kind: 'Service',
    metadata: { name, namespace, labels, ...(extra.annotations ? { annotations: extra.annotations } : {}) },
    spec: { selector: { app: name }, ports: [{ name: 'http', port: 80, targetPort: 8080 }], ...((extra.spec as object) ?? {}) },
  }));
}

/**
 * An output tree keyed without its delivery unit folders: `<cluster>/<unit>/<rest>` → `<cluster>/<rest>`;
 * the units' kustomization.yaml files are left out (the cluster's own one stays).
 */
export function withoutUnitFolders(tree: ReadonlyMap<string, string>): Map<string, string> {
  const out = new Map<string, string>();
  for (const [path, text] of tree) {
    const parts = path.split('/');
    if (parts.length === 2) out.set(path, text);
    else if (parts.length > 2 && !(parts.length === 3 && parts[2] === 'kustomization.yaml')) out.set([parts[0], ...parts.slice(2)].join('/'), text);
  }
  return new Map([...out].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}

/** Cluster-relative changed paths without the unit folder (`from-paris/shop/x.yaml` → `shop/x.yaml`; the cluster's own `kustomization.yaml` stays), sorted, once each. */
export function unitFree(paths: readonly string[]): string[] {
  return [...new Set(paths.map((p) => (p.includes('/') ? p.split('/').slice(1).join('/') : p)))].sort();
}

/** A scratch directory with its own dist/ and lock file. */
export class Workspace {
  public readonly dir = mkdtempSync(join(tmpdir(), 'mirrorc-it-'));
  public readonly outDir = join(this.dir, 'dist');
  public readonly lockFile = join(this.dir, 'fleet.lock.json');
  public readonly logs: string[] = [];

  constructor(private readonly define: FleetDefinition, private readonly kubeconfig: string) {}

  public synth(extra: Partial<SynthOptions> = {}): Promise<SynthResult> {
    this.logs.length = 0;
    return runSynth({
      define: this.define,
      lockFile: this.lockFile,
      outDir: this.outDir,
      kubeconfig: this.kubeconfig,
      // Generous: a loaded machine must not turn a slow answer into a stale cluster. Stopped
      // apiservers refuse connections at once, so no test waits for this timeout.
      requestTimeoutMs: 30000,
      log: (line) => this.logs.push(line),
      ...extra,
    });
  }

  /**
   * Every output object and the lock, as text, keyed without the delivery unit folder and by the
   * object's own `<kind>-<name>.yaml` (`london/shop/service-web-paris.yaml`,
   * `london/shop/endpoints-web-paris.yaml`, `london/kustomization.yaml`): most tests are about what
   * a cluster gets, not which unit or file holds it (docs/delivery-units.md; a mirror's objects
   * share one file, named after its Service: {@link Workspace.outputFiles} has the files as written).
   */
  public files(): Map<string, string> {
    const tree = new Map<string, string>();
    for (const [path, text] of withoutUnitFolders(readTree(this.outDir))) {
      const slash = path.lastIndexOf('/');
      for (const [rel, objectText] of perObjectFiles(path.slice(slash + 1), text)) tree.set(`${path.slice(0, slash + 1)}${rel}`, objectText);
    }
    try {
      tree.set('LOCK', readFileSync(this.lockFile, 'utf8'));
    } catch {
      /* no lock yet */
    }
    return new Map([...tree].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
  }

  /** Every output file as written (a mirror's objects in one file) and the lock, keyed without the delivery unit folder. */
  public outputFiles(): Map<string, string> {
    const tree = withoutUnitFolders(readTree(this.outDir));
    try {
      tree.set('LOCK', readFileSync(this.lockFile, 'utf8'));
    } catch {
      /* no lock yet */
    }
    return tree;
  }

  /** The files of a cluster folder, relative to it, without the unit folder (see {@link files}). */
  public paths(cluster: string): string[] {
    return [...this.files().keys()].filter((p) => p.startsWith(`${cluster}/`)).map((p) => p.slice(cluster.length + 1));
  }

  /** The path on disk of `<cluster>/<namespace>/<file>` (or `<cluster>/<file>`), whichever unit folder holds it. */
  public pathOf(key: string): string {
    const [cluster, ...rest] = key.split('/');
    for (const [path] of readTree(join(this.outDir, cluster!))) {
      const parts = path.split('/');
      if (parts.slice(1).join('/') === rest.join('/')) return join(this.outDir, cluster!, path);
    }
    throw new Error(`no unit folder of ${cluster} holds ${rest.join('/')}`);
  }

  public remove(): void {
    rmSync(this.dir, { recursive: true, force: true });
  }
}

/** Whether every field of `expected` is present with the same value in `actual` (arrays: same length, element-wise). */
export function assertSubset(actual: unknown, expected: unknown, path = ''): void {
  // The API server stores an empty list and no list alike (an empty slice's `endpoints: []` reads back as null).
  if (Array.isArray(expected) && expected.length === 0 && (actual === null || actual === undefined)) return;
  if (Array.isArray(expected)) {
    assert.ok(Array.isArray(actual), `${path}: expected an array`);
    assert.equal((actual as unknown[]).length, expected.length, `${path}: array length`);
    expected.forEach((e, i) => assertSubset((actual as unknown[])[i], e, `${path}[${i}]`));
  } else if (expected !== null && typeof expected === 'object') {
    assert.ok(actual !== null && typeof actual === 'object', `${path}: expected an object`);
    for (const [k, v] of Object.entries(expected)) assertSubset((actual as Record<string, unknown>)[k], v, `${path}.${k}`);
  } else {
    assert.equal(actual, expected, `${path}: value`);
  }
}

/**
 * Server-side applies dist/<cluster> to that cluster, checks every object reads back with every field
 * we set unchanged, applies again and checks no resourceVersion moved. Returns the live objects by path.
 */
export async function applyWithoutDrift(fleet: KubeFleet, ws: Workspace, cluster: string): Promise<Map<string, any>> {
  const { parse } = await import('yaml');
  const apply = (): Promise<string> => fleet.kubectl(cluster, ['apply', '--server-side', '--field-manager=mirrorc', '-k', `${ws.outDir}/${cluster}`]);
  await apply();
  const objects = [...ws.files().entries()].filter(([p]) => p.startsWith(`${cluster}/`) && !p.endsWith('kustomization.yaml'));
  // Read back in the version written (`Kind.version.group`), not the server's preferred one.
  const resource = (want: any): string => (String(want.apiVersion).includes('/') ? `${want.kind}.${want.apiVersion.split('/')[1]}.${want.apiVersion.split('/')[0]}` : want.kind);
  const read = async (want: any): Promise<any> =>
    JSON.parse(await fleet.kubectl(cluster, ['get', resource(want), want.metadata.name, ...(want.metadata.namespace ? ['-n', want.metadata.namespace] : []), '-o', 'json']));
  const live = new Map<string, any>();
  for (const [path, text] of objects) {
    const want = parse(text);
    const got = await read(want);
    assertSubset(got, want, path);
    live.set(path, got);
  }
  await apply();
  for (const [path, text] of objects) {
    const got = await read(parse(text));
    assert.equal(got.metadata.resourceVersion, live.get(path).metadata.resourceVersion, `${path} changed on re-apply`);
  }
  return live;
}

/**
 * A StatefulSet's headless Service in a target, with the EndpointSlice its endpoint controller would
 * write (the test apiservers run no controller-manager): one endpoint per pod, hostname = pod name.
 */
export async function applyStatefulService(
  fleet: KubeFleet,
  cluster: string,
  namespace: string,
  name: string,
  pods: number,
  labels: Record<string, string>,
  port = 9092,
): Promise<void> {
  await ensureNamespace(fleet, cluster, namespace);
  await fleet.kubectl(cluster, ['apply', '-f', '-'], JSON.stringify({
    apiVersion: 'v1',
    kind: 'Service',
    metadata: { name, namespace, labels },
    spec: { clusterIP: 'None', selector: { app: name }, ports: [{ name: 'client', port, targetPort: port }] },
  }));
  await fleet.kubectl(cluster, ['apply', '-f', '-'], JSON.stringify({
    apiVersion: 'discovery.k8s.io/v1',
    kind: 'EndpointSlice',
    metadata: { name: `${name}-abcde`, namespace, labels: { 'kubernetes.io/service-name': name, 'endpointslice.kubernetes.io/managed-by': 'endpointslice-controller.k8s.io' } },
    addressType: 'IPv4',
    endpoints: Array.from({ length: pods }, (_, i) => ({
      addresses: [`10.244.${i}.${10 + i}`],
      hostname: `${name}-${i}`,
      conditions: { ready: true },
      targetRef: { kind: 'Pod', name: `${name}-${i}`, namespace },
    })),
    ports: [{ name: 'client', port, protocol: 'TCP' }],
  }));
}

/** The EndpointSlice a target's endpoint controller writes for `name`: one endpoint per readiness given. */
export async function applySlice(fleet: KubeFleet, cluster: string, namespace: string, name: string, ready: readonly boolean[]): Promise<void> {
  await fleet.kubectl(cluster, ['apply', '-f', '-'], JSON.stringify({
    apiVersion: 'discovery.k8s.io/v1',
    kind: 'EndpointSlice',
    metadata: { name: `${name}-xyz12`, namespace, labels: { 'kubernetes.io/service-name': name, 'endpointslice.kubernetes.io/managed-by': 'endpointslice-controller.k8s.io' } },
    addressType: 'IPv4',
    endpoints: ready.map((r, i) => ({ addresses: [`10.244.1.${10 + i}`], conditions: { ready: r, serving: r, terminating: false } })),
    ports: [{ name: 'http', port: 8080, protocol: 'TCP' }],
  }));
}
