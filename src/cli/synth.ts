/**
 * The synth job: model → observe → compile → emit. Used by the CLI and by tests in-process.
 */
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import YAML from 'yaml';
import { App } from 'cdk8s';
import { compileFleet } from '../compile/compile-fleet.js';
import { CompileError } from '../compile/diagnostics.js';
import { changedFields, diffTrees, type ClusterChanges } from '../emit/diff-trees.js';
import { renderClusterFiles, type FileTree } from '../emit/render-files.js';
import { readTree, recoverInterruptedWrite, writeOutput } from '../emit/write-output.js';
import { FleetDefinitionError } from '../model/fleet.js';
import type { FleetSpec } from '../model/fleet-spec.js';
import { LockFileError, readLockFile, renderLockFile } from '../observe/lock-file.js';
import { observeFleet, type StaleCluster } from '../observe/observe-fleet.js';
import type { FleetSnapshot } from '../observe/snapshot.js';
import { ExitCode } from './exit-codes.js';
import { buildFleet, FleetLoadError, importFleetDefinition, type FleetDefinition } from './load-fleet.js';
import { deliveryWarnings } from '../delivery/delivery-files.js';
import { addReaderRbacCharts, chartsByCluster, deliveryTree, emitDelivery } from './synth-delivery.js';

/** Options of {@link runSynth}. */
export interface SynthOptions {
  /** Module whose default export defines the fleet. Either this or `define`. */
  readonly fleetFile?: string;
  /** The fleet definition itself (tests, embedding). */
  readonly define?: FleetDefinition;
  /** The lock file. @default `<fleetFile without .ts>.lock.json` */
  readonly lockFile?: string;
  /** Output directory. @default 'dist' */
  readonly outDir?: string;
  /** Directory of the GitOps delivery manifests (only written when the fleet has a GitOpsDelivery). @default `delivery` beside outDir */
  readonly deliveryDir?: string;
  /** Compile from the lock alone, contacting no cluster. @default false */
  readonly offline?: boolean;
  /** Fail (and write nothing) when any cluster cannot be observed. @default false */
  readonly strict?: boolean;
  /** Kubeconfig for clusters whose access names none. @default `$KUBECONFIG` or `~/.kube/config` */
  readonly kubeconfig?: string;
  /** Client-side timeout of one API request. @default 10000 */
  readonly requestTimeoutMs?: number;
  /** Items per page when listing (small values exercise pagination). @default 500 */
  readonly pageSize?: number;
  /** `write` replaces dist/ and the lock; `plan` only reports what would change; `check` fails when anything would. @default 'write' */
  readonly mode?: 'write' | 'plan' | 'check';
  /** Where progress and warnings go. @default stderr */
  readonly log?: (line: string) => void;
  /** Where a plan or check report goes. @default stdout */
  readonly print?: (line: string) => void;
}

/** What a run did. */
export interface SynthResult {
  readonly exitCode: number;
  readonly changes: readonly ClusterChanges[];
  readonly warnings: readonly string[];
  readonly stale: readonly StaleCluster[];
  /** The error message when the run failed. */
  readonly error?: string;
}

