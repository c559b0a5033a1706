/**
 * The Argo CD phase of the benchmark: a real Argo CD v3.6.1 (test/harness/argocd.ts: repo-server,
 * application-controller, applicationset-controller) syncing one source cluster of a generated fleet
 * into a real kube-apiserver, through the generated ApplicationSet (one Application per unit family),
 * everything on 127.0.0.1:
 *
 * - first sync: the cold run's `dist/<source>` and the source's generator files are committed, the
 *   AppProject and ApplicationSet applied; timed until every Application's operation Succeeded and it
 *   is Synced + Healthy at the commit. Nothing is created before but the source's further
 *   ServiceCIDRs (service-cidrs.ts; the pinned Services are not): a pinned ClusterIP that another
 *   Service took is counted as a collision;
 * - one change: the one-change run's output is committed and the Applications whose
 *   `manifest-generate-paths` a changed file touches asked for a refresh (what Argo CD's webhook
 *   handler does on a push, argocd-webhook.ts); timed until the Application holding the changed objects is Synced at
 *   the commit with them live as written;
 * - splits: synth runs again offline with a smaller unit bound (each family above it doubles its
 *   shards), the output is committed, and **no refresh is asked for**: Argo CD finds the commit by its
 *   own polling; every object of the source must keep its uid (0 deleted or recreated).
 *
 * The controller's CPU (user + system) and its largest RSS seen are printed. docs/benchmark.md, "Argo CD phase".
 */
import { cpSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { parse, parseAllDocuments } from 'yaml';
import { argoCdAppProject, namespacesInOutput } from '../src/delivery/argocd-app-project.js';
import { ARGOCD_APPLICATIONS_FOLDER, argoCdApplicationFile, argoCdApplicationName, argoCdApplicationSet, familyGeneratePaths, unitFamilies } from '../src/delivery/argocd-application-set.js';
import { argoCdConfigMapChange } from '../src/delivery/argocd-cm-change.js';
import { parseUnitName } from '../src/delivery/delivery-units.js';
import type { ArgoCdDeliverySpec, DeliverySpec } from '../src/model/gitops-delivery.js';
import { readTree } from '../src/emit/write-output.js';
import { staticBandSize } from '../src/compile/pinned-ips/band.js';
import { offsetOf, parseIpRange } from '../src/util/ip-range.js';
import { startArgoCd, type ArgoCd, type LiveApplication } from '../test/harness/argocd.js';
import { SERVICE_CIDR, startKubeFleet, type KubeFleet } from '../test/harness/kube-fleet.js';
import { assertSubset } from '../test/integration/support.js';
import { count, formatTable, seconds } from './format-table.js';
import { appFilesHaveChanged, refreshPaths } from './argocd-webhook.js';
import { createServiceCidrs } from './service-cidrs.js';
import { compareSnapshots, snapshotTree } from './tree-snapshot.js';

/** The figures of the Argo CD phase for one fleet size. */
export interface ArgoCdMeasurement {
  readonly size: string;
  readonly source: string;
  readonly applications: number;
  readonly objects: number;
  /** Services with a pinned ClusterIP, and how many of them lie past the static bands of the source's Service CIDRs (none when the fleet follows docs/modes/headless.md). */
  readonly pinned?: number;
  readonly pinnedPastBand?: number;
  /** ApplicationSet applied → every Application's operation Succeeded, Synced + Healthy, ms. */
  readonly firstSyncMs?: number;
  readonly firstSyncControllerCpuMs?: number;
  /** Pinned Services refused "provided IP is already allocated" (in any operation state), or live with another ClusterIP. */
  readonly collisions?: number;
  /** The largest Application object, bytes of JSON. */
  readonly largestApplicationBytes?: number;
  readonly changedApplication?: string;
  /** Commit published → the changed objects' Application Synced at it with them live, ms (refresh asked for, as a webhook does). */
  readonly oneChangeMs?: number;
  /** Unit splits committed (families whose shard count grew) and how many objects of the source got another uid or vanished. */
  readonly splits?: number;
  readonly splitRecreated?: number;
  /** Commit published → every Application Synced at it, by Argo CD's own polling, ms (the slowest split commit). */
  readonly splitSyncedMs?: number;
  /** The controller's largest RSS seen while polling, MiB. */
  readonly controllerRssMiB?: number;
  readonly error?: string;
}

/** What the phase needs. */
export interface ArgoCdPhaseInput {
  readonly size: string;
  readonly source: string;
  /** A folder holding `dist/<source>` as the cold run wrote it. */
  readonly coldRoot: string;
  /** The repository after the one-change run (its `dist/<source>`). */
  readonly changedRoot?: string;
  /** Runs synth again with the given unit bound into `changedRoot` (offline, this source only); undefined: no split step. */
  readonly resynth?: (maxUnitObjects: number) => Promise<void>;
  /** ServiceCIDRs the source needs besides the harness's own (generate-fleet.ts furtherServiceCidrs), created before the first sync. @default none */
  readonly serviceCidrs?: readonly string[];
  readonly log?: (line: string) => void;
}

const DEADLINE_MS = Number(process.env.MIRRORC_BENCH_ARGOCD_DEADLINE_MS) || 30 * 60_000;
/** Polls list every Application with its status (hundreds of KiB each): not too often on a loaded machine. */
const POLL_MS = 2000;
/** The unit bounds of the split commits: each family above the bound doubles its shards (three commits: ≥ 20 splits from 7 families up). */
const SPLIT_BOUNDS = [250, 125, 64];

/** The families of `dist/<source>` and their shard counts. */
export function familyShards(distSource: string): Map<string, number> {
  const out = new Map<string, number>();
  for (const unit of readdirSync(distSource)) {
    const parsed = parseUnitName(unit);
    if (parsed && statSync(join(distSource, unit)).isDirectory()) out.set(parsed.family, Math.max(out.get(parsed.family) ?? 0, parsed.index + 1));
  }
  return out;
}

/** Object ids (`kind/namespace/name`) → manifest of every object file below `dir`. */
function manifests(dir: string): Map<string, { apiVersion: string; kind: string; metadata: { name: string; namespace?: string }; spec?: { clusterIP?: string } }> {
  const out = new Map();
  const walk = (rel: string): void => {
    for (const entry of readdirSync(join(dir, rel))) {
      const path = rel ? `${rel}/${entry}` : entry;
      if (statSync(join(dir, path)).isDirectory()) walk(path);
      else if (entry.endsWith('.yaml') && entry !== 'kustomization.yaml') {
        for (const d of parseAllDocuments(readFileSync(join(dir, path), 'utf8'))) {
          const o = d.toJS();
          if (o) out.set(`${o.kind}/${o.metadata.namespace ?? ''}/${o.metadata.name}`, o);
        }
      }
    }
  };
  walk('');
  return out;
}

/** Whether `ip` lies in none of the static bands of `serviceCidrs` (each band: offsets 1 to staticBandSize of its CIDR). */
export function pastBand(ip: string, serviceCidrs: readonly string[]): boolean {
  return !serviceCidrs.map(parseIpRange).some((cidr) => {
    const offset = offsetOf(cidr, ip);
    return offset !== undefined && offset >= 1n && offset <= staticBandSize(cidr);
  });
}

/** pid → [ppid, comm, utime+stime ms, rss KiB] of every process. */
function processTable(): Map<number, { ppid: number; comm: string; cpuMs: number }> {
  const out = new Map<number, { ppid: number; comm: string; cpuMs: number }>();
  for (const pid of readdirSync('/proc')) {
    if (!/^\d+$/.test(pid)) continue;
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      const comm = stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
      const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      out.set(Number(pid), { ppid: Number(f[1]), comm, cpuMs: ((Number(f[11]) + Number(f[12])) * 1000) / 100 });
    } catch {
      // gone meanwhile
    }
  }
  return out;
}

/** The application-controller process of this bench: a descendant of this process whose environment names it. */
function controllerPid(): number | undefined {
  const table = processTable();
  const mine = (pid: number): boolean => {
    for (let p = pid, i = 0; p > 1 && i < 64; p = table.get(p)?.ppid ?? 0, i++) if (p === process.pid) return true;
    return false;
  };
  for (const [pid, p] of table) {
    if (p.comm !== 'argocd' || !mine(pid)) continue;
    try {
      if (readFileSync(`/proc/${pid}/environ`, 'utf8').split('\0').includes('ARGOCD_BINARY_NAME=argocd-application-controller')) return pid;
    } catch {
      // gone meanwhile
    }
  }
  return undefined;
}

function cpuOf(pid: number | undefined): number {
  return pid === undefined ? NaN : (processTable().get(pid)?.cpuMs ?? NaN);
}

function rssMiB(pid: number | undefined): number {
  if (pid === undefined) return NaN;
  try {
    const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) / 1024 : NaN;
  } catch {
    return NaN;
  }
}

