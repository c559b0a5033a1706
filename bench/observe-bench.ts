/**
 * Live mode: K real API servers (test/harness/kube-fleet.ts), each with S generated services,
 * observed by mirrorc (observeFleet, the step `synth` runs before compiling) and, for comparison,
 * listed by `kubectl get ... -o json`, one kubectl process after another per cluster and all
 * clusters in parallel.
 */
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { buildFleet } from '../src/load/load-fleet.js';
import { SERVICE_NAME_LABEL } from '../src/contract/kubernetes.js';
import { Cluster, Link } from '../src/index.js';
import { observationRules } from '../src/observe/observation-rbac.js';
import { observeFleet } from '../src/observe/observe-fleet.js';
import type { ObservationProgress } from '../src/observe/observation-progress.js';
import { emptySnapshot } from '../src/snapshot/snapshot.js';
import { startKubeFleet, type KubeFleet } from '../test/harness/kube-fleet.js';
import { ensureNamespace, installGateway } from '../test/integration/support.js';
import { count, formatTable, seconds } from './format-table.js';
import { clusterNames, GENERATED_SELECTORS } from './generate-fleet.js';
import { generatedServices } from './generate-services.js';
import { APP_NAMESPACES } from './sample-metadata.js';
import { kubeList, serviceObjects } from './service-manifests.js';

/** The live fleet: K API servers × S services each. */
export interface ObserveShape {
  readonly targets: number;
  readonly services: number;
  /** @default 1 */
  readonly seed?: number;
}

/** One timed step. */
export interface ObserveMeasurement {
  readonly what: string;
  readonly wallMs: number;
  /** CPU of this process (observeFleet) or of the kubectl processes (kubectl), ms. */
  readonly cpuMs?: number;
  /** List requests (kubectl: processes). */
  readonly lists?: number;
  /** Services observed or listed. */
  readonly services?: number;
  readonly error?: string;
  /** What else there is to know (observeFleet: the slowest cluster per role). */
  readonly detail?: string;
}

/** Per-cluster pinned range in the live clusters: the bottom /24 of the harness's Service CIDR 10.96.0.0/16. */
const LIVE_PINNED_RANGE = '10.96.0.0/24';

/** Starts the fleet, loads the services, measures observation and kubectl, stops the fleet. */
export async function benchObserve(shape: ObserveShape, props: { log: (line: string) => void }): Promise<ObserveMeasurement[]> {
  const names = clusterNames(shape.targets);
  const results: ObserveMeasurement[] = [];
  let t = performance.now();
  const fleet = await startKubeFleet(names, { readerRules: observationRules({ source: true, target: true }) });
  try {
    results.push({ what: `start ${names.length} API servers (setup)`, wallMs: performance.now() - t });
    t = performance.now();
    await Promise.all(names.map((name, i) => loadCluster(fleet, name, i, shape)));
    results.push({ what: `kubectl apply ${count(shape.services)} services per cluster (setup)`, wallMs: performance.now() - t });
    props.log(`bench: ${names.length} API servers up with ${shape.services} services each; warming up`);
    await kubectlLists(fleet, names, 'targets'); // warm the API servers' caches and the page cache

    results.push(await timeObserveFleet(fleet, names, shape));
    results.push(await timeKubectl(fleet, names, 'targets', shape));
    results.push(await timeKubectl(fleet, names, 'all', shape));
  } finally {
    await fleet.stop();
  }
  return results;
}

/** Namespaces, the gateway, and one `kubectl apply` of a List per namespace. */
async function loadCluster(fleet: KubeFleet, name: string, index: number, shape: ObserveShape): Promise<void> {
  await installGateway(fleet, name, `198.51.100.${index + 1}`);
  for (const ns of APP_NAMESPACES) await ensureNamespace(fleet, name, ns);
  const services = generatedServices(shape.seed ?? 1, index, shape.services);
  for (const ns of APP_NAMESPACES) {
    const items = services.filter((s) => s.namespace === ns).flatMap(serviceObjects);
    if (items.length > 0) await fleet.kubectl(name, ['apply', '-f', '-'], kubeList(items));
  }
}

/** observeFleet over the full mesh of `names`, with the reader identity. */
async function timeObserveFleet(fleet: KubeFleet, names: readonly string[], shape: ObserveShape): Promise<ObserveMeasurement> {
  const spec = buildFleet((f) => {
    const clusters = names.map((n) => new Cluster(f, n, { pinnedServiceIPRange: LIVE_PINNED_RANGE }));
    for (const source of clusters) {
      for (const target of clusters) if (source !== target) new Link(f, `${source.name}-from-${target.name}`, { source, target });
    }
  }).fleet.toSpec();
  // How long each cluster took in each role (observeFleet runs 4 at a time).
  const started = new Map<string, number>();
  const slowest = { target: 0, source: 0 };
  const onProgress = (e: ObservationProgress): void => {
    const key = `${e.role}/${e.cluster}`;
    if (e.kind === 'started') started.set(key, performance.now());
    else slowest[e.role] = Math.max(slowest[e.role], performance.now() - (started.get(key) ?? performance.now()));
  };
  const cpu = process.cpuUsage();
  const t = performance.now();
  const observation = await observeFleet(spec, emptySnapshot(), { defaultKubeconfig: fleet.kubeconfig('reader'), onProgress });
  const wallMs = performance.now() - t;
  const used = process.cpuUsage(cpu);
  const services = Object.values(observation.snapshot.targets).reduce((n, target) => n + target.services.length, 0);
  const expected = names.length * shape.services;
  const problem = observation.stale.length > 0
    ? `observation failed for ${observation.stale.map((s) => `${s.role} ${s.cluster}: ${s.error.message}`).join('; ')}`
    : services !== expected ? `observed ${services} exported services, expected ${expected}` : undefined;
  return {
    what: 'mirrorc observeFleet (targets + sources)',
    wallMs,
    cpuMs: (used.user + used.system) / 1000,
    services,
    ...(problem ? { error: problem } : {}),
    detail: `slowest cluster: as target ${seconds(slowest.target)} s, as source ${seconds(slowest.source)} s`,
  };
}

