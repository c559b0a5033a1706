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
 * references, Linkerd sets none), and the EndpointSlices Kubernetes mirrored from them. london also
 * mirrors rome (`api`, `cart`) with mirrorc from the start, in mirrorc's own form (its slices,
 * `skip-mirror`): those are the mirrors whose slices the way back must retire.
 *
 * What is asserted is what Linkerd's destination answers, not only what the objects show: a watch on
 * london's Services, Endpoints and EndpointSlices records every event, and the events, in the order
 * etcd gave them (resourceVersion), are fed to a model of the destination's endpoint bookkeeping
 * (test/harness/linkerd-destination-model.ts, transcribed from its code). After every event, every
 * mirror must answer exactly the addresses it answered under Linkerd's controller (paris) or when
 * mirrorc created it (rome): never none, never others. The objects' own checks stay: no mirror
 * Service or Endpoints deleted, no uid or ClusterIP changed.
 *
 * Linkerd's controller itself cannot run here (the Go module proxy refuses github.com/linkerd/linkerd2).
 * It is stopped before mirrorc takes over, so the takeover needs none of it. On the way back, its
 * writes after a restart are computed by a model of its code (test/harness/linkerd-service-mirror-model.ts)
 * from the live objects, and the test makes exactly those writes with its verbs: the one stand-in.
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
import { RETIRED_SERVICE_NAME } from '../../src/contract/mirrorc.js';
import { Cluster, GitOpsDelivery, Link } from '../../src/model/index.js';
import { observationRules } from '../../src/observe/observation-rbac.js';
import { fluxControllerForTests, fluxControllerSkipReason, type FluxController } from '../harness/flux-controller.js';
import { kubeControllerManagerForTests, kubeControllerManagerSkipReason, type KubeControllerManager } from '../harness/kube-controller-manager.js';
import { kubeFleetForTests, kubeFleetSkipReason, type KubeFleet } from '../harness/kube-fleet.js';
import { DestinationModel, type Address } from '../harness/linkerd-destination-model.js';
import { exportedServiceUpdates, headlessEndpointsUpdates, orphanedServiceDeletes, repairEndpoints, type EndpointsJson, type MirrorWorld, type MirrorWrite, type ServiceJson } from '../harness/linkerd-service-mirror-model.js';
import { applyService, applySlice, applyStatefulService, ensureNamespace, GATEWAY_IDENTITY, installGateway, Workspace } from './support.js';

const EXPORTED = { 'mirror.linkerd.io/exported': 'true' };
const GATEWAY_IP = '203.0.113.10';
const ROME_GATEWAY_IP = '203.0.113.20';
const PINNED_RANGE = '10.96.0.0/24';
/** The field manager Linkerd's controller writes with: client-go's Create/Update (operation Update), named after its binary. The name matters to nothing below. */
const LINKERD_MANAGER = 'service-mirror';
/** Flux's field manager: an object applied by hand under it is what Flux would have applied. */
const FLUX_MANAGER = 'kustomize-controller';
const MIRRORING_MANAGED_BY = 'endpointslicemirroring-controller.k8s.io';
/** The mirrors Linkerd's controller wrote, `namespace/name`, and the port a client resolves them on. */
const PARIS_MIRRORS: Record<string, number> = { 'shop/web-paris': 80, 'data/kafka-paris': 9092, 'data/kafka-0-paris': 9092, 'data/kafka-1-paris': 9092 };
/** The mirrors mirrorc writes for rome from the start. */
const ROME_MIRRORS: Record<string, number> = { 'shop/api-rome': 80, 'shop/cart-rome': 80 };
const MIRRORS = Object.keys(PARIS_MIRRORS);
const ALL_MIRRORS = { ...PARIS_MIRRORS, ...ROME_MIRRORS };
const PER_POD = ['data/kafka-0-paris', 'data/kafka-1-paris'];
const poll = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));
const DEADLINE_MS = 300_000;

/** Which links adopt Linkerd's mirrors (Linkerd's form): paris for the takeover, rome too for the way back. */
const adopt = { paris: true, rome: false };

const defineFleet: FleetDefinition = (fleet) => {
  const london = new Cluster(fleet, 'london', { pinnedServiceIPRange: PINNED_RANGE });
  new Link(fleet, 'london-from-paris', { source: london, target: new Cluster(fleet, 'paris'), adoptLinkerdMirrors: adopt.paris });
  new Link(fleet, 'london-from-rome', { source: london, target: new Cluster(fleet, 'rome'), adoptLinkerdMirrors: adopt.rome });
  new GitOpsDelivery(fleet, 'delivery', { repoUrl: 'https://git.invalid/fleet.git', revision: 'main', flux: {} });
};

type Obj = { kind?: string; metadata: { name: string; namespace: string; uid: string; labels?: Record<string, string>; annotations?: Record<string, string>; resourceVersion?: string }; [k: string]: any };
type Recorded = { type: string; obj: Obj; kind: 'Service' | 'Endpoints' | 'EndpointSlice' };

/** Ready addresses of an Endpoints object. */
function readyInEndpoints(o: Obj): number {
  return ((o.subsets ?? []) as any[]).reduce((n, s) => n + (s.addresses?.length ?? 0), 0);
}
/** Ready endpoints of an EndpointSlice (a missing `ready` condition means ready). */
function readyInSlice(o: Obj): number {
  return ((o.endpoints ?? []) as any[]).filter((e) => e.conditions?.ready !== false).length;
}
const keyOf = (o: Obj): string => `${o.metadata.namespace}/${o.metadata.name}`;

