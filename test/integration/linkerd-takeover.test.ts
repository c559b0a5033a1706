/**
 * From Linkerd's service-mirror controller to mirrorc without downtime, and back
 * (docs/migrate-from-linkerd-controller.md), against real kube-apiservers, Flux's real
 * kustomize-controller and Kubernetes' real EndpointSlice mirroring controller (kube-controller-manager
 * with only `endpointslicemirroring`). The steps follow the runbook; the tests build on each other.
 *
 * london mirrors paris: `web` (gateway mode) and `kafka` (a StatefulSet, per pod). Before mirrorc,
 * london holds the mirrors exactly as Linkerd's controller writes them (contract §2.2, §2.5: labels,
 * annotations, `remote-resource-version`, ClusterIPs the apiserver allocated, Endpoints created with
 * a plain create, i.e. an Update-operation field manager as client-go's Create gives; no owner
 * references, Linkerd sets none), and the EndpointSlices Kubernetes mirrored from them.
 *
 * Linkerd's controller itself cannot run here (the Go module proxy refuses github.com/linkerd/linkerd2);
 * it is stopped in the runbook before mirrorc takes over, so the takeover needs none of it. On the way
 * back, its first writes after a restart (an in-place update of each mirror Service and Endpoints,
 * contract §3: it takes over a Service that carries `remote-resource-version`) are made by the test
 * with the same verbs and field manager: the one stand-in, marked where it is used.
 *
 * Throughout, a watch on london's Services, Endpoints and EndpointSlices records every event; the
 * assertions read that record: no mirror Service or Endpoints is ever deleted, no mirror's Endpoints
 * and no mirror's set of EndpointSlices is ever without a ready address, no uid and no ClusterIP changes.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import * as k8s from '@kubernetes/client-node';
import YAML from 'yaml';
import { ExitCode } from '../../src/errors/exit-codes.js';
import type { FleetDefinition } from '../../src/load/load-fleet.js';
import { FLUX_KUSTOMIZATION_NAME } from '../../src/delivery/flux-kustomization.js';
import { Cluster, GitOpsDelivery, Link } from '../../src/model/index.js';
import { observationRules } from '../../src/observe/observation-rbac.js';
import { fluxControllerForTests, fluxControllerSkipReason, type FluxController } from '../harness/flux-controller.js';
import { kubeControllerManagerForTests, kubeControllerManagerSkipReason, type KubeControllerManager } from '../harness/kube-controller-manager.js';
import { kubeFleetForTests, kubeFleetSkipReason, type KubeFleet } from '../harness/kube-fleet.js';
import { applyService, applyStatefulService, ensureNamespace, GATEWAY_IDENTITY, installGateway, Workspace } from './support.js';

const EXPORTED = { 'mirror.linkerd.io/exported': 'true' };
const GATEWAY_IP = '203.0.113.10';
const PINNED_RANGE = '10.96.0.0/24';
/** The field manager Linkerd's controller writes with: client-go's Create/Update (operation Update), named after its binary. The name matters to nothing below. */
const LINKERD_MANAGER = 'service-mirror';
const MIRRORING_MANAGED_BY = 'endpointslicemirroring-controller.k8s.io';
/** The mirrors, `namespace/name`: every one must live through the whole migration. */
const MIRRORS = ['shop/web-paris', 'data/kafka-paris', 'data/kafka-0-paris', 'data/kafka-1-paris'];
const PER_POD = ['data/kafka-0-paris', 'data/kafka-1-paris'];
const poll = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));
const DEADLINE_MS = 300_000;

/** Whether the link adopts Linkerd's mirrors: the runbook turns it on, off, and on again. */
let adopt = true;

const defineFleet: FleetDefinition = (fleet) => {
  const london = new Cluster(fleet, 'london', { pinnedServiceIPRange: PINNED_RANGE });
  new Link(fleet, 'london-from-paris', { source: london, target: new Cluster(fleet, 'paris'), adoptLinkerdMirrors: adopt });
  new GitOpsDelivery(fleet, 'delivery', { repoUrl: 'https://git.invalid/fleet.git', revision: 'main', flux: {} });
};

type Obj = { kind?: string; metadata: { name: string; namespace: string; uid: string; labels?: Record<string, string>; annotations?: Record<string, string>; resourceVersion?: string }; [k: string]: any };