/** Runs synth; never throws for user mistakes, returning an exit code and a message instead. */
export async function runSynth(options: SynthOptions): Promise<SynthResult> {
  const log = options.log ?? ((line: string) => process.stderr.write(`${line}\n`));
  const fail = (exitCode: number, error: string, rest: Partial<SynthResult> = {}): SynthResult => {
    log(`error: ${error}`);
    return { exitCode, changes: [], warnings: [], stale: [], ...rest, error };
  };
  const outDir = options.outDir ?? 'dist';
  const lockFile = options.lockFile ?? (options.fleetFile ? options.fleetFile.replace(/\.[cm]?[tj]s$/, '') + '.lock.json' : undefined);
  if (!lockFile) return fail(ExitCode.INVALID_INPUT, 'no lock file given (pass --lock <file>)');

  // Model: load and validate before any network call.
  let spec: FleetSpec;
  let previous: FleetSnapshot;
  try {
    const define = options.define ?? (await importFleetDefinition(options.fleetFile ?? 'clusters/fleet.ts'));
    spec = buildFleet(define).fleet.toSpec();
    previous = readLockFile(lockFile);
  } catch (e) {
    if (e instanceof FleetDefinitionError || e instanceof FleetLoadError || e instanceof LockFileError) return fail(ExitCode.INVALID_INPUT, e.message);
    throw e;
  }

  // Observe (unless offline): a cluster that fails keeps its locked state.
  let snapshot = previous;
  let stale: readonly StaleCluster[] = [];
  const warnings: string[] = [];
  if (!options.offline) {
    log(`observing ${spec.clusters.length} cluster${spec.clusters.length === 1 ? '' : 's'}...`);
    const observation = await observeFleet(spec, previous, {
      ...(options.kubeconfig !== undefined ? { defaultKubeconfig: options.kubeconfig } : {}),
      ...(options.requestTimeoutMs !== undefined ? { requestTimeoutMs: options.requestTimeoutMs } : {}),
      ...(options.pageSize !== undefined ? { pageSize: options.pageSize } : {}),
    });
    snapshot = observation.snapshot;
    stale = observation.stale;
    warnings.push(...observation.warnings);
    if (stale.length > 0) {
      log('');
      log(`WARNING: ${stale.length} cluster observation${stale.length === 1 ? '' : 's'} failed; the last known state from ${lockFile} is kept for ${stale.length === 1 ? 'it' : 'them'} (stale):`);
      for (const s of stale) log(`  - ${s.role} ${s.error.message}${s.keptPrevious ? '' : ' [never observed before: nothing to keep]'}`);
      log('');
      if (options.strict) return fail(ExitCode.STALE, '--strict: not writing anything because some clusters could not be observed', { stale, warnings });
    }
  }

  // Compile (pure) and render.
  let tree: FileTree;
  const compileWarnings: string[] = [];
  try {
    const app = new App({ outdir: outDir });
    const result = compileFleet(app, spec, snapshot);
    compileWarnings.push(...result.warnings);
    snapshot = withPinnedServiceIPs(snapshot, result.pinnedServiceIPs);
    tree = new Map();
    // Every observed cluster's folder also holds the reader identity that observation needs there.
    for (const [cluster, charts] of chartsByCluster([...result.charts, ...addReaderRbacCharts(app, spec)])) {
      for (const [rel, content] of renderClusterFiles(charts)) tree.set(`${cluster}/${rel}`, content);
    }
  } catch (e) {
    if (e instanceof CompileError) return fail(ExitCode.COMPILE_ERROR, e.message, { stale, warnings });
    throw e;
  }
  warnings.push(...compileWarnings, ...deliveryWarnings(spec));
  const delivery = deliveryTree(spec);
  const deliveryDir = options.deliveryDir ?? join(dirname(outDir), 'delivery');
  for (const w of warnings) log(`warning: ${w}`);

  const lockText = renderLockFile(snapshot);
  const mode = options.mode ?? 'write';
  if (mode === 'write') {
    // Emit: swap in the new tree and the lock.
    recoverInterruptedWrite(outDir);
    const before = readTree(outDir);
    writeOutput(outDir, tree, lockFile, lockText);
    const changes = diffTrees(before, tree);
    logChanges(log, changes, outDir, before, tree);
    if (delivery) emitDelivery('write', deliveryDir, delivery, log);
    return { exitCode: ExitCode.OK, changes, warnings, stale };
  }

  // Plan or check: compare with what is on disk, write nothing.
  const print = options.print ?? ((line: string) => process.stdout.write(`${line}\n`));
  const before = readTree(outDir);
  const changes = diffTrees(before, tree);
  const lockChanged = readTextOrUndefined(lockFile) !== lockText;
  logChanges(print, changes, outDir, before, tree);
  if (lockChanged) print(`${lockFile}: would change`);
  const deliveryChanged = delivery ? emitDelivery(mode, deliveryDir, delivery, print) : false;
  if (mode === 'check' && (changes.length > 0 || lockChanged || deliveryChanged)) {
    return fail(ExitCode.CHECK_FAILED, `${outDir}/ or ${lockFile} differs from what synth would write; run synth and commit the result`, { changes, stale, warnings });
  }
  return { exitCode: ExitCode.OK, changes, warnings, stale };
}

/** The lock to write: the snapshot plus compile's pinned IPs (left out entirely while there are none). */
function withPinnedServiceIPs(snapshot: FleetSnapshot, pinned: FleetSnapshot['pinnedServiceIPs']): FleetSnapshot {
  const { pinnedServiceIPs: _previous, ...rest } = snapshot;
  return pinned && Object.keys(pinned).length > 0 ? { ...rest, pinnedServiceIPs: pinned } : rest;
}

function readTextOrUndefined(path: string): string | undefined {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return undefined;
  }
}

function logChanges(log: (line: string) => void, changes: readonly ClusterChanges[], outDir: string, before: FileTree, after: FileTree): void {
  if (changes.length === 0) {
    log(`${outDir}/ is up to date: no changes`);
    return;
  }
  for (const c of changes) {
    log(`${join(outDir, c.cluster)}/: ${c.added.length} added, ${c.changed.length} changed, ${c.removed.length} removed`);
    for (const f of c.added) log(`  + ${f}`);
    for (const f of c.changed) {
      log(`  ~ ${f}`);
      const key = `${c.cluster}/${f}`;
      const fields = changedFields(YAML.parse(before.get(key) ?? ''), YAML.parse(after.get(key) ?? ''));
      for (const field of fields.length > 0 ? fields : ['(text only: comments or formatting)']) log(`      ${field}`);
    }
    for (const f of c.removed) log(`  - ${f}`);
  }
}