/** One watch of one kind over the whole cluster, from a list: the state it started from and every event since. */
class Recorder {
  public readonly events: Recorded[] = [];
  public readonly initial: Obj[] = [];
  public error: unknown;
  private abort: AbortController | undefined;

  constructor(
    private readonly kc: k8s.KubeConfig,
    public readonly kind: Recorded['kind'],
    private readonly path: string,
    private readonly list: () => Promise<{ metadata?: { resourceVersion?: string }; items: unknown[] }>,
  ) {}

  public async start(): Promise<void> {
    const list = await this.list();
    this.initial.push(...(list.items as Obj[]));
    assert.ok(list.metadata?.resourceVersion, `${this.path}: a list has a resourceVersion`);
    this.abort = await new k8s.Watch(this.kc).watch(this.path, { resourceVersion: list.metadata.resourceVersion }, (type, obj) => {
      this.events.push({ type, obj: obj as Obj, kind: this.kind });
    }, (err) => {
      if (err && (err as Error).name !== 'AbortError') this.error ??= err;
    });
  }

  public stop(): void {
    this.abort?.abort();
  }
}

/**
 * The object-level record: no mirror Service or Endpoints deleted, no mirror's Endpoints without a
 * ready address. Each kind in its own watch's order.
 */
function objectGaps(services: Recorder, endpoints: Recorder): string[] {
  const problems: string[] = [];
  const mirrors = Object.keys(ALL_MIRRORS);
  for (const e of services.events) {
    if (mirrors.includes(keyOf(e.obj)) && e.type === 'DELETED') problems.push(`Service ${keyOf(e.obj)} deleted`);
  }
  for (const e of endpoints.events) {
    if (!mirrors.includes(keyOf(e.obj))) continue;
    if (e.type === 'DELETED') problems.push(`Endpoints ${keyOf(e.obj)} deleted`);
    else if (readyInEndpoints(e.obj) === 0) problems.push(`Endpoints ${keyOf(e.obj)} ${e.type} with no ready address (resourceVersion ${e.obj.metadata.resourceVersion})`);
  }
  return problems;
}

const show = (a: readonly Address[]): string => JSON.stringify(a);

/** A destination model that has seen the record's initial lists, with a client subscribed to every mirror from the start. */
function startedModel(services: Recorder, slices: Recorder): DestinationModel {
  const model = new DestinationModel();
  for (const s of services.initial) model.service(s as never);
  for (const s of slices.initial) model.apply({ type: 'ADDED', obj: s as never });
  for (const [key, port] of Object.entries(ALL_MIRRORS)) {
    const [ns, name] = key.split('/') as [string, string];
    model.subscribe(ns, name, port);
  }
  return model;
}

/** One recorded Service or EndpointSlice event, as the destination's informers hand it over. */
function feed(model: DestinationModel, e: Recorded): void {
  if (e.kind === 'Service') {
    if (e.type === 'DELETED') model.deleteService(e.obj as never);
    else model.service(e.obj as never);
  } else {
    model.apply({ type: e.type as 'ADDED' | 'MODIFIED' | 'DELETED', obj: e.obj as never });
  }
}

/**
 * A check of every mirror's answer against `expected`, for one model: a rome mirror is checked from
 * its first answer on (it does not exist before mirrorc creates it).
 */
function answerChecker(model: DestinationModel, expected: Map<string, Address[]>, problems: string[]): (after: string) => void {
  const answering = new Set<string>();
  return (after) => {
    for (const [key, port] of Object.entries(ALL_MIRRORS)) {
      const [ns, name] = key.split('/') as [string, string];
      const got = model.addresses(ns, name, port);
      const want = expected.get(key);
      if (want === undefined) throw new Error(`no expected answer for ${key}`);
      if (key in ROME_MIRRORS && !answering.has(key)) {
        if (got.length === 0) continue;
        answering.add(key);
      }
      if (show(got) !== show(want)) problems.push(`${key} answered ${show(got)} instead of ${show(want)} after ${after}`);
    }
  };
}

/**
 * The model takes the Service and EndpointSlice informers' events in one order (etcd's), while the
 * destination's two informers deliver independently. A Service event acts on a subscribed port only
 * when it changes that port's target (SP updateService → PP updatePort re-lists the slices) or
 * deletes the Service (objectGaps forbids it); so when no recorded Service event changes a mirror's
 * target port (the service port's name, EW getTargetPort), any interleaving gives the same answers.
 */
function targetPortChanges(services: Recorder): string[] {
  const portName = (o: Obj, port: number): string | null => ((o.spec?.ports ?? []) as { name?: string; port: number }[]).find((p) => p.port === port)?.name ?? null;
  const seen = new Map<string, string | null>();
  for (const o of services.initial) if (keyOf(o) in ALL_MIRRORS) seen.set(keyOf(o), portName(o, ALL_MIRRORS[keyOf(o)]!));
  const problems: string[] = [];
  for (const e of services.events) {
    const key = keyOf(e.obj);
    if (!(key in ALL_MIRRORS) || e.type === 'DELETED') continue;
    const name = portName(e.obj, ALL_MIRRORS[key]!);
    if (seen.has(key) && seen.get(key) !== name) problems.push(`Service ${key} (resourceVersion ${e.obj.metadata.resourceVersion}) changed the target of port ${ALL_MIRRORS[key]} from ${JSON.stringify(seen.get(key))} to ${JSON.stringify(name)}: the informers' interleaving would matter`);
    seen.set(key, name);
  }
  return problems;
}