/** Ready addresses of an Endpoints object. */
function readyInEndpoints(o: Obj): number {
  return ((o.subsets ?? []) as any[]).reduce((n, s) => n + (s.addresses?.length ?? 0), 0);
}
/** Ready endpoints of an EndpointSlice (a missing `ready` condition means ready). */
function readyInSlice(o: Obj): number {
  return ((o.endpoints ?? []) as any[]).filter((e) => e.conditions?.ready !== false).length;
}

/** One watch of one kind over the whole cluster, from a list: the state it started from and every event since. */
class Recorder {
  public readonly events: { type: string; obj: Obj }[] = [];
  public readonly initial = new Map<string, Obj>();
  public error: unknown;
  private abort: AbortController | undefined;

  constructor(
    private readonly kc: k8s.KubeConfig,
    private readonly path: string,
    private readonly list: () => Promise<{ metadata?: { resourceVersion?: string }; items: unknown[] }>,
  ) {}

  public async start(): Promise<void> {
    const list = await this.list();
    for (const o of list.items as Obj[]) this.initial.set(`${o.metadata.namespace}/${o.metadata.name}`, o);
    assert.ok(list.metadata?.resourceVersion, `${this.path}: a list has a resourceVersion`);
    this.abort = await new k8s.Watch(this.kc).watch(this.path, { resourceVersion: list.metadata.resourceVersion }, (type, obj) => {
      this.events.push({ type, obj: obj as Obj });
    }, (err) => {
      if (err && (err as Error).name !== 'AbortError') this.error ??= err;
    });
  }

  public stop(): void {
    this.abort?.abort();
  }
}

/**
 * Every moment the record shows for the mirrors: violations of "never deleted, never without a
 * ready address". Each kind is checked in its own watch's order (exact); no check compares across kinds.
 */
function gaps(services: Recorder, endpoints: Recorder, slices: Recorder): string[] {
  const problems: string[] = [];
  const mirror = (o: Obj): string => `${o.metadata.namespace}/${o.metadata.name}`;
  for (const e of services.events) {
    if (MIRRORS.includes(mirror(e.obj)) && e.type === 'DELETED') problems.push(`Service ${mirror(e.obj)} deleted`);
  }
  for (const e of endpoints.events) {
    if (!MIRRORS.includes(mirror(e.obj))) continue;
    if (e.type === 'DELETED') problems.push(`Endpoints ${mirror(e.obj)} deleted`);
    else if (readyInEndpoints(e.obj) === 0) problems.push(`Endpoints ${mirror(e.obj)} ${e.type} with no ready address (resourceVersion ${e.obj.metadata.resourceVersion})`);
  }
  // The slices of each mirror, replayed: after every event, the mirror's slices together hold a ready endpoint.
  const state = new Map(slices.initial);
  const serviceOf = (o: Obj): string => `${o.metadata.namespace}/${o.metadata.labels?.['kubernetes.io/service-name'] ?? ''}`;
  for (const e of slices.events) {
    const key = `${e.obj.metadata.namespace}/${e.obj.metadata.name}`;
    if (e.type === 'DELETED') state.delete(key);
    else state.set(key, e.obj);
    const svc = serviceOf(e.obj);
    if (!MIRRORS.includes(svc)) continue;
    const ready = [...state.values()].filter((s) => serviceOf(s) === svc).reduce((n, s) => n + readyInSlice(s), 0);
    if (ready === 0) problems.push(`${svc}: no EndpointSlice with a ready endpoint after ${e.type} of ${key}`);
  }
  return problems;
}