class ArgoRun {
  peakRss = 0;
  constructor(readonly argo: ArgoCd, readonly fleet: KubeFleet, readonly source: string, readonly names: readonly string[]) {}

  async list(): Promise<LiveApplication[]> {
    const all = JSON.parse(await this.argo.kubectl(['get', 'applications.argoproj.io', '-n', this.argo.namespace, '-o', 'json'])) as { items: LiveApplication[] };
    return all.items;
  }

  /** Polls until `done` holds for the Applications; returns ms since `started`. */
  async until(what: string, started: number, done: (apps: LiveApplication[]) => boolean | Promise<boolean>): Promise<number> {
    let last: LiveApplication[] = [];
    for (;;) {
      this.peakRss = Math.max(this.peakRss, rssMiB(controllerPid()) || 0);
      try {
        last = await this.list();
        if (await done(last)) return performance.now() - started;
      } catch {
        // a slow answer on a loaded machine: try again until the deadline
      }
      if (performance.now() - started > DEADLINE_MS) {
        const waiting = last.filter((a) => a.status?.sync?.status !== 'Synced' || a.status.health?.status !== 'Healthy').slice(0, 3)
          .map((a) => `${a.metadata.name}: ${a.status?.sync?.status}/${a.status?.health?.status} ${a.status?.operationState?.phase ?? ''} ${(a.status?.operationState?.message ?? '').slice(0, 200)}`);
        throw new Error(`${what}: not done within ${DEADLINE_MS / 1000} s: ${waiting.join('; ')}\n${this.argo.logTails(10)}`);
      }
      await new Promise((r) => setTimeout(r, POLL_MS));
    }
  }

  /** Every Application Synced + Healthy at `revision`, its last operation Succeeded. */
  syncedAt(revision: string): (apps: LiveApplication[]) => boolean {
    return (apps) => this.names.every((n) => {
      const a = apps.find((x) => x.metadata.name === n);
      const resources = a?.status?.resources ?? [];
      // (an Application with nothing to sync never runs an operation)
      const operationDone = a?.status?.operationState === undefined ? resources.length === 0 : a.status.operationState.phase === 'Succeeded';
      return a?.status?.sync?.status === 'Synced' && a.status.sync.revision === revision && a.status.health?.status === 'Healthy' &&
        operationDone && resources.every((r) => r.status === 'Synced' && !r.requiresPruning);
    });
  }

  /** `kind/namespace/name` → uid of every object of `wanted` that is live. */
  async uids(wanted: ReadonlyMap<string, { apiVersion: string; kind: string }>): Promise<Map<string, string>> {
    const out = new Map<string, string>();
    const kinds = new Set([...wanted.values()].map((o) => (o.apiVersion.includes('/') ? `${o.kind}.${o.apiVersion.split('/')[0]}` : o.kind)));
    for (const kind of kinds) {
      const list = JSON.parse(await this.fleet.kubectl(this.source, ['get', kind, '-A', '-o', 'json'])) as { items: { kind?: string; metadata: { name: string; namespace?: string; uid: string } }[] };
      const k = kind.split('.')[0]!;
      for (const o of list.items) {
        const id = `${k}/${o.metadata.namespace ?? ''}/${o.metadata.name}`;
        if (wanted.has(id)) out.set(id, o.metadata.uid);
      }
    }
    return out;
  }
}

/** Commits `dist/<source>` of `root` and the source's generator files; returns the commit. */
async function publish(argo: ArgoCd, delivery: DeliverySpec, argoCd: ArgoCdDeliverySpec, root: string, source: string, stage: string): Promise<string> {
  mkdirSync(join(stage, 'dist'), { recursive: true });
  rmSync(join(stage, 'dist', source), { recursive: true, force: true });
  cpSync(join(root, 'dist', source), join(stage, 'dist', source), { recursive: true });
  const apps = join(stage, 'delivery', 'argocd', ARGOCD_APPLICATIONS_FOLDER);
  rmSync(apps, { recursive: true, force: true });
  mkdirSync(apps, { recursive: true });
  for (const family of unitFamilies(readdirSync(join(root, 'dist', source)))) {
    writeFileSync(join(apps, `${source}.${family}.yaml`), JSON.stringify(argoCdApplicationFile(delivery, argoCd, source, family)));
  }
  return argo.repo.publish(stage, ['dist', 'delivery']);
}