/**
 * What Linkerd's destination answers, event by event: the Services and EndpointSlices of the record,
 * merged in etcd's order (resourceVersion: one etcd serves every cluster of the harness, and a
 * watch's events carry the revision that made them), fed to the destination model, with a client
 * subscribed to every mirror from the start. Returns every event after which a mirror answered
 * anything but its expected addresses. Then the same with the destination's informer resync
 * (OnUpdate(obj, obj) of every stored slice, every 10 minutes) falling at each point of the record
 * in turn: the record replayed once per point, a resync there, every later event checked again.
 */
function destinationGaps(services: Recorder, slices: Recorder, expected: Map<string, Address[]>): { problems: string[]; events: number } {
  const events = [...services.events, ...slices.events].sort((a, b) => Number(a.obj.metadata.resourceVersion) - Number(b.obj.metadata.resourceVersion));
  const what = (e: Recorded): string => `${e.type} ${e.kind} ${keyOf(e.obj)} (resourceVersion ${e.obj.metadata.resourceVersion})`;
  const problems: string[] = targetPortChanges(services);
  const model = startedModel(services, slices);
  const check = answerChecker(model, expected, problems);
  check('the initial lists');
  for (const e of events) {
    feed(model, e);
    check(what(e));
  }
  for (const key of Object.keys(ROME_MIRRORS)) if (!model.addresses(...(key.split('/') as [string, string]), ROME_MIRRORS[key]!).length) problems.push(`${key} answers nothing at the end`);
  for (let k = 0; k <= events.length && problems.length < 20; k++) {
    const replay = startedModel(services, slices);
    const resynced = answerChecker(replay, expected, problems);
    resynced('the initial lists');
    for (const e of events.slice(0, k)) {
      feed(replay, e);
      resynced(what(e));
    }
    replay.resync();
    const at = k === 0 ? 'the initial lists' : what(events[k - 1]!);
    resynced(`a resync right after ${at}`);
    for (const e of events.slice(k)) {
      feed(replay, e);
      resynced(`${what(e)}, with a resync after ${at}`);
    }
  }
  return { problems: [...new Set(problems)].slice(0, 20), events: events.length };
}