describe("from Linkerd's service-mirror controller to mirrorc without downtime, and back", () => {
  let fleet: KubeFleet | undefined;
  let flux: FluxController | undefined;
  let kcm: KubeControllerManager | undefined;
  let ws: Workspace | undefined;
  let skip: string | undefined;
  const recorders: Recorder[] = [];
  /** uid and ClusterIP of each mirror Service, and uid of its Endpoints, as Linkerd's controller left them. */
  const original = new Map<string, { uid: string; endpointsUid: string; clusterIP: string }>();

  before(async (t) => {
    fleet = await kubeFleetForTests(t as never, ['london', 'paris'], { readerRules: observationRules({ source: true, target: true }) });
    if (!fleet) {
      skip = kubeFleetSkipReason;
      return;
    }
    kcm = await kubeControllerManagerForTests(t as never, fleet, 'london', ['endpointslicemirroring']);
    if (!kcm) {
      skip = kubeControllerManagerSkipReason;
      return;
    }
    flux = await fluxControllerForTests(t as never, fleet, 'london');
    if (!flux) {
      skip = fluxControllerSkipReason;
      return;
    }
    await installGateway(fleet, 'paris', GATEWAY_IP);
    await applyService(fleet, 'paris', 'shop', 'web', { app: 'web', ...EXPORTED });
    await applyStatefulService(fleet, 'paris', 'data', 'kafka', 2, { app: 'kafka', ...EXPORTED });
    for (const ns of ['shop', 'data']) await ensureNamespace(fleet, 'london', ns);
    await writeAsLinkerd(fleet);
    ws = new Workspace(defineFleet, fleet.kubeconfig('reader'));
  });

  after(async () => {
    for (const r of recorders) r.stop();
    await flux?.stop();
    await kcm?.stop();
    await fleet?.stop();
    ws?.remove();
  });

  const kubectlJson = async (args: string[]): Promise<any> => JSON.parse(await fleet!.kubectl('london', [...args, '-o', 'json']));
  const get = (kind: string, key: string): Promise<any> => {
    const [ns, name] = key.split('/') as [string, string];
    return kubectlJson(['get', kind, name, '-n', ns, '--show-managed-fields']);
  };
  /** The slices of mirror `key` by their manager: Kubernetes' mirroring controller or mirrorc. */
  const slicesOf = async (key: string): Promise<{ kubernetes: number; mirrorc: number }> => {
    const [ns, name] = key.split('/') as [string, string];
    const list = await kubectlJson(['get', 'endpointslices.discovery.k8s.io', '-n', ns, '-l', `kubernetes.io/service-name=${name}`]);
    const by = (m: string): number => (list.items as Obj[]).filter((s) => s.metadata.labels?.['endpointslice.kubernetes.io/managed-by'] === m && readyInSlice(s) > 0).length;
    return { kubernetes: by(MIRRORING_MANAGED_BY), mirrorc: by('mirrorc.io') };
  };
  const waitFor = async (what: string, done: () => Promise<boolean>): Promise<void> => {
    const deadline = Date.now() + DEADLINE_MS;
    while (!(await done())) {
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}\n--- kube-controller-manager ---\n${kcm?.logTail(20)}\n--- flux ---\n${flux?.logTail(20)}`);
      await poll(250);
    }
  };
  /** synth, publish dist/ as the next revision, and wait until Flux applied it. */
  const synthAndSync = async (): Promise<void> => {
    const run = await ws!.synth();
    assert.equal(run.exitCode, ExitCode.OK, ws!.logs.join('\n'));
    const revision = await flux!.publish(ws!.dir, ['dist']);
    await flux!.waitForReady(FLUX_KUSTOMIZATION_NAME, revision);
  };
  /** THEN: every mirror is the object Linkerd's controller created (uid), with its ClusterIP, and the record shows no gap. */
  const assertNoDowntime = async (): Promise<void> => {
    for (const key of MIRRORS) {
      const svc = await get('service', key);
      const ep = await get('endpoints', key);
      const was = original.get(key)!;
      assert.equal(svc.metadata.uid, was.uid, `${key}: Service uid`);
      assert.equal(svc.spec.clusterIP, was.clusterIP, `${key}: ClusterIP`);
      assert.equal(ep.metadata.uid, was.endpointsUid, `${key}: Endpoints uid`);
    }
    const [services, endpoints, slices] = recorders as [Recorder, Recorder, Recorder];
    for (const r of recorders) assert.equal(r.error, undefined, `a watch failed: ${String(r.error)}`);
    assert.deepEqual(gaps(services, endpoints, slices), []);
  };

  test("step 0: london holds Linkerd's mirrors, and Kubernetes has mirrored their Endpoints into EndpointSlices", async (t) => {
    if (!ws) return t.skip(skip ?? 'no fleet');
    for (const key of MIRRORS) {
      const svc = await get('service', key);
      assert.equal(svc.metadata.labels['mirror.linkerd.io/cluster-name'], 'paris');
      assert.equal(svc.metadata.labels['mirrorc.io/managed'], undefined);
      assert.ok(svc.metadata.managedFields.some((f: any) => f.manager === LINKERD_MANAGER && f.operation === 'Update'), `${key}: written by ${LINKERD_MANAGER}`);
      original.set(key, { uid: svc.metadata.uid, clusterIP: svc.spec.clusterIP, endpointsUid: (await get('endpoints', key)).metadata.uid });
    }
    // The per-pod mirrors got IPs of the apiserver's dynamic band, outside london's pinned range.
    for (const key of PER_POD) assert.doesNotMatch(original.get(key)!.clusterIP, /^10\.96\.0\./, `${key} outside ${PINNED_RANGE}`);
    await waitFor("Kubernetes' mirrored slices of Linkerd's Endpoints", async () => {
      for (const key of MIRRORS) if ((await slicesOf(key)).kubernetes === 0) return false;
      return true;
    });
    // The record starts here: every event from now on is checked.
    const kc = new k8s.KubeConfig();
    kc.loadFromFile(fleet!.kubeconfig('admin'));
    kc.setCurrentContext('london');
    const core = kc.makeApiClient(k8s.CoreV1Api);
    const discovery = kc.makeApiClient(k8s.DiscoveryV1Api);
    const lists = [
      ['/api/v1/services', () => core.listServiceForAllNamespaces()],
      ['/api/v1/endpoints', () => core.listEndpointsForAllNamespaces()],
      ['/apis/discovery.k8s.io/v1/endpointslices', () => discovery.listEndpointSliceForAllNamespaces()],
    ] as const;
    for (const [path, list] of lists) {
      const r = new Recorder(kc, path, list as never);
      await r.start();
      recorders.push(r);
    }
  });

  test('without adoption, synth refuses the Linkerd mirrors by name and says how to adopt them', async (t) => {
    if (!ws) return t.skip(skip ?? 'no fleet');
    adopt = false;
    try {
      const run = await ws.synth();
      assert.equal(run.exitCode, ExitCode.OK, ws.logs.join('\n'));
      const log = ws.logs.join('\n');
      assert.match(log, /shop\/web-paris, which already exists in "london" and was not written by mirrorc; it is a mirror written by Linkerd's service-mirror controller for target "paris": to take it over in place, set adoptLinkerdMirrors: true/);
      assert.ok(!ws.paths('london').some((p) => p.includes('web-paris')), ws.paths('london').join('\n'));
    } finally {
      adopt = true;
      ws.remove();
      ws = new Workspace(defineFleet, fleet!.kubeconfig('reader'));
    }
  });

  test('takeover: with adoptLinkerdMirrors, Flux applies mirrorc\'s output over the same objects; nothing is recreated or emptied', async (t) => {
    if (!ws) return t.skip(skip ?? 'no fleet');
    // GIVEN Linkerd's controller is stopped (runbook step 1; here it never ran)
    // WHEN plan, then synth, run with adoption on
    const printed: string[] = [];
    const plan = await ws.synth({ mode: 'plan', print: (line) => printed.push(line) });
    assert.equal(plan.exitCode, ExitCode.OK, ws.logs.join('\n'));
    assert.ok(printed.includes("adopted from Linkerd's service-mirror controller: london: 4 Services taken over in place (data/kafka-0-paris, data/kafka-1-paris, data/kafka-paris, shop/web-paris)"), printed.join('\n'));
    const run = await ws.synth();
    assert.equal(run.exitCode, ExitCode.OK, ws.logs.join('\n'));
    // THEN the lock pins the per-pod mirrors at the ClusterIPs the source gave them (read from london)
    const pinned = JSON.parse(readFileSync(ws.lockFile, 'utf8')).compiled.pinnedServiceIPs.london as Record<string, string>;
    assert.deepEqual(pinned, Object.fromEntries(PER_POD.map((k) => [k, original.get(k)!.clusterIP])));
    // AND Flux applies it: one Kustomization (prune on) over dist/london, whose kustomization.yaml lists
    // its delivery units — the generated entry's source and settings, pointed at the cluster's folder,
    // so that the way back below hands over a single Kustomization (the runbook covers the generated
    // per-unit Kustomizations too, untested here)
    const entry = YAML.parse(readFileSync(join(ws.dir, 'delivery', 'flux', 'london', 'kustomization-mirrorc.yaml'), 'utf8'));
    const single = { ...entry, spec: { ...entry.spec, path: './dist/london', prune: true } };
    await fleet!.kubectl('london', ['apply', '--server-side', '--field-manager=flux-bootstrap', '-f', '-'], JSON.stringify(single));
    const revision = await flux!.publish(ws.dir, ['dist']);
    await flux!.waitForReady(FLUX_KUSTOMIZATION_NAME, revision);
    // AND every mirror is now mirrorc's (its label), the same object, same ClusterIP, never deleted or emptied
    for (const key of MIRRORS) assert.equal((await get('service', key)).metadata.labels['mirrorc.io/managed'], 'true', key);
    await assertNoDowntime();
    // AND both Kubernetes' slice and mirrorc's serve each mirror meanwhile: the Endpoints are not skip-mirror yet
    for (const key of MIRRORS) {
      assert.equal((await get('endpoints', key)).metadata.labels['endpointslice.kubernetes.io/skip-mirror'], undefined, key);
      assert.deepEqual(await slicesOf(key), { kubernetes: 1, mirrorc: 1 }, key);
    }
  });

  test("after the controller and Link are gone, adoption off: Kubernetes removes its slices, mirrorc's serve; IPs stay on later runs", async (t) => {
    if (!ws) return t.skip(skip ?? 'no fleet');
    // WHEN the link stops adopting (runbook step 5) and synth + Flux run
    adopt = false;
    const run = await ws.synth();
    assert.equal(run.exitCode, ExitCode.OK, ws.logs.join('\n'));
    // THEN the per-pod mirrors keep their IPs (outside the range: observed as mirrorc's now, not re-pinned)
    const pinned = JSON.parse(readFileSync(ws.lockFile, 'utf8')).compiled.pinnedServiceIPs.london as Record<string, string>;
    assert.deepEqual(pinned, Object.fromEntries(PER_POD.map((k) => [k, original.get(k)!.clusterIP])));
    const revision = await flux!.publish(ws.dir, ['dist']);
    await flux!.waitForReady(FLUX_KUSTOMIZATION_NAME, revision);
    // AND the Endpoints say skip-mirror, and Kubernetes' mirroring controller deletes its slices
    for (const key of MIRRORS) assert.equal((await get('endpoints', key)).metadata.labels['endpointslice.kubernetes.io/skip-mirror'], 'true', key);
    await waitFor("Kubernetes' mirrored slices to be gone", async () => {
      for (const key of MIRRORS) if ((await slicesOf(key)).kubernetes !== 0) return false;
      return true;
    });
    for (const key of MIRRORS) assert.deepEqual(await slicesOf(key), { kubernetes: 0, mirrorc: 1 }, key);
    await assertNoDowntime();
  });

  test("the way back: mirrorc's output handed to Linkerd's controller without pruning; nothing recreated or emptied", async (t) => {
    if (!ws) return t.skip(skip ?? 'no fleet');
    // WHEN (back step 1) adoption is on again: Kubernetes mirrors the Endpoints beside mirrorc's slices
    adopt = true;
    await synthAndSync();
    await waitFor("Kubernetes' mirrored slices again", async () => {
      for (const key of MIRRORS) if ((await slicesOf(key)).kubernetes === 0) return false;
      return true;
    });
    // AND (back step 2) Flux stops pruning this Kustomization, then the Kustomization is deleted
    await fleet!.kubectl('london', ['patch', 'kustomizations.kustomize.toolkit.fluxcd.io', FLUX_KUSTOMIZATION_NAME, '-n', 'flux-system', '--type=merge', '-p', JSON.stringify({ spec: { prune: false } })]);
    const generation = (await flux!.kustomization(FLUX_KUSTOMIZATION_NAME)).metadata.generation;
    await flux!.waitFor(FLUX_KUSTOMIZATION_NAME, 'prune: false observed', (k) => k.status?.observedGeneration === generation && (k.status?.conditions ?? []).some((c) => c.type === 'Ready' && c.status === 'True'));
    await fleet!.kubectl('london', ['delete', 'kustomizations.kustomize.toolkit.fluxcd.io', FLUX_KUSTOMIZATION_NAME, '-n', 'flux-system', '--wait=true', '--timeout=300s']);
    for (const key of MIRRORS) assert.equal((await get('service', key)).metadata.uid, original.get(key)!.uid, `${key} kept when the Kustomization went`);
    // AND (back step 3) every mirror Service is marked as Linkerd's, so its controller updates it in place
    for (const ns of ['shop', 'data']) {
      await fleet!.kubectl('london', ['annotate', 'service', '-n', ns, '-l', 'mirror.linkerd.io/cluster-name=paris,mirrorc.io/managed=true', '--overwrite', 'mirror.linkerd.io/remote-resource-version=0']);
    }
    // AND (back step 4) Linkerd's controller starts and updates each mirror in place — STAND-IN: the test
    //     makes its writes (Update of Service and Endpoints with its labels), see the file comment
    await rewriteAsLinkerd(fleet!);
    // AND (back step 5) mirrorc's own slices are deleted: Kubernetes' slices serve the same addresses
    await fleet!.kubectl('london', ['delete', 'endpointslices.discovery.k8s.io', '-A', '-l', 'endpointslice.kubernetes.io/managed-by=mirrorc.io,mirror.linkerd.io/cluster-name=paris']);
    // THEN the mirrors are Linkerd's again: no mirrorc label, Kubernetes' slices only, same objects and IPs, no gap
    for (const key of MIRRORS) {
      assert.equal((await get('service', key)).metadata.labels['mirrorc.io/managed'], undefined, key);
      assert.deepEqual(await slicesOf(key), { kubernetes: 1, mirrorc: 0 }, key);
    }
    await assertNoDowntime();
    // AND the record did see the whole migration (so the no-gap assertion had something to check)
    const [, endpoints, slices] = recorders as [Recorder, Recorder, Recorder];
    assert.ok(endpoints.events.some((e) => e.obj.metadata.labels?.['endpointslice.kubernetes.io/skip-mirror'] === 'true'), 'saw skip-mirror set');
    assert.ok(slices.events.filter((e) => e.type === 'DELETED').length >= 2 * MIRRORS.length, 'saw both slice handovers');
  });
});

// ---------------------------------------------------------------------------------------------
// What Linkerd's controller writes (contract §2.2, §2.5)
// ---------------------------------------------------------------------------------------------

/** Labels Linkerd copies from a remote Service: all but `mirror.linkerd.io*`, plus its two own. */
function linkerdLabels(remote: Record<string, string>, extra: Record<string, string> = {}): Record<string, string> {
  const copied = Object.fromEntries(Object.entries(remote).filter(([k]) => !k.startsWith('mirror.linkerd.io')));
  return { ...copied, 'mirror.linkerd.io/mirrored-service': 'true', 'mirror.linkerd.io/cluster-name': 'paris', ...extra };
}

/** The objects of Linkerd's mirrors in london: Services (for `create` or `replace`) then Endpoints, given the per-pod ClusterIPs once known. */
async function linkerdObjects(fleet: KubeFleet, podIPs?: Record<string, string>): Promise<{ services: any[]; endpoints: any[] }> {
  const web = JSON.parse(await fleet.kubectl('paris', ['get', 'service', 'web', '-n', 'shop', '-o', 'json']));
  const kafka = JSON.parse(await fleet.kubectl('paris', ['get', 'service', 'kafka', '-n', 'data', '-o', 'json']));
  const gatewayPorts = (ports: any[]): any[] => ports.map((p) => ({ name: p.name, port: 4143, protocol: p.protocol }));
  const servicePorts = (ports: any[]): any[] => ports.map((p) => ({ name: p.name, protocol: p.protocol, port: p.port, targetPort: p.targetPort }));
  const mirrorEndpoints = (ns: string, name: string, labels: Record<string, string>, fq: string, ports: any[]): any => ({
    apiVersion: 'v1',
    kind: 'Endpoints',
    metadata: { name, namespace: ns, labels, annotations: { 'mirror.linkerd.io/remote-svc-fq-name': fq, 'mirror.linkerd.io/remote-gateway-identity': GATEWAY_IDENTITY } },
    subsets: [{ addresses: [{ ip: GATEWAY_IP }], ports: gatewayPorts(ports) }],
  });
  const service = (ns: string, name: string, labels: Record<string, string>, annotations: Record<string, string>, ports: any[], headless = false): any => ({
    apiVersion: 'v1',
    kind: 'Service',
    metadata: { name, namespace: ns, labels, annotations },
    spec: { ports: servicePorts(ports), ...(headless ? { clusterIP: 'None' } : {}) },
  });
  const webLabels = linkerdLabels(web.metadata.labels);
  const kafkaLabels = linkerdLabels(kafka.metadata.labels);
  const services = [
    service('shop', 'web-paris', webLabels, { 'mirror.linkerd.io/remote-svc-fq-name': 'web.shop.svc.cluster.local', 'mirror.linkerd.io/remote-resource-version': web.metadata.resourceVersion }, web.spec.ports),
    service('data', 'kafka-paris', kafkaLabels, { 'mirror.linkerd.io/remote-svc-fq-name': 'kafka.data.svc.cluster.local', 'mirror.linkerd.io/remote-resource-version': kafka.metadata.resourceVersion }, kafka.spec.ports, true),
    ...[0, 1].map((i) =>
      service('data', `kafka-${i}-paris`, linkerdLabels(kafka.metadata.labels, { 'mirror.linkerd.io/headless-mirror-svc-name': 'kafka-paris' }), {
        'mirror.linkerd.io/remote-resource-version': kafka.metadata.resourceVersion,
        'mirror.linkerd.io/remote-svc-fq-name': `kafka-${i}.kafka.data.svc.cluster.local`,
      }, kafka.spec.ports),
    ),
  ];
  const endpoints = [
    mirrorEndpoints('shop', 'web-paris', webLabels, 'web.shop.svc.cluster.local', web.spec.ports),
    ...[0, 1].map((i) => mirrorEndpoints('data', `kafka-${i}-paris`, linkerdLabels(kafka.metadata.labels, { 'mirror.linkerd.io/headless-mirror-svc-name': 'kafka-paris' }), `kafka-${i}.kafka.data.svc.cluster.local`, kafka.spec.ports)),
  ];
  if (podIPs) {
    endpoints.push({
      apiVersion: 'v1',
      kind: 'Endpoints',
      metadata: { name: 'kafka-paris', namespace: 'data', labels: kafkaLabels, annotations: { 'mirror.linkerd.io/remote-svc-fq-name': 'kafka.data.svc.cluster.local', 'mirror.linkerd.io/remote-gateway-identity': GATEWAY_IDENTITY } },
      subsets: [{ addresses: [0, 1].map((i) => ({ hostname: `kafka-${i}`, ip: podIPs[`kafka-${i}-paris`] })), ports: [{ name: 'client', port: 9092, protocol: 'TCP' }] }],
    });
  }
  return { services, endpoints };
}

/** Creates london's mirrors as Linkerd's controller does on first sync: plain creates (operation Update), ClusterIPs allocated by the apiserver. */
async function writeAsLinkerd(fleet: KubeFleet): Promise<void> {
  const first = await linkerdObjects(fleet);
  for (const o of first.services) await fleet.kubectl('london', ['create', `--field-manager=${LINKERD_MANAGER}`, '-f', '-'], JSON.stringify(o));
  const podIPs: Record<string, string> = {};
  for (const i of [0, 1]) podIPs[`kafka-${i}-paris`] = JSON.parse(await fleet.kubectl('london', ['get', 'service', `kafka-${i}-paris`, '-n', 'data', '-o', 'json'])).spec.clusterIP;
  const all = await linkerdObjects(fleet, podIPs);
  for (const o of all.endpoints) await fleet.kubectl('london', ['create', `--field-manager=${LINKERD_MANAGER}`, '-f', '-'], JSON.stringify(o));
}

/**
 * STAND-IN for Linkerd's controller restarting over mirrors it takes as its own (contract §3: a
 * Service with `remote-resource-version` different from the remote's is updated in place): an Update
 * (`replace`, same verbs as client-go's Update) of each Service with its labels and annotations, the
 * live spec kept (clusterIP is immutable), then of each Endpoints with its form of them.
 */
async function rewriteAsLinkerd(fleet: KubeFleet): Promise<void> {
  const podIPs: Record<string, string> = {};
  for (const i of [0, 1]) podIPs[`kafka-${i}-paris`] = JSON.parse(await fleet.kubectl('london', ['get', 'service', `kafka-${i}-paris`, '-n', 'data', '-o', 'json'])).spec.clusterIP;
  const { services, endpoints } = await linkerdObjects(fleet, podIPs);
  for (const o of [...services, ...endpoints]) {
    const kind = o.kind === 'Service' ? 'service' : 'endpoints';
    const live = JSON.parse(await fleet.kubectl('london', ['get', kind, o.metadata.name, '-n', o.metadata.namespace, '-o', 'json']));
    const next = { ...live, metadata: { ...live.metadata, labels: o.metadata.labels, annotations: o.metadata.annotations }, ...(o.kind === 'Service' ? { spec: { ...live.spec, ports: o.spec.ports } } : { subsets: o.subsets }) };
    delete next.metadata.managedFields;
    await fleet.kubectl('london', ['replace', `--field-manager=${LINKERD_MANAGER}`, '-f', '-'], JSON.stringify(next));
  }
}