/**
 * The lists of one cluster as kubectl commands: as a target, each selector's services and the
 * EndpointSlices of services (one list for all); with `all`, also what a source's observation lists
 * (namespaces, every service).
 */
function kubectlCommands(which: 'targets' | 'all'): string[][] {
  const target = [
    ...GENERATED_SELECTORS.map((sel) => ['get', 'services', '-A', '-l', sel, '-o', 'json']),
    ['get', 'endpointslices', '-A', '-l', SERVICE_NAME_LABEL, '-o', 'json'],
  ];
  return which === 'targets' ? target : [...target, ['get', 'namespaces', '-o', 'json'], ['get', 'services', '-A', '-o', 'json']];
}

/** Runs every cluster's kubectl lists, clusters in parallel, each cluster's lists one after another. */
async function kubectlLists(fleet: KubeFleet, names: readonly string[], which: 'targets' | 'all'): Promise<{ cpuMs: number; services: number; lists: number }> {
  const perCluster = await Promise.all(names.map(async (name) => {
    let cpuMs = 0;
    let services = 0;
    for (const args of kubectlCommands(which)) {
      const r = await runKubectl(fleet, name, args);
      cpuMs += r.cpuMs;
      if (args[1] === 'services') services += (JSON.parse(r.stdout) as { items: unknown[] }).items.length;
    }
    return { cpuMs, services };
  }));
  return {
    cpuMs: perCluster.reduce((n, c) => n + c.cpuMs, 0),
    services: perCluster.reduce((n, c) => n + c.services, 0),
    lists: names.length * kubectlCommands(which).length,
  };
}

async function timeKubectl(fleet: KubeFleet, names: readonly string[], which: 'targets' | 'all', shape: ObserveShape): Promise<ObserveMeasurement> {
  const t = performance.now();
  try {
    const r = await kubectlLists(fleet, names, which);
    return {
      what: which === 'targets' ? 'kubectl get: the target lists' : 'kubectl get: the target and source lists',
      wallMs: performance.now() - t,
      cpuMs: r.cpuMs,
      lists: r.lists,
      services: r.services,
    };
  } catch (e) {
    return { what: `kubectl get (${which})`, wallMs: performance.now() - t, error: (e as Error).message, services: shape.services };
  }
}

/** `kubectl <args>` against `cluster` as the reader: its stdout and its CPU time (user + system, from bash's `times`). */
function runKubectl(fleet: KubeFleet, cluster: string, args: readonly string[]): Promise<{ stdout: string; cpuMs: number }> {
  return new Promise((resolve, reject) => {
    // `bash -c 'kubectl ...; times'` reports the child's user and system time on stderr's last line.
    const script = `"$0" "$@" || exit $?; times >&2`;
    const child = spawn('bash', ['-c', script, join(fleet.binDir, 'kubectl'), '--kubeconfig', fleet.kubeconfig('reader'), '--context', cluster, ...args], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const out: Buffer[] = [];
    let err = '';
    child.stdout.on('data', (d: Buffer) => out.push(d));
    child.stderr.on('data', (d: Buffer) => (err += d));
    child.on('error', reject);
    child.on('close', (code) => {
      if (code !== 0) return reject(new Error(`kubectl ${args.join(' ')} on ${cluster} failed: ${err.trim()}`));
      resolve({ stdout: Buffer.concat(out).toString('utf8'), cpuMs: childCpuMs(err) });
    });
  });
}

/** The children's user + system time from the last line of bash's `times` (`0m0.123s 0m0.045s`). */
function childCpuMs(timesOutput: string): number {
  const last = timesOutput.trim().split('\n').pop() ?? '';
  const m = /(\d+)m([\d.]+)s\s+(\d+)m([\d.]+)s/.exec(last);
  if (!m) return NaN;
  return (Number(m[1]) * 60 + Number(m[2]) + Number(m[3]) * 60 + Number(m[4])) * 1000;
}

/** The live mode's table. */
export function observeTable(results: readonly ObserveMeasurement[]): string {
  return formatTable(
    ['step', 'wall s', 'cpu s', 'lists', 'services', 'notes'],
    results.map((r) => [r.what, seconds(r.wallMs), seconds(r.cpuMs), count(r.lists), count(r.services), r.error ?? r.detail ?? '']),
    new Set([0, 5]),
  );
}

/** The issue's target for live observation, with the measured figures. */
export function observeTargets(results: readonly ObserveMeasurement[]): string[] {
  const mirrorc = results.find((r) => r.what.startsWith('mirrorc'));
  const kubectl = results.find((r) => r.what === 'kubectl get: the target and source lists');
  if (!mirrorc || !kubectl || mirrorc.error || kubectl.error) return [];
  const ok = mirrorc.wallMs <= kubectl.wallMs;
  return [
    `targets (issue 9; printed, not asserted; the issue's size is 10 targets x 2,000 services):`,
    `  ${ok ? 'MET    ' : 'NOT MET'} observation no slower than kubectl get of the same lists in parallel: ${seconds(mirrorc.wallMs)} s vs ${seconds(kubectl.wallMs)} s (${(mirrorc.wallMs / kubectl.wallMs).toFixed(2)}x)`,
  ];
}