describe("from Linkerd's service-mirror controller to mirrorc without downtime, and back, as Linkerd's destination sees it", () => {
  let fleet: KubeFleet | undefined;
  let flux: FluxController | undefined;
  let kcm: KubeControllerManager | undefined;
  let ws: Workspace | undefined;
  let skip: string | undefined;
  const recorders: Recorder[] = [];
  /** uid and ClusterIP of each mirror Service, and uid of its Endpoints, as Linkerd's controller left them (rome: as mirrorc created them). */
  const original = new Map<string, { uid: string; endpointsUid: string; clusterIP: string }>();
  /** What each mirror answers in Linkerd's destination: under Linkerd's controller (paris), once mirrorc created it (rome). */
  const expected = new Map<string, Address[]>();
  /** The label keys of each paris mirror as Linkerd's controller wrote them. */
  const linkerdLabelKeys = new Map<string, string[]>();

  before(async (t) => {
    fleet = await kubeFleetForTests(t as never, ['london', 'paris', 'rome'], { readerRules: observationRules({ source: true, target: true }) });
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
    await installGateway(fleet, 'rome', ROME_GATEWAY_IP);
    await applyService(fleet, 'paris', 'shop', 'web', { app: 'web', ...EXPORTED });
    await applySlice(fleet, 'paris', 'shop', 'web', [true]);
    await applyStatefulService(fleet, 'paris', 'data', 'kafka', 2, { app: 'kafka', ...EXPORTED });
    for (const svc of ['api', 'cart']) {
      await applyService(fleet, 'rome', 'shop', svc, { app: svc, ...EXPORTED });
      await applySlice(fleet, 'rome', 'shop', svc, [true]);
    }
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

  const kubectlJson = async (cluster: string, args: string[]): Promise<any> => JSON.parse(await fleet!.kubectl(cluster, [...args, '-o', 'json']));
  const get = (kind: string, key: string): Promise<any> => {
    const [ns, name] = key.split('/') as [string, string];
    return kubectlJson('london', ['get', kind, name, '-n', ns, '--show-managed-fields']);
  };
  /** The slices of mirror `key`: Kubernetes' mirrored ones and mirrorc's live ones (with a ready endpoint), and mirrorc's retired ones. */
  const slicesOf = async (key: string): Promise<{ kubernetes: number; mirrorc: number; retired: number }> => {
    const [ns, name] = key.split('/') as [string, string];
    const live = (await kubectlJson('london', ['get', 'endpointslices.discovery.k8s.io', '-n', ns, '-l', `kubernetes.io/service-name=${name}`])).items as Obj[];
    const retired = (await kubectlJson('london', ['get', 'endpointslices.discovery.k8s.io', '-n', ns, '-l', `kubernetes.io/service-name=${RETIRED_SERVICE_NAME},mirrorc.io/retired-from=${name}`])).items as Obj[];
    const by = (m: string): number => live.filter((s) => s.metadata.labels?.['endpointslice.kubernetes.io/managed-by'] === m && readyInSlice(s) > 0).length;
    return { kubernetes: by(MIRRORING_MANAGED_BY), mirrorc: by('mirrorc.io'), retired: retired.length };
  };
  const waitFor = async (what: string, done: () => Promise<boolean>): Promise<void> => {
    const deadline = Date.now() + DEADLINE_MS;
    while (!(await done())) {
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}\n--- kube-controller-manager ---\n${kcm?.logTail(20)}\n--- flux ---\n${flux?.logTail(20)}`);
      await poll(250);
    }
  };
  const kubernetesSlicesFor = (mirrors: readonly string[]): Promise<void> =>
    waitFor(`Kubernetes' mirrored slices of ${mirrors.join(', ')}`, async () => {
      for (const key of mirrors) if ((await slicesOf(key)).kubernetes === 0) return false;
      return true;
    });
  const synthOk = async (): Promise<void> => {
    const run = await ws!.synth();
    assert.equal(run.exitCode, ExitCode.OK, ws!.logs.join('\n'));
  };
  /** Publishes dist/ as the next revision and waits until Flux applied it. */
  const sync = async (): Promise<void> => {
    const revision = await flux!.publish(ws!.dir, ['dist']);
    await flux!.waitForReady(FLUX_KUSTOMIZATION_NAME, revision);
  };
  /** The objects synth wrote for london, as kustomize builds them. */
  const written = async (): Promise<Obj[]> => YAML.parseAllDocuments(await fleet!.kubectl('london', ['kustomize', join(ws!.outDir, 'london')])).map((d) => d.toJSON() as Obj);
  /** THEN: every mirror is the object it was (uid, ClusterIP), the objects never lost an address, and the destination never answered anything else. */
  const assertNoDowntime = async (): Promise<void> => {
    for (const [key, was] of original) {
      const svc = await get('service', key);
      const ep = await get('endpoints', key);
      assert.equal(svc.metadata.uid, was.uid, `${key}: Service uid`);
      assert.equal(svc.spec.clusterIP, was.clusterIP, `${key}: ClusterIP`);
      assert.equal(ep.metadata.uid, was.endpointsUid, `${key}: Endpoints uid`);
    }
    const [services, endpoints, slices] = recorders as [Recorder, Recorder, Recorder];
    for (const r of recorders) assert.equal(r.error, undefined, `a watch failed: ${String(r.error)}`);
    assert.deepEqual(objectGaps(services, endpoints), []);
    assert.deepEqual(destinationGaps(services, slices, expected).problems, []);
  };

  test("step 0: london holds Linkerd's mirrors, Kubernetes has mirrored their Endpoints, and the destination answers each one", async (t) => {
    if (!ws) return t.skip(skip ?? 'no fleet');
    for (const key of MIRRORS) {
      const svc = await get('service', key);
      assert.equal(svc.metadata.labels['mirror.linkerd.io/cluster-name'], 'paris');
      assert.equal(svc.metadata.labels['mirrorc.io/managed'], undefined);
      assert.ok(svc.metadata.managedFields.some((f: any) => f.manager === LINKERD_MANAGER && f.operation === 'Update'), `${key}: written by ${LINKERD_MANAGER}`);
      original.set(key, { uid: svc.metadata.uid, clusterIP: svc.spec.clusterIP, endpointsUid: (await get('endpoints', key)).metadata.uid });
      linkerdLabelKeys.set(key, Object.keys(svc.metadata.labels));
    }
    // Linkerd copied the targets' last-applied-configuration onto the mirrors (the case where a hand-run
    // `kubectl apply --server-side` dropped Linkerd's labels and remote-resource-version, issue 34)
    for (const key of ['shop/web-paris', 'data/kafka-paris']) assert.ok((await get('service', key)).metadata.annotations['kubectl.kubernetes.io/last-applied-configuration'], key);
    // The per-pod mirrors got IPs of the apiserver's dynamic band, outside london's pinned range.
    for (const key of PER_POD) assert.doesNotMatch(original.get(key)!.clusterIP, /^10\.96\.0\./, `${key} outside ${PINNED_RANGE}`);
    await kubernetesSlicesFor(MIRRORS);
    // The record starts here: every event from now on is checked.
    const kc = new k8s.KubeConfig();
    kc.loadFromFile(fleet!.kubeconfig('admin'));
    kc.setCurrentContext('london');
    const core = kc.makeApiClient(k8s.CoreV1Api);
    const discovery = kc.makeApiClient(k8s.DiscoveryV1Api);
    const lists = [
      ['Service', '/api/v1/services', () => core.listServiceForAllNamespaces()],
      ['Endpoints', '/api/v1/endpoints', () => core.listEndpointsForAllNamespaces()],
      ['EndpointSlice', '/apis/discovery.k8s.io/v1/endpointslices', () => discovery.listEndpointSliceForAllNamespaces()],
    ] as const;
    for (const [kind, path, list] of lists) {
      const r = new Recorder(kc, kind, path, list as never);
      await r.start();
      recorders.push(r);
    }
    // What the destination answers under Linkerd's controller: the gateway for web and each pod, the
    // per-pod ClusterIPs (with the pods' hostnames) for the headless root. This is "correct" from now on.
    const model = new DestinationModel();
    for (const s of recorders[0]!.initial) model.service(s as never);
    for (const s of recorders[2]!.initial) model.apply({ type: 'ADDED', obj: s as never });
    for (const [key, port] of Object.entries(PARIS_MIRRORS)) {
      const [ns, name] = key.split('/') as [string, string];
      model.subscribe(ns, name, port);
      expected.set(key, model.addresses(ns, name, port));
    }
    assert.deepEqual(expected.get('shop/web-paris')!.map((a) => [a.ip, a.port, a.identity]), [[GATEWAY_IP, 4143, GATEWAY_IDENTITY]]);
    for (const key of PER_POD) assert.deepEqual(expected.get(key)!.map((a) => [a.ip, a.port]), [[GATEWAY_IP, 4143]], key);
    const byHostname = (rows: (string | number | undefined)[][]): (string | number | undefined)[][] => [...rows].sort((a, b) => String(a[0]).localeCompare(String(b[0])));
    assert.deepEqual(byHostname(expected.get('data/kafka-paris')!.map((a) => [a.hostname, a.ip, a.port])), [0, 1].map((i) => [`kafka-${i}`, original.get(`data/kafka-${i}-paris`)!.clusterIP, 9092]));
  });

  test('without adoption, synth refuses the Linkerd mirrors by name and says how to adopt them, without --verbose', async (t) => {
    if (!ws) return t.skip(skip ?? 'no fleet');
    adopt.paris = false;
    try {
      const run = await ws.synth();
      assert.equal(run.exitCode, ExitCode.OK, ws.logs.join('\n'));
      const log = ws.logs.join('\n');
      assert.match(log, /shop\/web-paris, which already exists in "london" and was not written by mirrorc; it is a mirror written by Linkerd's service-mirror controller for target "paris": to take it over in place, set adoptLinkerdMirrors: true/);
      assert.ok(!ws.paths('london').some((p) => p.includes('web-paris')), ws.paths('london').join('\n'));
    } finally {
      adopt.paris = true;
      ws.remove();
      ws = new Workspace(defineFleet, fleet!.kubeconfig('reader'));
    }
  });

  test("takeover: with adoptLinkerdMirrors, Flux applies mirrorc's output over the same objects in Linkerd's form; no slice is deleted and the destination never answers otherwise", async (t) => {
    if (!ws) return t.skip(skip ?? 'no fleet');
    // GIVEN Linkerd's controller is stopped (runbook step 1; here it never ran)
    // WHEN plan, then synth, run with adoption on
    const printed: string[] = [];
    const plan = await ws.synth({ mode: 'plan', print: (line) => printed.push(line) });
    assert.equal(plan.exitCode, ExitCode.OK, ws.logs.join('\n'));
    assert.ok(printed.includes("adopted from Linkerd's service-mirror controller: london: 4 Services taken over in place (data/kafka-0-paris, data/kafka-1-paris, data/kafka-paris, shop/web-paris)"), printed.join('\n'));
    await synthOk();
    // THEN the lock pins the per-pod mirrors at the ClusterIPs the source gave them (read from london)
    const pinned = JSON.parse(readFileSync(ws.lockFile, 'utf8')).compiled.pinnedServiceIPs.london as Record<string, string>;
    assert.deepEqual(pinned, Object.fromEntries(PER_POD.map((k) => [k, original.get(k)!.clusterIP])));
    // AND Flux applies it: one Kustomization (prune on) over dist/london, whose kustomization.yaml lists
    // its delivery units — the generated entry's source and settings, pointed at the cluster's folder,
    // so that the way back below hands over a single Kustomization
    const entry = YAML.parse(readFileSync(join(ws.dir, 'delivery', 'flux', 'london', 'kustomization-mirrorc.yaml'), 'utf8'));
    const single = { ...entry, spec: { ...entry.spec, path: './dist/london', prune: true } };
    await fleet!.kubectl('london', ['apply', '--server-side', '--field-manager=flux-bootstrap', '-f', '-'], JSON.stringify(single));
    await sync();
    // AND every paris mirror is now mirrorc's (its label), its Endpoints still mirrored by Kubernetes into the
    //     one slice the destination reads, mirrorc's slice of that name written retired
    for (const key of MIRRORS) {
      const svc = await get('service', key);
      assert.equal(svc.metadata.labels['mirrorc.io/managed'], 'true', key);
      // (Flux's server-side apply leaves the fields of Linkerd's field manager alone: its annotation stays)
      assert.ok(svc.metadata.annotations['mirror.linkerd.io/remote-resource-version'], `${key}: Linkerd's remote-resource-version kept`);
      //  nor does it drop a label Linkerd wrote, though the mirror carried a copied last-applied-configuration
      assert.deepEqual(linkerdLabelKeys.get(key)!.filter((k) => !(k in svc.metadata.labels)), [], `${key}: Linkerd's labels kept`);
      assert.equal((await get('endpoints', key)).metadata.labels['endpointslice.kubernetes.io/skip-mirror'], undefined, key);
      assert.deepEqual(await slicesOf(key), { kubernetes: 1, mirrorc: 0, retired: 1 }, key);
    }
    // AND rome's mirrors are mirrorc's own form: skip-mirror, mirrorc's slice only
    for (const key of Object.keys(ROME_MIRRORS)) {
      const svc = await get('service', key);
      const ep = await get('endpoints', key);
      assert.equal(ep.metadata.labels['endpointslice.kubernetes.io/skip-mirror'], 'true', key);
      assert.deepEqual(await slicesOf(key), { kubernetes: 0, mirrorc: 1, retired: 0 }, key);
      original.set(key, { uid: svc.metadata.uid, clusterIP: svc.spec.clusterIP, endpointsUid: ep.metadata.uid });
      expected.set(key, [{ ip: ROME_GATEWAY_IP, port: 4143, identity: GATEWAY_IDENTITY, authorityOverride: `${key.split('/')[1]!.replace(/-rome$/, '')}.shop.svc.cluster.local:80` }]);
    }
    await assertNoDowntime();
    // AND the slices' record saw the takeover (so the destination check had something to check): no deletion at all
    const [, , slices] = recorders as [Recorder, Recorder, Recorder];
    assert.ok(slices.events.some((e) => e.obj.metadata.labels?.['kubernetes.io/service-name'] === RETIRED_SERVICE_NAME), 'saw the retired slices');
    assert.deepEqual(slices.events.filter((e) => e.type === 'DELETED').map((e) => keyOf(e.obj)), []);
  });

  test('later runs keep the adopted per-pod IPs and the form; the destination still answers the same', async (t) => {
    if (!ws) return t.skip(skip ?? 'no fleet');
    // WHEN synth runs again (observing the mirrors as mirrorc's now) and Flux applies
    await synthOk();
    // THEN the per-pod mirrors keep their IPs (outside the range: observed as mirrorc's now, not re-pinned)
    const pinned = JSON.parse(readFileSync(ws.lockFile, 'utf8')).compiled.pinnedServiceIPs.london as Record<string, string>;
    assert.deepEqual(pinned, Object.fromEntries(PER_POD.map((k) => [k, original.get(k)!.clusterIP])));
    await sync();
    for (const key of MIRRORS) assert.deepEqual(await slicesOf(key), { kubernetes: 1, mirrorc: 0, retired: 1 }, key);
    await assertNoDowntime();
  });

  test("adoption turned off (the old runbook's last step) keeps Linkerd's form, read back from london, with a warning; nothing changes in the destination", async (t) => {
    if (!ws) return t.skip(skip ?? 'no fleet');
    // WHEN the link stops adopting and synth runs
    adopt.paris = false;
    try {
      await synthOk();
      // THEN synth observed the mirrors' form in london and keeps it, saying why
      assert.match(ws.logs.join('\n'), /the mirrors of "paris" stay in Linkerd's endpoint form .*\[MRC3028\]/);
      const lock = JSON.parse(readFileSync(ws.lockFile, 'utf8'));
      assert.deepEqual(lock.observed.sources.london.kubernetesSlicedTargets, ['paris']);
      await sync();
      for (const key of MIRRORS) {
        assert.equal((await get('endpoints', key)).metadata.labels['endpointslice.kubernetes.io/skip-mirror'], undefined, key);
        assert.deepEqual(await slicesOf(key), { kubernetes: 1, mirrorc: 0, retired: 1 }, key);
      }
      await assertNoDowntime();
    } finally {
      adopt.paris = true;
    }
  });

  test("the way back, 1: rome's link turns to Linkerd's form; mirrorc's slices are retired, in either apply order, and Kubernetes' slices take over without a gap", async (t) => {
    if (!ws) return t.skip(skip ?? 'no fleet');
    // WHEN rome's link adopts too (Linkerd's form) and synth runs
    adopt.rome = true;
    await synthOk();
    const next = await written();
    const find = (kind: string, ns: string, name: string): Obj => {
      const o = next.find((x) => x.kind === kind && x.metadata.namespace === ns && x.metadata.name === name);
      assert.ok(o, `${kind} ${ns}/${name} written`);
      return o;
    };
    const applyAsFlux = (o: Obj): Promise<string> => fleet!.kubectl('london', ['apply', '--server-side', '--force-conflicts', `--field-manager=${FLUX_MANAGER}`, '-f', '-'], JSON.stringify(o));
    // AND the two orders a GitOps apply can take are forced before Flux applies the rest:
    //   api-rome: its slice retired first, its Endpoints (no skip-mirror) after
    assert.equal(find('EndpointSlice', 'shop', 'api-rome-ipv4').metadata.labels?.['kubernetes.io/service-name'], RETIRED_SERVICE_NAME);
    await applyAsFlux(find('EndpointSlice', 'shop', 'api-rome-ipv4'));
    //   cart-rome: its Endpoints first (Kubernetes mirrors them beside mirrorc's live slice), its slice retired after
    await applyAsFlux(find('Endpoints', 'shop', 'cart-rome'));
    await kubernetesSlicesFor(['shop/cart-rome']);
    assert.deepEqual(await slicesOf('shop/cart-rome'), { kubernetes: 1, mirrorc: 1, retired: 0 });
    await sync();
    // THEN every rome mirror is served by Kubernetes' slice, mirrorc's retired
    await kubernetesSlicesFor(Object.keys(ROME_MIRRORS));
    for (const key of Object.keys(ALL_MIRRORS)) {
      assert.equal((await get('endpoints', key)).metadata.labels['endpointslice.kubernetes.io/skip-mirror'], undefined, key);
      assert.deepEqual(await slicesOf(key), { kubernetes: 1, mirrorc: 0, retired: 1 }, key);
    }
    await assertNoDowntime();
  });

  test("the way back, 2: the output handed to Linkerd's restarted controller without pruning; its writes, from its code, change no answer", async (t) => {
    if (!ws) return t.skip(skip ?? 'no fleet');
    // WHEN (back step 2) Flux stops pruning this Kustomization, then the Kustomization is deleted
    await fleet!.kubectl('london', ['patch', 'kustomizations.kustomize.toolkit.fluxcd.io', FLUX_KUSTOMIZATION_NAME, '-n', 'flux-system', '--type=merge', '-p', JSON.stringify({ spec: { prune: false } })]);
    const generation = (await flux!.kustomization(FLUX_KUSTOMIZATION_NAME)).metadata.generation;
    await flux!.waitFor(FLUX_KUSTOMIZATION_NAME, 'prune: false observed', (k) => k.status?.observedGeneration === generation && (k.status?.conditions ?? []).some((c) => c.type === 'Ready' && c.status === 'True'));
    await fleet!.kubectl('london', ['delete', 'kustomizations.kustomize.toolkit.fluxcd.io', FLUX_KUSTOMIZATION_NAME, '-n', 'flux-system', '--wait=true', '--timeout=300s']);
    for (const [key, was] of original) assert.equal((await get('service', key)).metadata.uid, was.uid, `${key} kept when the Kustomization went`);
    for (const target of ['paris', 'rome']) {
      // AND (back step 3) each mirror of the target is marked as Linkerd's with the target Service's CURRENT
      //     resourceVersion, so that the restarted controller takes it as up to date (no update path)
      const remote = (await kubectlJson(target, ['get', 'services', '-A', '-l', 'mirror.linkerd.io/exported=true'])).items as ServiceJson[];
      for (const svc of remote) {
        const mirror = `${svc.metadata.name}-${target}`;
        await fleet!.kubectl('london', ['annotate', 'service', mirror, '-n', svc.metadata.namespace, '--overwrite', `mirror.linkerd.io/remote-resource-version=${svc.metadata.resourceVersion}`]);
      }
      // AND (back step 4) Linkerd's controller for the target starts — STAND-IN: the writes its code makes, from the live objects
      const world = await linkerdWorld(fleet!, target);
      // (today's runbook marked with "0": the controller would then push every mirror through its update path,
      //  which writes the gateway into the headless root's Endpoints — the wrong answer issue 34 saw)
      if (target === 'paris') {
        const stale = { ...world, source: { ...world.source, services: world.source.services.map((s) => s.metadata.annotations?.['mirror.linkerd.io/remote-resource-version'] ? { ...s, metadata: { ...s.metadata, annotations: { ...s.metadata.annotations, 'mirror.linkerd.io/remote-resource-version': '0' } } } : s) } };
        const root = exportedServiceUpdates(stale).find((w) => w.kind === 'Endpoints' && w.obj.metadata.name === 'kafka-paris');
        assert.deepEqual((root?.obj as EndpointsJson | undefined)?.subsets?.[0]?.addresses, [{ ip: GATEWAY_IP }], 'the old marking sends the headless root through the update path');
      }
      assert.deepEqual(orphanedServiceDeletes(world), [], `${target}: no orphan`);
      assert.deepEqual(exportedServiceUpdates(world), [], `${target}: marked up to date, nothing goes through the update path`);
      await writeAsController(fleet!, repairEndpoints(world));
      await writeAsController(fleet!, headlessEndpointsUpdates(await linkerdWorld(fleet!, target)));
    }
    // AND (back step 5) mirrorc's leftovers go: its retired slices, its label
    await fleet!.kubectl('london', ['delete', 'endpointslices.discovery.k8s.io', '-A', '-l', `kubernetes.io/service-name=${RETIRED_SERVICE_NAME}`]);
    for (const ns of ['shop', 'data']) await fleet!.kubectl('london', ['label', 'services,endpoints', '-n', ns, '-l', 'mirrorc.io/managed=true', 'mirrorc.io/managed-']);
    // THEN the mirrors are Linkerd's again: Kubernetes' slices only, same objects and IPs, and the destination never answered otherwise
    await kubernetesSlicesFor(Object.keys(ALL_MIRRORS));
    for (const key of Object.keys(ALL_MIRRORS)) {
      assert.equal((await get('service', key)).metadata.labels['mirrorc.io/managed'], undefined, key);
      assert.deepEqual(await slicesOf(key), { kubernetes: 1, mirrorc: 0, retired: 0 }, key);
    }
    await assertNoDowntime();
    // AND the record did see the whole migration: the retirements, their deletions, the controller's writes
    const [services, , slices] = recorders as [Recorder, Recorder, Recorder];
    assert.ok(slices.events.filter((e) => e.type === 'DELETED').length >= Object.keys(ALL_MIRRORS).length, 'saw the retired slices deleted');
    for (const key of Object.keys(ALL_MIRRORS)) {
      const [ns, name] = key.split('/') as [string, string];
      const updated = slices.events.some((e) => e.type === 'MODIFIED' && e.obj.metadata.namespace === ns && e.obj.metadata.labels?.['kubernetes.io/service-name'] === name && e.obj.metadata.labels?.['endpointslice.kubernetes.io/managed-by'] === MIRRORING_MANAGED_BY);
      assert.ok(updated, `${key}: the destination model saw Kubernetes' slice updated in place`);
    }
    assert.ok(services.events.length > 0);
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

/**
 * The annotations Linkerd copies from a remote Service onto its mirror (CW getMirrorServiceAnnotations:
 * all but the topology ones): paris' Services were applied with a client-side `kubectl apply`, so the
 * mirrors carry the target's `kubectl.kubernetes.io/last-applied-configuration`, as real ones do.
 */
function copiedAnnotations(remote: { metadata: { annotations?: Record<string, string> } }): Record<string, string> {
  const topology = ['service.kubernetes.io/topology-aware-hints', 'service.kubernetes.io/topology-mode'];
  return Object.fromEntries(Object.entries(remote.metadata.annotations ?? {}).filter(([k]) => !topology.includes(k)));
}

/** The objects of Linkerd's mirrors in london: Services (for `create`) then Endpoints, given the per-pod ClusterIPs once known. */
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
    service('shop', 'web-paris', webLabels, { ...copiedAnnotations(web), 'mirror.linkerd.io/remote-svc-fq-name': 'web.shop.svc.cluster.local', 'mirror.linkerd.io/remote-resource-version': web.metadata.resourceVersion }, web.spec.ports),
    service('data', 'kafka-paris', kafkaLabels, { ...copiedAnnotations(kafka), 'mirror.linkerd.io/remote-svc-fq-name': 'kafka.data.svc.cluster.local', 'mirror.linkerd.io/remote-resource-version': kafka.metadata.resourceVersion }, kafka.spec.ports, true),
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
 * What Linkerd's controller for `target` sees when it starts: the Link (the target's gateway), the
 * target's exported Services and their Endpoints (the harness runs no Endpoints controller in the
 * targets, so they are made from the target's EndpointSlices as that controller would: the Service's
 * labels, `service.kubernetes.io/headless` for a headless one, ready addresses with hostnames), and
 * london's Services and Endpoints as they are now.
 */
async function linkerdWorld(fleet: KubeFleet, target: string): Promise<MirrorWorld> {
  const json = async (cluster: string, args: string[]): Promise<any> => JSON.parse(await fleet.kubectl(cluster, [...args, '-o', 'json']));
  const remoteServices = ((await json(target, ['get', 'services', '-A'])).items as ServiceJson[]).filter((s) => s.metadata.namespace !== 'linkerd-multicluster');
  const remoteSlices = (await json(target, ['get', 'endpointslices.discovery.k8s.io', '-A'])).items as any[];
  const remoteEndpoints: EndpointsJson[] = remoteServices.flatMap((svc) => {
    const slices = remoteSlices.filter((s) => s.metadata.namespace === svc.metadata.namespace && s.metadata.labels?.['kubernetes.io/service-name'] === svc.metadata.name);
    if (slices.length === 0) return [];
    const headless = svc.spec?.clusterIP === 'None';
    const addresses = slices.flatMap((s) => (s.endpoints ?? []).filter((e: any) => e.conditions?.ready !== false).map((e: any) => ({ ip: e.addresses[0], ...(e.hostname ? { hostname: e.hostname } : {}) })));
    return [{
      metadata: { name: svc.metadata.name, namespace: svc.metadata.namespace, labels: { ...svc.metadata.labels, ...(headless ? { 'service.kubernetes.io/headless': '' } : {}) } },
      subsets: [{ addresses, ports: (slices[0].ports ?? []).map((p: any) => ({ name: p.name, port: p.port, protocol: p.protocol })) }],
    }];
  });
  return {
    link: { targetClusterName: target, gatewayAddresses: [target === 'paris' ? GATEWAY_IP : ROME_GATEWAY_IP], gatewayPort: 4143, gatewayIdentity: GATEWAY_IDENTITY },
    target: { services: remoteServices, endpoints: remoteEndpoints },
    source: { services: (await json('london', ['get', 'services', '-A'])).items, endpoints: (await json('london', ['get', 'endpoints', '-A'])).items },
  };
}

/**
 * STAND-IN for Linkerd's controller: makes `writes` (computed by the model of its code from the live
 * objects) with its verbs — Update is a `replace` of the full object, as client-go's Update.
 */
async function writeAsController(fleet: KubeFleet, writes: readonly MirrorWrite[]): Promise<void> {
  for (const { verb, kind, obj } of writes) {
    const o = { apiVersion: 'v1', kind, ...obj } as any;
    delete o.metadata.managedFields;
    const resource = kind === 'Service' ? 'service' : 'endpoints';
    if (verb === 'delete') await fleet.kubectl('london', ['delete', resource, o.metadata.name, '-n', o.metadata.namespace]);
    else await fleet.kubectl('london', [verb === 'create' ? 'create' : 'replace', `--field-manager=${LINKERD_MANAGER}`, '-f', '-'], JSON.stringify(o));
  }
}
