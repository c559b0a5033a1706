/**
 * Offline synth of one generated fleet, measured: cold (empty dist/), no change (the same lock
 * again), and one changed service (one port in the lock). Each run is a child process
 * (synth-child.mjs), running the compiled code (lib/) unless `code` is 'tsx'; files written are found by comparing snapshots of the repository.
 */
import { spawn } from 'node:child_process';
import { closeSync, copyFileSync, cpSync, mkdirSync, openSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { readLock, renderLockFile } from '../src/observe/lock-file.js';
import type { FleetSnapshot, ObservedService } from '../src/snapshot/snapshot.js';
import { writeFileAtomically } from '../src/emit/durable-fs.js';
import { EXPORTED_GATEWAY_VALUE, EXPORTED_LABEL } from '../src/contract/linkerd.js';
import { clusterNames, furtherServiceCidrs, REPO_ROOT, writeGeneratedRepo, type FleetShape, type GeneratedRepo } from './generate-fleet.js';
import { V8_FLAGS } from '../src/cli/v8-flags.js';
import type { SynthChildRequest, SynthChildResult } from './synth-child-protocol.js';
import { runSynthModule, type SynthCode } from './compiled-lib.js';
import { measureDelivery, type DeliveryMeasurement } from './delivery-bench.js';
import { copyFluxSource, measureFlux, type FluxMeasurement } from './flux-bench.js';
import { measureArgoCd, type ArgoCdMeasurement } from './argocd-bench.js';
import { runSynth } from '../src/pipeline/run-synth.js';
import { compareSnapshots, snapshotTree, type TreeSnapshot, type TreeWrites } from './tree-snapshot.js';

/** The kinds of measured run, in the order they run. */
export const SYNTH_RUNS = ['cold', 'nochange', 'onechange'] as const;
export type SynthRun = (typeof SYNTH_RUNS)[number];

/** One measured run. */
export interface SynthMeasurement {
  /** `5x100`, or `example` for the repository's example fleet. */
  readonly size: string;
  readonly run: SynthRun;
  /** Which round of the size's runs (1 = the first; main.ts `--rounds`). */
  readonly round: number;
  readonly exitCode: number | null;
  readonly error?: string;
  /** Spawn to exit, as the parent saw it, ms. */
  readonly wallMs: number;
  readonly cpuMs: number;
  /** The part of {@link cpuMs} spent in the kernel (file system, page faults). */
  readonly cpuSystemMs: number;
  readonly peakRssMiB: number;
  /** Node (+ tsx with --tsx) and module loading before runSynth, ms. */
  readonly startupMs: number;
  readonly synthMs: number;
  readonly stages: Readonly<Record<string, number>>;
  readonly writes: TreeWrites;
  /** What the run changed beforehand (one changed service). */
  readonly note?: string;
}

const TSX_LOADER = import.meta.resolve('tsx');
const CHILD = join(import.meta.dirname, 'synth-child.mjs');

/** Runs one synth child in `repo` and measures it; `stderr` of synth goes to `<logDir>/<label>.log`. */
async function measureRun(repo: GeneratedRepo, logFile: string, before: TreeSnapshot, code: SynthCode): Promise<{ child: SynthChildResult | undefined; exitCode: number | null; wallMs: number; after: TreeSnapshot }> {
  const resultFile = join(repo.dir, '..', 'child-result.json');
  rmSync(resultFile, { force: true });
  const request: SynthChildRequest = { runSynthModule: runSynthModule(code), fleetFile: repo.fleetFile, lockFile: repo.lockFile, outDir: repo.outDir, resultFile };
  const log = openSync(logFile, 'w');
  const started = performance.now();
  const exitCode = await new Promise<number | null>((resolve, reject) => {
    // With the V8 flags the CLI runs with (its launcher and the npm scripts pass them).
    const child = spawn(process.execPath, [...V8_FLAGS, ...(code === 'tsx' ? ['--import', TSX_LOADER] : []), CHILD, JSON.stringify(request)], {
      cwd: repo.dir,
      // NODE_OPTIONS (e.g. --max-old-space-size) reaches the child as it is.
      env: process.env,
      stdio: ['ignore', log, log],
    });
    child.on('error', reject);
    child.on('close', (code) => resolve(code));
  });
  const wallMs = performance.now() - started;
  closeSync(log);
  let child: SynthChildResult | undefined;
  try {
    child = JSON.parse(readFileSync(resultFile, 'utf8')) as SynthChildResult;
  } catch {
    child = undefined;
  }
  return { child, exitCode, wallMs, after: snapshotTree(repo.dir, before) };
}

function toMeasurement(size: string, run: SynthRun, round: number, m: Awaited<ReturnType<typeof measureRun>>, before: TreeSnapshot, logFile: string, note?: string): SynthMeasurement {
  const c = m.child;
  const error = c?.error ?? (m.exitCode !== 0 ? `exit ${m.exitCode}: ${logTail(logFile)}` : undefined);
  return {
    size,
    run,
    round,
    exitCode: m.exitCode,
    ...(error !== undefined ? { error } : {}),
    wallMs: m.wallMs,
    cpuMs: c?.cpuMs ?? NaN,
    cpuSystemMs: c?.cpuSystemMs ?? NaN,
    peakRssMiB: c ? c.maxRssKiB / 1024 : NaN,
    startupMs: c?.startupMs ?? NaN,
    synthMs: c?.synthMs ?? NaN,
    stages: c?.stages ?? {},
    writes: compareSnapshots(before, m.after),
    ...(note !== undefined ? { note } : {}),
  };
}

/** The last lines of a run's output (the log is deleted with the scratch directory). */
function logTail(logFile: string, lines = 8): string {
  try {
    return readFileSync(logFile, 'utf8').trimEnd().split('\n').slice(-lines).join('\n');
  } catch {
    return '(no output)';
  }
}

/**
 * Changes one gateway-mode service of the first target in the lock (other than `notTarget`): its
 * first port number + 1. Returns what was changed, for the report.
 */
export function changeOneService(lockFile: string, notTarget?: string): string {
  // The unit and source records stay: the run after this change is an incremental one, as in CI.
  const { snapshot: lock, units, sources } = readLock(lockFile);
  const isGatewayMirror = (s: ObservedService): boolean => s.labels[EXPORTED_LABEL] === EXPORTED_GATEWAY_VALUE && !s.headless && s.ports.length > 0;
  const found = Object.entries(lock.targets).find(([name, t]) => name !== notTarget && t.services.some(isGatewayMirror));
  if (!found) throw new Error(`${lockFile} has no gateway-mode service to change`);
  const [targetName, target] = found;
  const index = target.services.findIndex(isGatewayMirror);
  const svc = target.services[index]!;
  const [first, ...rest] = svc.ports;
  const changed: ObservedService = { ...svc, ports: [{ ...first!, port: first!.port + 1 }, ...rest] };
  const services = target.services.map((s, i) => (i === index ? changed : s));
  const next: FleetSnapshot = { ...lock, targets: { ...lock.targets, [targetName]: { ...target, services } } };
  writeFileAtomically(lockFile, renderLockFile(next, units, sources));
  return `${targetName} ${svc.namespace}/${svc.name} port ${first!.port} → ${first!.port + 1}`;
}

/** Options of {@link benchSynth}. */
export interface BenchSynthProps {
  /** A scratch directory of its own (deleted afterwards unless `keep`). */
  readonly workDir: string;
  /** Runs to report; a run's predecessors run too (unreported) when left out. */
  readonly runs: readonly SynthRun[];
  /** Which code the synth child runs: compiled lib/ (as `npm run synth`; see compiled-lib.ts) or the sources through tsx. @default 'compiled' */
  readonly code?: SynthCode;
  /** Which round of the size's runs this is (main.ts `--rounds`), recorded in each measurement. @default 1 */
  readonly round?: number;
  /** Keep the generated repository. @default false */
  readonly keep?: boolean;
  /** Told each measurement as soon as it exists. @default none */
  readonly onResult?: (m: SynthMeasurement) => void;
  /** Told the delivery units of the cold run's output (measured before the next run). @default none */
  readonly onDelivery?: (d: DeliveryMeasurement) => void;
  /**
   * Run the Flux phase (flux-bench.ts) on this source cluster of a generated fleet after the synth
   * runs, and tell its figures here. @default no Flux phase
   */
  readonly flux?: { readonly source: string; readonly onResult: (f: FluxMeasurement) => void; readonly log?: (line: string) => void };
  /**
   * Run the Argo CD phase (argocd-bench.ts) on this source cluster after the synth runs and the Flux
   * phase (its split step re-runs synth in the repository), and tell its figures here. @default no Argo CD phase
   */
  readonly argoCd?: { readonly source: string; readonly onResult: (a: ArgoCdMeasurement) => void; readonly log?: (line: string) => void };
}

/** Generates a fleet of `shape` (or uses the example fleet when `shape` is `'example'`) and measures the runs. */
export async function benchSynth(shape: FleetShape | 'example', props: BenchSynthProps): Promise<SynthMeasurement[]> {
  const size = shape === 'example' ? 'example' : `${shape.clusters}x${shape.services}`;
  const repo = shape === 'example' ? exampleRepo(join(props.workDir, 'repo')) : writeGeneratedRepo(join(props.workDir, 'repo'), shape);
  const last = Math.max(...props.runs.map((r) => SYNTH_RUNS.indexOf(r)));
  const results: SynthMeasurement[] = [];
  // The Flux phase's source (dist/c01 by default) must mirror the changed service: change another cluster's.
  const notTarget = shape === 'example' ? undefined : (props.flux?.source ?? props.argoCd?.source ?? clusterNames(shape.clusters)[0]);
  const fluxCold = join(props.workDir, 'flux-cold');
  const argoCdCold = join(props.workDir, 'argocd-cold');
  const succeeded = new Set<SynthRun>();
  try {
    let before = snapshotTree(repo.dir);
    for (const run of SYNTH_RUNS.slice(0, last + 1)) {
      const note = run === 'onechange' ? changeOneService(repo.lockFile, notTarget) : undefined;
      if (note !== undefined) before = snapshotTree(repo.dir, before);
      const logFile = join(props.workDir, `${run}.log`);
      const m = await measureRun(repo, logFile, before, props.code ?? 'compiled');
      const measurement = toMeasurement(size, run, props.round ?? 1, m, before, logFile, note);
      if (props.runs.includes(run)) {
        results.push(measurement);
        props.onResult?.(measurement);
      }
      if (measurement.exitCode !== 0) break;
      succeeded.add(run);
      if (run === 'cold' && props.onDelivery) props.onDelivery(measureDelivery(size, repo.outDir));
      if (run === 'cold' && props.flux) copyFluxSource(repo.dir, props.flux.source, fluxCold);
      if (run === 'cold' && props.argoCd) cpSync(join(repo.outDir, props.argoCd.source), join(argoCdCold, 'dist', props.argoCd.source), { recursive: true });
      before = m.after;
    }
    // After every synth run, so that the API server and the controller do not share the machine with them.
    if (props.flux && succeeded.has('cold')) {
      props.flux.onResult(await measureFlux({
        size,
        source: props.flux.source,
        coldRoot: fluxCold,
        ...(shape === 'example' ? {} : { serviceCidrs: furtherServiceCidrs(shape) }),
        ...(succeeded.has('onechange') ? { changedRoot: repo.dir } : {}),
        ...(props.flux.log ? { log: props.flux.log } : {}),
      }));
    }
    if (props.argoCd && succeeded.has('cold')) {
      const source = props.argoCd.source;
      props.argoCd.onResult(await measureArgoCd({
        size,
        source,
        coldRoot: argoCdCold,
        ...(shape === 'example' ? {} : { serviceCidrs: furtherServiceCidrs(shape) }),
        ...(succeeded.has('onechange') ? {
          changedRoot: repo.dir,
          resynth: async (maxUnitObjects: number) => {
            const r = await runSynth({ fleetFile: repo.fleetFile, lockFile: repo.lockFile, outDir: repo.outDir, offline: true, sources: [source], maxUnitObjects, log: () => undefined, print: () => undefined });
            if (r.exitCode !== 0) throw new Error(`synth with maxUnitObjects ${maxUnitObjects}: exit ${r.exitCode}`);
          },
        } : {}),
        ...(props.argoCd.log ? { log: props.argoCd.log } : {}),
      }));
    }
  } finally {
    if (!props.keep) {
      rmSync(join(props.workDir, 'repo'), { recursive: true, force: true });
      rmSync(fluxCold, { recursive: true, force: true });
      rmSync(argoCdCold, { recursive: true, force: true });
    }
  }
  return results;
}

/** The repository's example fleet (clusters/fleet.ts) with a copy of its lock in `dir`. */
function exampleRepo(dir: string): GeneratedRepo {
  mkdirSync(join(dir, 'clusters'), { recursive: true });
  const lockFile = join(dir, 'clusters', 'fleet.lock.json');
  copyFileSync(join(REPO_ROOT, 'clusters', 'fleet.lock.json'), lockFile);
  return { dir, fleetFile: join(REPO_ROOT, 'clusters', 'fleet.ts'), lockFile, outDir: join(dir, 'dist') };
}
