/**
 * The Flux phase of the benchmark: the real kustomize-controller (test/harness/flux-controller.ts)
 * reconciling the delivery units of one source cluster of a generated fleet against a real
 * kube-apiserver (test/harness/kube-fleet.ts), everything on 127.0.0.1:
 *
 * - empty → ready: the cold run's `dist/<source>` and `delivery/flux/<source>` are published as the
 *   GitRepository's artifact, then the generated entry Kustomization is applied (as a user does
 *   once); timed from that apply until every unit Kustomization is Ready at the revision;
 * - one change → ready: the one-change run's output is published as the next revision; timed from
 *   that publish until the unit holding the changed objects is Ready at it with the changed objects
 *   live as written, and until every unit is Ready at it (Flux reconciles every Kustomization of a
 *   source on a new revision).
 *
 * Afterwards (not timed) the units' inventories are checked against the folder and the live objects.
 * See docs/benchmark.md "Flux phase".
 */
import { execFileSync } from 'node:child_process';
import { request } from 'node:https';
import { cpSync, mkdirSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { parse, parseAllDocuments } from 'yaml';
import { startFluxController, type FluxController, type LiveKustomization } from '../test/harness/flux-controller.js';
import { startKubeFleet, type KubeFleet } from '../test/harness/kube-fleet.js';
import { assertSubset } from '../test/integration/support.js';
import { FLUX_KUSTOMIZATION_NAME, FLUX_UNITS_KUSTOMIZATION_NAME } from '../src/delivery/flux-kustomization.js';
import { count, formatTable, seconds } from './format-table.js';
import { REPO_ROOT } from './generate-fleet.js';
import { createServiceCidrs } from './service-cidrs.js';
import { compareSnapshots, snapshotTree } from './tree-snapshot.js';

/** The figures of the Flux phase for one fleet size. */
export interface FluxMeasurement {
  readonly size: string;
  /** The source cluster whose units Flux reconciled. */
  readonly source: string;
  /** Unit Kustomizations of that source. */
  readonly units: number;
  /** Objects in `dist/<source>` (what the units' inventories hold together). */
  readonly objects: number;
  /** Services with a pinned ClusterIP (per-pod mirrors) created before the clock starts (see {@link pinnedServices}). */
  readonly pinnedFirst?: number;
  /** Entry applied → every unit Ready at the cold revision, ms. */
  readonly emptyToReadyMs?: number;
  /** CPU of kustomize-controller / of kube-apiserver + etcd during empty → ready, ms. */
  readonly emptyControllerCpuMs?: number;
  readonly emptyApiserverCpuMs?: number;
  /** The unit(s) whose folder the one-change run changed, and the object files changed there. */
  readonly changedUnits?: readonly string[];
  readonly changedObjects?: number;
  /** New revision published → the changed unit(s) Ready at it with the changed objects live, ms. */
  readonly oneChangeToReadyMs?: number;
  /** New revision published → every unit Ready at it, ms. */
  readonly oneChangeAllReadyMs?: number;
  readonly oneChangeControllerCpuMs?: number;
  readonly oneChangeApiserverCpuMs?: number;
  /** ERROR lines of the controller's log during empty → ready / one change → ready (a failed reconcile is retried after the unit's interval, 5 min). */
  readonly emptyErrors?: number;
  readonly oneChangeErrors?: number;
  /** The first of those lines. */
  readonly firstError?: string;
  /** Why the phase (or part of it) did not run or failed. */
  readonly error?: string;
}

/** What the Flux phase needs from the synth runs of one fleet. */
export interface FluxPhaseInput {
  readonly size: string;
  readonly source: string;
  /** A folder holding `dist/<source>` and `delivery/flux/<source>` as the cold run wrote them. */
  readonly coldRoot: string;
  /** The repository after the one-change run; undefined when that run was not made. */
  readonly changedRoot?: string;
  /** ServiceCIDRs the source needs besides the harness's own (generate-fleet.ts furtherServiceCidrs), created before anything else. @default none */
  readonly serviceCidrs?: readonly string[];
  readonly log?: (line: string) => void;
}

/** Longest wait for the units to become Ready (a loaded machine is slow; a dead controller never is). */
const READY_DEADLINE_MS = Number(process.env.MIRRORC_BENCH_FLUX_DEADLINE_MS) || 20 * 60_000;
const POLL_MS = 250;
const FLUX_NAMESPACE = 'flux-system';
const BUILD_SCRIPTS = ['test/harness/build-kube-bins.sh', 'test/harness/build-flux-controller.sh'];

/**
 * Undefined when kube-apiserver, etcd, kubectl and kustomize-controller are built (or given by
 * KUBE_TEST_ASSETS / FLUX_TEST_ASSETS); otherwise one line saying how to build them. Never builds.
 */
export function fluxBinariesMissing(): string | undefined {
  return binariesMissing(BUILD_SCRIPTS, 'the Flux phase', 'KUBE_TEST_ASSETS / FLUX_TEST_ASSETS');
}

/** Undefined when every build script reports its binaries built (KUBE_TEST_BINS_CHECK_ONLY); otherwise one line saying how to build them. Never builds. */
export function binariesMissing(scripts: readonly string[], phase: string, assetVariables: string): string | undefined {
  const missing = scripts.filter((script) => {
    try {
      execFileSync('bash', [join(REPO_ROOT, script)], { stdio: 'ignore', env: { ...process.env, KUBE_TEST_BINS_CHECK_ONLY: '1' } });
      return false;
    } catch {
      return true;
    }
  });
  if (missing.length === 0) return undefined;
  return `${phase} needs the test binaries, which are not built: run ${missing.map((s) => `bash ${s}`).join(' and ')} (Go; cached in ~/.cache/kube-test-bins), or set ${assetVariables}`;
}

/** Copies what the Flux phase publishes of `source` (`dist/<source>`, `delivery/flux/<source>`) from `repoDir` to `toDir`. */
export function copyFluxSource(repoDir: string, source: string, toDir: string): void {
  for (const rel of fluxPaths(source)) {
    mkdirSync(join(toDir, rel, '..'), { recursive: true });
    cpSync(join(repoDir, rel), join(toDir, rel), { recursive: true });
  }
}

function fluxPaths(source: string): string[] {
  return [`dist/${source}`, `delivery/flux/${source}`];
}

/** A unit Kustomization as synth generated it. */
export interface UnitSpec {
  readonly name: string;
  /** `dist/<source>/<unit>` */
  readonly path: string;
}

export function unitSpecs(root: string, source: string): UnitSpec[] {
  const dir = join(root, 'delivery/flux', source, 'units');
  return readdirSync(dir).filter((f) => f !== 'kustomization.yaml' && f.endsWith('.yaml')).sort().map((f) => {
    const k = parse(readFileSync(join(dir, f), 'utf8')) as { metadata: { name: string }; spec: { path: string } };
    return { name: k.metadata.name, path: k.spec.path.replace(/^\.\//, '') };
  });
}

/** Object files below `dir` (every .yaml but kustomization.yaml). */
function objectFiles(dir: string): string[] {
  const out: string[] = [];
  const walk = (rel: string): void => {
    for (const entry of readdirSync(join(dir, rel))) {
      const path = rel ? `${rel}/${entry}` : entry;
      if (statSync(join(dir, path)).isDirectory()) walk(path);
      else if (entry.endsWith('.yaml') && entry !== 'kustomization.yaml') out.push(path);
    }
  };
  walk('');
  return out;
}

/** Objects below `dir`: the documents of its object files (a mirror's objects share one file, src/emit/render-units.ts). */
function objectCount(dir: string): number {
  return objectFiles(dir).reduce((n, f) => n + parseAllDocuments(readFileSync(join(dir, f), 'utf8')).length, 0);
}

/** The namespaces the mirrors of `dist/<source>` live in (the folders of its units but base): on a real source they exist. */
function mirrorNamespaces(root: string, source: string): string[] {
  const names = new Set<string>();
  const dir = join(root, 'dist', source);
  for (const unit of readdirSync(dir)) {
    if (unit === 'base' || !statSync(join(dir, unit)).isDirectory()) continue;
    for (const ns of readdirSync(join(dir, unit))) if (statSync(join(dir, unit, ns)).isDirectory()) names.add(ns);
  }
  return [...names].sort();
}

/**
 * The Services of `dist/<source>` with a pinned ClusterIP (per-pod mirrors). The generated fleet
 * pins them in the static bands of its Service CIDRs (generate-fleet.ts), where the API server
 * hands out no dynamic ClusterIP while the rest of a CIDR has room; on a real source the pinned
 * Services also hold their IPs before other mirrors come and go, so the bench creates them first
 * (not timed): the timing is Flux's reconcile of a source whose per-pod mirrors exist. Flux adopts
 * them on apply (server-side apply, forced).
 */
export function pinnedServices(root: string, source: string): unknown[] {
  const dir = join(root, 'dist', source);
  // A mirror's file holds its Service and the per-pod Services of a headless mirror, then their Endpoints and EndpointSlices.
  return objectFiles(dir).filter((f) => /(^|\/)service-[^/]*\.yaml$/.test(f))
    .flatMap((f) => parseAllDocuments(readFileSync(join(dir, f), 'utf8')).map((d) => d.toJS() as { kind: string; spec?: { clusterIP?: string } }))
    .filter((o) => o.kind === 'Service' && o.spec?.clusterIP !== undefined && o.spec.clusterIP !== 'None');
}

/** The unit Kustomizations whose folder holds one of `files` (relative to `dist/<source>`). */
export function unitsHolding(units: readonly UnitSpec[], source: string, files: readonly string[]): string[] {
  return units.filter((u) => files.some((f) => `dist/${source}/${f}`.startsWith(`${u.path}/`))).map((u) => u.name);
}

function isReadyAt(k: LiveKustomization, revision: string): boolean {
  const ready = k.status?.conditions?.find((c) => c.type === 'Ready');
  return ready?.status === 'True' && k.status?.lastAppliedRevision === revision && k.status.observedGeneration === k.metadata.generation;
}

/** CPU (user + system) of this process's children by command name, ms, from /proc; NaN where /proc cannot tell. */
function childCpuMs(): { controller: number; apiserver: number } {
  const tick = 100; // USER_HZ on Linux
  let controller = 0;
  let apiserver = 0;
  try {
    for (const pid of readdirSync('/proc')) {
      if (!/^\d+$/.test(pid)) continue;
      let stat: string;
      try {
        stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      } catch {
        continue;
      }
      // pid (comm) state ppid ... utime(14) stime(15): comm may hold spaces, so split after the last ')'.
      const comm = stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      if (Number(fields[1]) !== process.pid) continue;
      const ms = ((Number(fields[11]) + Number(fields[12])) * 1000) / tick;
      if (comm.startsWith('kustomize-contr')) controller += ms;
      else if (comm === 'kube-apiserver' || comm === 'etcd') apiserver += ms;
    }
  } catch {
    return { controller: NaN, apiserver: NaN };
  }
  return { controller, apiserver };
}

/** The admin identity of a one-cluster kube-fleet, for plain HTTPS reads (polling through kubectl would cost a process per poll). */
interface ApiAccess {
  readonly server: string;
  readonly ca: Buffer;
  readonly cert: Buffer;
  readonly key: Buffer;
}

function apiAccess(kubeconfigFile: string, cluster: string): ApiAccess {
  const cfg = parse(readFileSync(kubeconfigFile, 'utf8')) as {
    clusters: { name: string; cluster: { server: string; 'certificate-authority-data': string } }[];
    users: { name: string; user: { 'client-certificate-data': string; 'client-key-data': string } }[];
    contexts: { name: string; context: { cluster: string; user: string } }[];
  };
  const context = cfg.contexts.find((c) => c.name === cluster)!.context;
  const c = cfg.clusters.find((x) => x.name === context.cluster)!.cluster;
  const u = cfg.users.find((x) => x.name === context.user)!.user;
  const b64 = (s: string): Buffer => Buffer.from(s, 'base64');
  return { server: c.server, ca: b64(c['certificate-authority-data']), cert: b64(u['client-certificate-data']), key: b64(u['client-key-data']) };
}

function apiGet(access: ApiAccess, path: string): Promise<unknown> {
  return new Promise((resolve, reject) => {
    const req = request(`${access.server}${path}`, { ca: access.ca, cert: access.cert, key: access.key, timeout: 30_000 }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (d: Buffer) => chunks.push(d));
      res.on('end', () => {
        const body = Buffer.concat(chunks).toString('utf8');
        if (res.statusCode !== 200) reject(new Error(`GET ${path}: ${res.statusCode} ${body.slice(0, 200)}`));
        else resolve(JSON.parse(body));
      });
      res.on('error', reject);
    });
    req.on('timeout', () => req.destroy(new Error(`GET ${path}: timed out`)));
    req.on('error', reject);
    req.end();
  });
}

/** ERROR lines of the controller log written since `offset` (bytes). */
function logErrors(logFile: string, offset: number): string[] {
  try {
    return readFileSync(logFile).subarray(offset).toString('utf8').split('\n').filter((l) => /\tERROR\t/.test(l));
  } catch {
    return [];
  }
}

function logSize(logFile: string): number {
  try {
    return statSync(logFile).size;
  } catch {
    return 0;
  }
}

class FluxRun {
  private readonly access: ApiAccess;

  constructor(
    private readonly fleet: KubeFleet,
    private readonly controller: FluxController,
    private readonly source: string,
  ) {
    this.access = apiAccess(fleet.kubeconfig('admin'), source);
  }

  async kustomizations(): Promise<Map<string, LiveKustomization>> {
    const list = (await apiGet(this.access, `/apis/kustomize.toolkit.fluxcd.io/v1/namespaces/${FLUX_NAMESPACE}/kustomizations`)) as { items: LiveKustomization[] };
    return new Map(list.items.map((k) => [k.metadata.name, k]));
  }

  /**
   * Polls until every name in `names` is Ready at `revision` (and `extra` holds once they are);
   * returns ms since `started` at which that was first seen.
   */
  async waitReady(names: readonly string[], revision: string, started: number, what: string, extra?: () => Promise<boolean>): Promise<number> {
    const deadline = started + READY_DEADLINE_MS;
    let last: Map<string, LiveKustomization> = new Map();
    for (;;) {
      try {
        last = await this.kustomizations();
      } catch {
        // The API server may be slow to answer on a loaded machine: try again until the deadline.
      }
      if (names.every((n) => last.has(n) && isReadyAt(last.get(n)!, revision)) && (extra === undefined || (await extra()))) {
        return performance.now() - started;
      }
      if (performance.now() > deadline) {
        const waiting = names.filter((n) => !last.has(n) || !isReadyAt(last.get(n)!, revision));
        const ready = (n: string): string => JSON.stringify(last.get(n)?.status?.conditions?.find((c) => c.type === 'Ready') ?? 'absent');
        throw new Error(`${what}: not done within ${READY_DEADLINE_MS / 1000} s; not Ready at ${revision}: ${waiting.slice(0, 5).map((n) => `${n} ${ready(n)}`).join('; ')}\n${this.controller.logTail(15)}`);
      }
      await new Promise((resolve) => setTimeout(resolve, POLL_MS));
    }
  }

  /** The live object of a manifest, or undefined when there is none. */
  async live(o: { apiVersion: string; kind: string; metadata: { name: string; namespace?: string } }): Promise<unknown> {
    const group = o.apiVersion.includes('/') ? o.apiVersion.split('/')[0] : '';
    try {
      return JSON.parse(await this.fleet.kubectl(this.source, ['get', group ? `${o.kind}.${group}` : o.kind, o.metadata.name, ...(o.metadata.namespace ? ['-n', o.metadata.namespace] : []), '-o', 'json']));
    } catch {
      return undefined;
    }
  }

  /** Every id of the units' inventories is a live object labelled as theirs: the objects that are missing (ids). */
  async missingObjects(units: readonly string[]): Promise<{ inventory: number; missing: string[] }> {
    const all = await this.kustomizations();
    const ids = units.flatMap((n) => (all.get(n)?.status?.inventory?.entries ?? []).map((e) => e.id));
    const kinds = new Set(ids.map((id) => id.split('_').slice(-2).join('_')));
    const live = new Set<string>();
    for (const gk of kinds) {
      const [group, kind] = gk.split('_') as [string, string];
      const list = JSON.parse(await this.fleet.kubectl(this.source, ['get', group ? `${kind}.${group}` : kind, '-A', '-l', `kustomize.toolkit.fluxcd.io/namespace=${FLUX_NAMESPACE}`, '-o', 'json'])) as
        { items: { metadata: { name: string; namespace?: string } }[] };
      for (const o of list.items) live.add(`${o.metadata.namespace ?? ''}_${o.metadata.name}_${group}_${kind}`);
    }
    return { inventory: ids.length, missing: ids.filter((id) => !live.has(id)) };
  }
}

/** Runs the Flux phase; never throws (a failure is the measurement's `error`); stops everything it started. */
export async function measureFlux(input: FluxPhaseInput): Promise<FluxMeasurement> {
  const { size, source, coldRoot } = input;
  const log = input.log ?? (() => undefined);
  const units = unitSpecs(coldRoot, source);
  const objects = objectCount(join(coldRoot, 'dist', source));
  let result: FluxMeasurement = { size, source, units: units.length, objects };
  let fleet: KubeFleet | undefined;
  let controller: FluxController | undefined;
  try {
    log(`bench: ${size} flux: starting a kube-apiserver and kustomize-controller on 127.0.0.1 for ${source} (${units.length} units, ${count(objects)} objects)...`);
    fleet = await startKubeFleet([source], { readerRules: [] });
    await createServiceCidrs(fleet, source, input.serviceCidrs ?? []);
    for (const ns of mirrorNamespaces(coldRoot, source)) {
      await fleet.kubectl(source, ['create', 'namespace', ns]);
    }
    const pinned = pinnedServices(coldRoot, source);
    if (pinned.length > 0) {
      await fleet.kubectl(source, ['apply', '--server-side', '--field-manager=mirrorc-bench-pinned', '-f', '-'], JSON.stringify({ apiVersion: 'v1', kind: 'List', items: pinned }));
    }
    result = { ...result, pinnedFirst: pinned.length };
    controller = await startFluxController(fleet, source);
    const run = new FluxRun(fleet, controller, source);
    const names = [FLUX_KUSTOMIZATION_NAME, FLUX_UNITS_KUSTOMIZATION_NAME, ...units.map((u) => u.name)];

    // (a) empty → ready: the artifact exists (source-controller has fetched the commit); the user applies the entry.
    const cold = await controller.publish(coldRoot, fluxPaths(source));
    let cpu = childCpuMs();
    let logAt = logSize(controller.logFile);
    let started = performance.now();
    await fleet.kubectl(source, ['apply', '--server-side', '--field-manager=flux-bootstrap', '-f', join(coldRoot, 'delivery/flux', source, 'kustomization-mirrorc.yaml')]);
    const emptyToReadyMs = await run.waitReady(names, cold, started, 'empty → ready');
    let cpuAfter = childCpuMs();
    const emptyErrors = logErrors(controller.logFile, logAt);
    result = { ...result, emptyToReadyMs, emptyControllerCpuMs: cpuAfter.controller - cpu.controller, emptyApiserverCpuMs: cpuAfter.apiserver - cpu.apiserver, emptyErrors: emptyErrors.length,
      ...(emptyErrors[0] !== undefined ? { firstError: emptyErrors[0] } : {}) };
    log(`bench: ${size} flux: empty → ready ${seconds(emptyToReadyMs)} s; checking the live objects...`);
    const coldCheck = await run.missingObjects(units.map((u) => u.name));
    if (coldCheck.inventory !== objects || coldCheck.missing.length > 0) {
      return { ...result, error: `after empty → ready the units' inventories hold ${coldCheck.inventory} objects of the ${objects} written, ${coldCheck.missing.length} not live (${coldCheck.missing.slice(0, 3).join(', ')})` };
    }
    if (input.changedRoot === undefined) return result;

    // (b) one change → ready: what the one-change run changed in dist/<source>.
    const diff = compareSnapshots(snapshotTree(join(coldRoot, 'dist', source)), snapshotTree(join(input.changedRoot, 'dist', source)), Number.MAX_SAFE_INTEGER);
    const changedFiles = diff.changedPaths.filter((p) => p.endsWith('.yaml') && !p.endsWith('kustomization.yaml'));
    const changedUnits = unitsHolding(units, source, changedFiles);
    if (changedFiles.length === 0 || changedUnits.length === 0) {
      return { ...result, error: `the one-change run changed nothing in dist/${source} that a unit holds (${diff.changedPaths.slice(0, 3).join(', ') || 'no file'})` };
    }
    // Every object of the changed files (a mirror's file holds its Service, Endpoints and EndpointSlices).
    const manifests = changedFiles.flatMap((f) => parseAllDocuments(readFileSync(join(input.changedRoot!, 'dist', source, f), 'utf8'))
      .map((d) => ({ file: f, manifest: d.toJS() as Parameters<FluxRun['live']>[0] | null })));
    result = { ...result, changedUnits, changedObjects: manifests.length };
    const changedLive = async (): Promise<boolean> => {
      for (const { manifest } of manifests) {
        if (manifest === null) continue;
        try {
          assertSubset(await run.live(manifest), manifest);
        } catch {
          return false;
        }
      }
      return true;
    };
    cpu = childCpuMs();
    logAt = logSize(controller.logFile);
    started = performance.now();
    const next = await controller.publish(input.changedRoot, fluxPaths(source));
    if (next === cold) return { ...result, error: 'the one-change output of the source publishes the same revision as the cold one' };
    const oneChangeToReadyMs = await run.waitReady(changedUnits, next, started, 'one change → ready', changedLive);
    const oneChangeAllReadyMs = await run.waitReady(names, next, started, 'one change → every unit ready');
    cpuAfter = childCpuMs();
    const oneChangeErrors = logErrors(controller.logFile, logAt);
    result = { ...result, oneChangeToReadyMs, oneChangeAllReadyMs, oneChangeControllerCpuMs: cpuAfter.controller - cpu.controller, oneChangeApiserverCpuMs: cpuAfter.apiserver - cpu.apiserver,
      oneChangeErrors: oneChangeErrors.length, ...(result.firstError === undefined && oneChangeErrors[0] !== undefined ? { firstError: oneChangeErrors[0] } : {}) };
    const check = await run.missingObjects(units.map((u) => u.name));
    if (check.inventory !== objectCount(join(input.changedRoot, 'dist', source)) || check.missing.length > 0) {
      return { ...result, error: `after the one change the units' inventories hold ${check.inventory} objects, ${check.missing.length} not live` };
    }
    return result;
  } catch (e) {
    return { ...result, error: (e as Error).message };
  } finally {
    // The controller's log goes with the fleet's temp dir; MIRRORC_BENCH_FLUX_LOG keeps a copy.
    try {
      if (controller && process.env.MIRRORC_BENCH_FLUX_LOG) cpSync(controller.logFile, process.env.MIRRORC_BENCH_FLUX_LOG);
    } catch (e) {
      log(`bench: MIRRORC_BENCH_FLUX_LOG: ${(e as Error).message}`);
    }
    await controller?.stop().catch(() => undefined);
    await fleet?.stop().catch(() => undefined);
  }
}

/** One row per measured fleet: units, objects, the two reconcile times and the CPU they took. */
export function fluxTable(results: readonly FluxMeasurement[]): string {
  const header = ['size', 'source', 'units', 'objects', 'pinned first', 'empty→ready s', 'controller cpu s', 'apiserver+etcd cpu s', 'errors',
    'changed unit', 'one-change→ready s', 'one-change→all units s', 'controller cpu s', 'apiserver+etcd cpu s', 'errors'];
  return formatTable(header, results.map((f) => [
    f.size, f.source, count(f.units), count(f.objects), count(f.pinnedFirst), seconds(f.emptyToReadyMs), seconds(f.emptyControllerCpuMs), seconds(f.emptyApiserverCpuMs), count(f.emptyErrors),
    f.changedUnits?.join(',') ?? '-', seconds(f.oneChangeToReadyMs), seconds(f.oneChangeAllReadyMs), seconds(f.oneChangeControllerCpuMs), seconds(f.oneChangeApiserverCpuMs), count(f.oneChangeErrors),
  ]), new Set([0, 1, 9]));
}