/** Runs the Argo CD phase; never throws (a failure is the measurement's `error`); stops everything it started. */
export async function measureArgoCd(input: ArgoCdPhaseInput): Promise<ArgoCdMeasurement> {
  const { size, source, coldRoot } = input;
  const log = input.log ?? (() => undefined);
  const cold = manifests(join(coldRoot, 'dist', source));
  const families = unitFamilies(readdirSync(join(coldRoot, 'dist', source)));
  const names = families.map((f) => argoCdApplicationName(source, f));
  const pinned = [...cold.values()].filter((o) => o.kind === 'Service' && o.spec?.clusterIP !== undefined && o.spec.clusterIP !== 'None');
  let result: ArgoCdMeasurement = { size, source, applications: names.length, objects: cold.size, pinned: pinned.length, pinnedPastBand: pinned.filter((o) => pastBand(o.spec!.clusterIP!, [SERVICE_CIDR, ...(input.serviceCidrs ?? [])])).length };
  let fleet: KubeFleet | undefined;
  let argo: ArgoCd | undefined;
  const stage = join(coldRoot, '..', 'argocd-stage');
  try {
    log(`bench: ${size} argocd: starting a kube-apiserver and Argo CD on 127.0.0.1 for ${source} (${names.length} Applications, ${count(cold.size)} objects)...`);
    fleet = await startKubeFleet([source], { readerRules: [] });
    await createServiceCidrs(fleet, source, input.serviceCidrs ?? []);
    const namespaces = new Set([...cold.values()].map((o) => o.metadata.namespace).filter((n): n is string => n !== undefined && n !== 'mirrorc-system'));
    for (const ns of namespaces) await fleet.kubectl(source, ['create', 'namespace', ns]);
    argo = await startArgoCd(fleet, { hub: source, clusters: { [source]: source } });
    const argoCd: ArgoCdDeliverySpec = { namespace: argo.namespace, project: 'mirrorc', configMapChangeApplied: true, clusterNames: {} };
    const delivery: DeliverySpec = { path: 'bench/delivery', repoUrl: argo.repo.url, revision: 'main', outputPath: 'dist', argoCd };
    const stock = parse(await argo.kubectl(['get', 'configmap', 'argocd-cm', '-n', argo.namespace, '-o', 'yaml'])).data as Record<string, string>;
    await argo.kubectl(['patch', 'configmap', 'argocd-cm', '-n', argo.namespace, '--type', 'merge', '-p', JSON.stringify({ data: argoCdConfigMapChange(stock, 'all-endpoints') })]);
    await argo.restartController();
    const run = new ArgoRun(argo, fleet, source, names);

    // (a) first sync
    const first = await publish(argo, delivery, argoCd, coldRoot, source, stage);
    const project = argoCdAppProject(delivery, argoCd, [source], namespacesInOutput(readTree(join(coldRoot, 'dist'))));
    let cpu = cpuOf(controllerPid());
    let started = performance.now();
    await argo.kubectl(['apply', '-f', '-'], JSON.stringify({ apiVersion: 'v1', kind: 'List', items: [project, argoCdApplicationSet(delivery, argoCd)] }));
    const firstSyncMs = await run.until('first sync', started, run.syncedAt(first));
    const apps = await run.list();
    const collisionText = apps.map((a) => JSON.stringify(a.status?.operationState ?? {})).join('\n').match(/already allocated/g)?.length ?? 0;
    const uidsBefore = await run.uids(cold);
    result = { ...result, firstSyncMs, firstSyncControllerCpuMs: cpuOf(controllerPid()) - cpu, collisions: collisionText,
      largestApplicationBytes: Math.max(...apps.map((a) => JSON.stringify(a).length)) };
    log(`bench: ${size} argocd: first sync ${seconds(firstSyncMs)} s, ${collisionText} collisions; ${uidsBefore.size} of ${cold.size} objects live`);
    if (uidsBefore.size !== cold.size) return { ...result, error: `after the first sync ${uidsBefore.size} of ${cold.size} objects are live` };
    if (input.changedRoot === undefined) return result;

    // (b) one change, refresh asked for (a webhook)
    const diff = compareSnapshots(snapshotTree(join(coldRoot, 'dist', source)), snapshotTree(join(input.changedRoot, 'dist', source)), Number.MAX_SAFE_INTEGER);
    const changedFiles = diff.changedPaths.filter((p) => p.endsWith('.yaml') && !p.endsWith('kustomization.yaml'));
    const changedFamily = changedFiles.map((f) => parseUnitName(f.split('/')[0]!)?.family).find((f) => f !== undefined);
    if (changedFamily === undefined) return { ...result, error: `the one-change run changed no mirror file of dist/${source}` };
    const changedApp = argoCdApplicationName(source, changedFamily);
    const changed = changedFiles.flatMap((f) => parseAllDocuments(readFileSync(join(input.changedRoot!, 'dist', source, f), 'utf8')).map((d) => d.toJS()).filter((o) => o !== null));
    started = performance.now();
    const next = await publish(argo, delivery, argoCd, input.changedRoot, source, stage);
    // (what a push webhook refreshes: the Applications whose manifest-generate-paths a changed file touches)
    const pushed = diff.changedPaths.map((f) => `dist/${source}/${f}`);
    for (const [i, n] of names.entries()) {
      if (appFilesHaveChanged(refreshPaths(familyGeneratePaths(families[i]!), `dist/${source}`), pushed)) await argo.refresh(n, 'normal');
    }
    const oneChangeMs = await run.until('one change', started, async (all) => {
      const a = all.find((x) => x.metadata.name === changedApp);
      if (a?.status?.sync?.status !== 'Synced' || a.status.sync.revision !== next) return false;
      for (const o of changed) {
        try {
          const group = o.apiVersion.includes('/') ? `.${o.apiVersion.split('/')[0]}` : '';
          assertSubset(JSON.parse(await fleet!.kubectl(source, ['get', `${o.kind}${group}`, o.metadata.name, '-n', o.metadata.namespace, '-o', 'json'])), o);
        } catch {
          return false;
        }
      }
      return true;
    });
    result = { ...result, changedApplication: changedApp, oneChangeMs };
    log(`bench: ${size} argocd: one change → ${changedApp} synced and live in ${seconds(oneChangeMs)} s`);
    await run.until('every Application at the one-change commit', started, run.syncedAt(next));
    if (input.resynth === undefined) return result;

    // (c) splits under plain polling: no refresh asked for
    const kept = await run.uids(manifests(join(input.changedRoot, 'dist', source)));
    let splits = 0;
    let slowest = 0;
    for (const bound of SPLIT_BOUNDS) {
      const shardsBefore = familyShards(join(input.changedRoot, 'dist', source));
      await input.resynth(bound);
      const shardsAfter = familyShards(join(input.changedRoot, 'dist', source));
      splits += [...shardsAfter].filter(([f, n]) => n > (shardsBefore.get(f) ?? 0)).length;
      started = performance.now();
      const revision = await publish(argo, delivery, argoCd, input.changedRoot, source, stage);
      slowest = Math.max(slowest, await run.until(`split at ${bound} objects (polling)`, started, run.syncedAt(revision)));
      log(`bench: ${size} argocd: ${splits} splits so far; synced by polling in ${seconds(slowest)} s`);
    }
    const now = await run.uids(manifests(join(input.changedRoot, 'dist', source)));
    const recreated = [...kept].filter(([id, uid]) => now.get(id) !== uid).length;
    result = { ...result, splits, splitRecreated: recreated, splitSyncedMs: slowest, controllerRssMiB: run.peakRss };
    return result;
  } catch (e) {
    return { ...result, error: (e as Error).message };
  } finally {
    await argo?.stop().catch(() => undefined);
    await fleet?.stop().catch(() => undefined);
    rmSync(stage, { recursive: true, force: true });
  }
}

/** One row per measured fleet. */
export function argoCdTable(results: readonly ArgoCdMeasurement[]): string {
  const header = ['size', 'source', 'apps', 'objects', 'pinned (past band)', 'first sync s', 'controller cpu s', 'collisions', 'largest app KiB',
    'one-change→live s', 'splits', 'recreated', 'split synced (polling) s', 'controller RSS MiB'];
  return formatTable(header, results.map((r) => [
    r.size, r.source, count(r.applications), count(r.objects), r.pinned === undefined ? '-' : `${r.pinned} (${r.pinnedPastBand})`, seconds(r.firstSyncMs), seconds(r.firstSyncControllerCpuMs),
    count(r.collisions), r.largestApplicationBytes === undefined ? '-' : (r.largestApplicationBytes / 1024).toFixed(0), seconds(r.oneChangeMs), count(r.splits), count(r.splitRecreated),
    seconds(r.splitSyncedMs), r.controllerRssMiB === undefined ? '-' : r.controllerRssMiB.toFixed(0),
  ]), new Set([0, 1]));
}
