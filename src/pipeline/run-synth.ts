/**
 * The synth job: model → observe → compile → emit. Used by the CLI and by tests in-process.
 */
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import YAML from 'yaml';
import { CompileError } from '../compile/diagnostics.js';
import { changedFields, diffTrees, type ClusterChanges } from '../emit/diff-trees.js';
import { previousMirrorLookup, previousOwnerLookup } from '../emit/previous-owners.js';
import { redact } from '../util/redact.js';
import type { FileTree } from '../emit/render-files.js';
import { acquireRunLock, RunLockBusyError, type RunLock } from '../emit/run-lock.js';
import { WriteFailedError } from '../emit/write-failure.js';
import { checkTransaction, committedPath, readCommittedTree, recoverInterruptedWrite, UnsafeJournalError, writeLockOnly, writeOutput } from '../emit/write-output.js';
import { FleetDefinitionError } from '../model/fleet.js';
import type { FleetSpec } from '../model/fleet-spec.js';
import { lockGatewayProblems } from '../observe/gateway-checks.js';
import { LockFileError, readLockFile, renderLockFile } from '../observe/lock-file.js';
import { kubeconfigFileProblem } from '../observe/kubeconfig-file-problem.js';
import { observeFleet, type StaleCluster } from '../observe/observe-fleet.js';
import type { FleetSnapshot } from '../snapshot/snapshot.js';
import { fleetRoles, nextStaleSince, observationOutcomes } from '../observe/stale-since.js';
import { largeRemovalMessage, largeRemovals } from '../guard/removal-guard.js';
import { holdBackRemovingTargets } from '../guard/hold-back-targets.js';
import { clustersOverStaleLimit, staleLimitMessage, type StaleLimit } from '../guard/stale-limit.js';
import { parseDuration } from '../util/duration.js';
import { appendJobSummary } from '../cli/job-summary.js';
import { holdBackSuspectTargets } from '../guard/suspect-targets.js';
import { ExitCode } from '../cli/exit-codes.js';
import { buildFleet, FleetLoadError, importFleetDefinition, type FleetDefinition } from '../cli/load-fleet.js';
import { observationProgressPrinter } from '../cli/progress.js';
import { buildRunReport, writeReportOrLog, type RunFacts, type RunReport } from '../cli/report.js';
import { runLog, type Verbosity } from '../cli/run-log.js';
import { mergeShardTree, shardProblem } from '../cli/shard.js';
import { unexpectedFailure } from '../cli/unexpected-failure.js';
import { stageTimer, type SynthStage } from '../cli/stage-timer.js';
import { summaryLines } from '../cli/summary.js';
import { deliveryTree, emitDelivery } from './synth-delivery.js';
import { compileFleetTree } from './synth-fleet.js';
import { appendAll } from '../util/append-all.js';
import { Diag } from '../diagnostics/diagnostic-codes.js';
import { messages, type Diagnostic } from '../diagnostics/diagnostic.js';
import { printStaleClusters, printWarnings } from '../diagnostics/print-diagnostics.js';
import { deliveryDiagnostics, heldBackDiagnostics, suspectDiagnostic } from '../diagnostics/run-diagnostics.js';

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
  /** Fail (and write nothing) when any cluster cannot be observed, or when one mirror cannot be compiled (instead of skipping it). @default false */
  readonly strict?: boolean;
  /** Accept removals the removal guard would stop, and targets that suddenly list no exports. @default false */
  readonly confirmRemovals?: boolean;
  /** Start from an empty lock although the output directory has content (a new fleet). @default false */
  readonly newFleet?: boolean;
  /** Kubeconfig for clusters whose access names none. @default `$KUBECONFIG` or `~/.kube/config` */
  readonly kubeconfig?: string;
  /** Client-side timeout of one API request. @default 10000 */
  readonly requestTimeoutMs?: number;
  /** Items per page when listing (small values exercise pagination). @default 500 */
  readonly pageSize?: number;
  /** Above this many services of a target, its EndpointSlices are read in one list instead of one per service (small values exercise that path). @default 32 */
  readonly perServiceSliceLists?: number;
  /**
   * `write` replaces dist/ and the lock; `plan` only reports what would change; `check` fails when
   * anything would; `observe` observes and compiles but writes only the lock (the first step of a sharded run). @default 'write'
   */
  readonly mode?: 'write' | 'plan' | 'check' | 'observe';
  /** Compile only these source clusters and leave every other folder of `outDir` as it is (sharding); needs `offline`. @default every source */
  readonly sources?: readonly string[];
  /** Write the JSON run report to this file, whatever the outcome. @default no report */
  readonly reportFile?: string;
  /** How much goes to `log`: errors and warnings only, plus progress and summary, or plus fields and timings. @default 'normal' */
  readonly verbosity?: Verbosity;
  /** The clock, read only to record when a cluster became stale and for verbose timings. @default the system clock */
  readonly now?: () => Date;
  /** Where progress and warnings go. @default stderr */
  readonly log?: (line: string) => void;
  /** Where a plan or check report goes. @default stdout */
  readonly print?: (line: string) => void;
  /** synth/observe: how long to wait for another run holding the output's run lock, in seconds; 0 refuses at once (exit 6). @default 60 */
  readonly waitSeconds?: number;
  /**
   * The most objects of one delivery unit (docs/delivery-units.md). Smaller units only cost more
   * Kustomizations; plan/check must be given the same value as synth.
   * @default 500
   */
  readonly maxUnitObjects?: number;
  /** Told how long each stage took, in milliseconds (the benchmark's stage times). @default none */
  readonly onStage?: (stage: SynthStage, ms: number) => void;
  /**
   * Fail with exit 9 (after writing the stale-but-safe output) when a cluster has been stale for
   * longer than this duration (`24h`, `90m`, `1d12h`); `off` turns the fleet's StalenessLimit off.
   * Only for runs that observe (not offline). @default the fleet's StalenessLimit, else none
   */
  readonly maxStale?: string;
  /** Environment read for `GITHUB_STEP_SUMMARY`, where the job summary is appended (the CLI passes its own). @default none: no job summary */
  readonly env?: NodeJS.ProcessEnv;
}

/** What a run did. */
export interface SynthResult {
  readonly exitCode: number;
  readonly changes: readonly ClusterChanges[];
  /** The warnings' messages (each the `message` of one of {@link diagnostics}). */
  readonly warnings: readonly string[];
  /** The warnings as coded data (docs/diagnostics.md). */
  readonly diagnostics: readonly Diagnostic[];
  readonly stale: readonly StaleCluster[];
  /** The error message when the run failed. */
  readonly error?: string;
  /** The machine-readable report (also written to `reportFile` when given). */
  readonly report: RunReport;
}

/**
 * Runs synth; never throws for user mistakes, returning an exit code and a message instead. An
 * unexpected exception (a bug) ends in exit 1 with its stack on the log, and the report is still written.
 */
export async function runSynth(options: SynthOptions): Promise<SynthResult> {
  const held: RunLock[] = [];
  try {
    return await runSynthSteps(options, held);
  } catch (e) {
    return unexpectedFailure(options, e);
  } finally {
    for (const lock of held) lock.release();
  }
}

/** {@link runSynth}, adding the run lock it takes to `held` (released by the caller, whatever happens). */
async function runSynthSteps(options: SynthOptions, held: RunLock[]): Promise<SynthResult> {
  const log = runLog(options.log ?? ((line: string) => process.stderr.write(`${line}\n`)), options.verbosity ?? 'normal');
  const now = options.now ?? (() => new Date());
  const mark = stageTimer(options.onStage);
  const mode = options.mode ?? 'write';
  const shard = options.sources && options.sources.length > 0 ? options.sources : undefined;
  // Everything the report needs, filled in as the run gets further.
  let facts: Omit<RunFacts, 'exitCode' | 'error'> = {
    command: mode === 'write' ? 'synth' : mode, offline: options.offline ?? false, ...(shard ? { shard } : {}),
    stale: [], changes: [], lockChanged: false, diagnostics: [],
  };
  const finish = (exitCode: number, error?: string): SynthResult => {
    if (error !== undefined) log.always(`error: ${error}`);
    const report = buildRunReport({ ...facts, exitCode, ...(error !== undefined ? { error } : {}) });
    if (exitCode !== ExitCode.INVALID_INPUT || facts.spec) for (const line of summaryLines(report)) log.info(line);
    if (options.reportFile && !writeReportOrLog(options.reportFile, report, log) && exitCode === ExitCode.OK) exitCode = ExitCode.WRITE_FAILED;
    if (options.env) appendJobSummary(report, log, options.env);
    return { exitCode, changes: facts.changes, warnings: messages(facts.diagnostics), diagnostics: facts.diagnostics, stale: facts.stale, ...(error !== undefined ? { error } : {}), report };
  };
  const outDir = options.outDir ?? 'dist';
  const lockFile = options.lockFile ?? (options.fleetFile ? options.fleetFile.replace(/\.[cm]?[tj]s$/, '') + '.lock.json' : undefined);
  if (!lockFile) return finish(ExitCode.INVALID_INPUT, 'no lock file given (pass --lock <file>)');
  const kubeconfigProblem = options.kubeconfig !== undefined ? await kubeconfigFileProblem(options.kubeconfig) : undefined;
  if (kubeconfigProblem) return finish(ExitCode.INVALID_INPUT, `--kubeconfig ${options.kubeconfig} ${kubeconfigProblem}; pass a readable kubeconfig file, or leave --kubeconfig out to use $KUBECONFIG or ~/.kube/config`);
  // What an interrupted run left is checked before anything reads or completes it: a journal a commit added could name any path.
  try {
    checkTransaction(outDir, lockFile);
    checkTransaction(options.deliveryDir ?? join(dirname(outDir), 'delivery'));
  } catch (e) {
    if (e instanceof UnsafeJournalError) return finish(ExitCode.INVALID_INPUT, e.message);
    throw e;
  }
  const maxStaleFlag = options.maxStale?.trim();
  const maxStaleMs = maxStaleFlag !== undefined && maxStaleFlag !== 'off' ? parseDuration(maxStaleFlag) : undefined;
  if (maxStaleFlag !== undefined && maxStaleFlag !== 'off' && maxStaleMs === undefined) {
    return finish(ExitCode.INVALID_INPUT, `--max-stale must be a duration such as 24h, 90m or 1d12h (or off), not "${options.maxStale}"`);
  }
  if (maxStaleMs !== undefined && options.offline) {
    return finish(ExitCode.INVALID_INPUT, '--max-stale limits how long clusters may go unobserved, and --offline observes none: leave --max-stale out of offline runs (put it on the run that observes)');
  }
  // One writer at a time: it then completes (or undoes) whatever an interrupted run left.
  if (mode === 'write' || mode === 'observe') {
    try {
      held.push(await acquireRunLock(outDir, {
        ...(options.waitSeconds !== undefined ? { waitSeconds: options.waitSeconds } : {}),
        command: `${facts.command}${facts.offline ? ' --offline' : ''}${shard ? ` --source ${shard.join(',')}` : ''}`,
        onWait: (holder) => log.info(`waiting for another mirrorc run to finish writing ${outDir}/ (${holder})...`),
      }));
      recoverInterruptedWrite(outDir, lockFile);
    } catch (e) {
      if (e instanceof RunLockBusyError) return finish(ExitCode.BUSY, e.message);
      if (e instanceof UnsafeJournalError) return finish(ExitCode.INVALID_INPUT, e.message);
      if (e instanceof WriteFailedError) return finish(ExitCode.WRITE_FAILED, e.message);
      throw e;
    }
  }

  // The lock as committed: the file itself, or its new text in a committed journal that an interrupted run left (plan/check do not recover).
  const committedLock = committedPath(outDir, lockFile);

  // Model: load and validate before any network call.
  let spec: FleetSpec;
  let previous: FleetSnapshot;
  try {
    const define = options.define ?? (await importFleetDefinition(options.fleetFile ?? 'clusters/fleet.ts'));
    spec = buildFleet(define, options.fleetFile).fleet.toSpec();
    const problem = missingLockProblem(lockFile, existsSync(committedLock), outDir, options.newFleet ?? false);
    if (problem) return finish(ExitCode.INVALID_INPUT, problem);
    previous = readLockFile(committedLock);
    const gatewayProblems = lockGatewayProblems(spec, previous);
    if (gatewayProblems.length > 0) throw new LockFileError(lockFile, 'holds a gateway address, port or identity that mirrorc rejects (see below)', gatewayProblems);
  } catch (e) {
    if (e instanceof FleetDefinitionError || e instanceof FleetLoadError || e instanceof LockFileError) {
      facts = { ...facts, errorCode: e instanceof LockFileError ? Diag.LOCK_FILE_INVALID : Diag.FLEET_DEFINITION_INVALID };
      return finish(ExitCode.INVALID_INPUT, e.message);
    }
    throw e;
  }
  if (shard) {
    const problem = shardProblem(spec, shard);
    if (problem) return finish(ExitCode.INVALID_INPUT, problem);
    // Shards compile from one shared observation; observing here would update targets that other
    // shards' sources also mirror, without recompiling them.
    if (!options.offline || mode === 'observe') {
      return finish(ExitCode.INVALID_INPUT, '--source compiles from the lock alone: add --offline, after one "observe" run has updated the lock for every shard (see README "Sharding")');
    }
  }
  facts = { ...facts, spec, snapshot: previous };
  mark('load');
  // The staleness limit in force: the flag, else the fleet's default; never for offline runs.
  const staleLimit: StaleLimit | undefined = options.offline || maxStaleFlag === 'off' ? undefined
    : maxStaleMs !== undefined ? { text: maxStaleFlag!, ms: maxStaleMs, origin: '--max-stale' }
      : spec.stalenessLimit ? { text: spec.stalenessLimit.maxStale, ms: spec.stalenessLimit.maxStaleMs, origin: "the fleet's StalenessLimit maxStale" }
        : undefined;
  /** A run that otherwise succeeded: exit 9 instead when a cluster is stale for longer than the limit. */
  const finishOk = (wrote: string): SynthResult => {
    const over = staleLimit ? clustersOverStaleLimit(snapshot.staleSince, staleLimit, now()) : [];
    return over.length > 0 ? finish(ExitCode.STALE_LIMIT, staleLimitMessage(over, staleLimit!, wrote)) : finish(ExitCode.OK);
  };

  // Observe (unless offline): a cluster that fails keeps its locked state.
  let snapshot = previous;
  const warnings: Diagnostic[] = [];
  if (!options.offline) {
    log.info(`observing ${spec.clusters.length} cluster${spec.clusters.length === 1 ? '' : 's'}...`);
    const observation = await observeFleet(spec, previous, {
      ...(options.kubeconfig !== undefined ? { defaultKubeconfig: options.kubeconfig } : {}),
      ...(options.requestTimeoutMs !== undefined ? { requestTimeoutMs: options.requestTimeoutMs } : {}),
      ...(options.pageSize !== undefined ? { pageSize: options.pageSize } : {}),
      ...(options.perServiceSliceLists !== undefined ? { perServiceSliceLists: options.perServiceSliceLists } : {}),
      onProgress: observationProgressPrinter(log, now),
    });
    const stale = observation.stale;
    snapshot = { ...observation.snapshot, staleSince: nextStaleSince(previous.staleSince, observationOutcomes(spec, stale), fleetRoles(spec), now()) };
    appendAll(warnings, observation.diagnostics);
    if (!options.confirmRemovals) {
      const held = holdBackSuspectTargets(previous, snapshot);
      snapshot = held.snapshot;
      appendAll(warnings, held.suspects.map(suspectDiagnostic));
    }
    facts = { ...facts, snapshot, stale, diagnostics: warnings };
    if (stale.length > 0) {
      printStaleClusters(log, stale, lockFile);
      if (options.strict) return finish(ExitCode.STALE, '--strict: not writing anything because some clusters could not be observed');
    }
  }

  if (!options.offline) mark('observe');

  // Compile (pure) and render.
  let compiled: FileTree;
  let planRows: readonly string[] = [];
  const compileStarted = now().getTime();
  const heldBackWarnings: Diagnostic[] = [];
  // The committed output, read once: its mirror owners settle name clashes, and the new tree is compared with it.
  const before = readCommittedTree(outDir);
  try {
    const isolation = { strict: options.strict ?? false, previousOwners: previousOwnerLookup(before), previousMirrors: previousMirrorLookup(before), now: new Date(compileStarted) };
    const compileOptions = shard ? { sources: new Set(shard), ...isolation } : isolation;
    let result = compileFleetTree(spec, snapshot, compileOptions, () => mark('compile'), before, options.maxUnitObjects);
    // A large removal caused by one target's new observation holds back that target alone (see hold-back-targets.ts).
    if (!options.confirmRemovals && !shard) {
      const held = holdBackRemovingTargets({ previous, snapshot, before, compiled: result, compile: (s) => compileFleetTree(spec, s, compileOptions, undefined, before, options.maxUnitObjects) });
      result = held.compiled;
      appendAll(heldBackWarnings, heldBackDiagnostics(held.held, held.warnings));
    }
    appendAll(warnings, result.diagnostics);
    appendAll(warnings, heldBackWarnings);
    planRows = result.planRows;
    // The lock remembers compile's pinned per-pod ClusterIPs next to the observation.
    snapshot = result.snapshot;
    compiled = result.tree;
  } catch (e) {
    if (e instanceof CompileError) {
      facts = { ...facts, diagnostics: warnings, errorDiagnostics: e.diagnostics };
      return finish(ExitCode.COMPILE_ERROR, e.message);
    }
    throw e;
  }
  mark('render');
  log.detail(`compiled ${shard ? `source${shard.length === 1 ? '' : 's'} ${shard.join(', ')}` : 'every source'} in ${now().getTime() - compileStarted} ms`);
  appendAll(warnings, deliveryDiagnostics(spec));
  printWarnings(log, warnings);

  // A shard replaces only its own folders; every other path of the tree is carried over as it is.
  // Folders of clusters that are no link's source hold only their reader identity: every shard writes them alike.
  const tree = shard ? mergeShardTree(before, compiled, new Set([...shard, ...nonSourceClusters(spec)])) : compiled;
  // The delivery manifests follow the delivery units of the whole tree (Flux's unit Kustomizations, Argo CD's sources).
  const delivery = deliveryTree(spec, tree);
  const deliveryDir = options.deliveryDir ?? join(dirname(outDir), 'delivery');
  const changes = diffTrees(before, tree);
  const removals = options.confirmRemovals ? [] : largeRemovals(before, tree);
  const lockText = renderLockFile(snapshot);
  const lockChanged = readTextOrUndefined(committedLock) !== lockText;
  facts = { ...facts, diagnostics: warnings, tree, changes, lockChanged };
  mark('diff');

  if (removals.length > 0 && (mode === 'write' || mode === 'observe')) {
    return finish(ExitCode.REMOVAL_NOT_CONFIRMED, largeRemovalMessage(removals));
  }
  if (mode === 'write') {
    // Emit: write what differs in the tree and the lock, through a committed journal.
    try {
      writeOutput(outDir, tree, lockFile, lockText, before);
      mark('write');
      logChanges(log.info, log.detail, changes, outDir, before, tree);
      if (delivery) emitDelivery('write', deliveryDir, delivery, log.info);
    } catch (e) {
      if (e instanceof WriteFailedError) return finish(ExitCode.WRITE_FAILED, e.message);
      throw e;
    }
    return finishOk(`${outDir}/ and the lock were written (stale clusters keep their last known state)`);
  }
  if (mode === 'observe') {
    try {
      writeLockOnly(outDir, lockFile, lockText);
    } catch (e) {
      if (e instanceof WriteFailedError) return finish(ExitCode.WRITE_FAILED, e.message);
      throw e;
    }
    log.info(`${lockFile}: ${lockChanged ? 'updated' : 'unchanged'}; ${outDir}/ left as it is (compile it with: synth --offline [--source <cluster>])`);
    return finishOk('the lock was written (stale clusters keep their last known state)');
  }

  // Plan or check: compare with what is on disk, write nothing.
  const printSink = options.print ?? ((line: string) => process.stdout.write(`${line}\n`));
  // The plan shows changed fields, which may hold a target's annotation values: redacted like every log line.
  const print = (line: string): void => printSink(redact(line));
  logChanges(print, print, changes, outDir, before, tree);
  if (lockChanged) print(`${lockFile}: would change`);
  if (mode === 'plan') for (const row of planRows) print(row);
  if (removals.length > 0) print(`synth would stop here: ${largeRemovalMessage(removals).replace('; nothing was written', '')}`);
  const deliveryChanged = delivery ? emitDelivery(mode, deliveryDir, delivery, print) : false;
  if (mode === 'check' && (changes.length > 0 || lockChanged || deliveryChanged)) {
    return finish(ExitCode.CHECK_FAILED, `${outDir}/ or ${lockFile} differs from what synth would write; run synth and commit the result`);
  }
  return finishOk('nothing was written');
}

/** Clusters that are no link's source. */
function nonSourceClusters(spec: FleetSpec): string[] {
  const sources = new Set(spec.links.map((l) => l.source));
  return spec.clusters.map((c) => c.name).filter((c) => !sources.has(c));
}

/**
 * Why a missing lock is an error here: with no lock, every target counts as never observed, so an
 * offline run (or a mistyped --lock) would compile an empty fleet and remove every mirror.
 */
function missingLockProblem(lockFile: string, lockExists: boolean, outDir: string, newFleet: boolean): string | undefined {
  if (newFleet || lockExists || !hasFiles(outDir)) return undefined;
  return `lock file ${lockFile} does not exist, but ${outDir}/ has content: compiling without the lock would remove every mirror. ` +
    `Check the path (--lock), or restore the lock from git; to start this fleet from scratch on purpose, pass --new-fleet`;
}

function hasFiles(dir: string): boolean {
  try {
    return readdirSync(dir).length > 0;
  } catch {
    return false;
  }
}

function readTextOrUndefined(path: string): string | undefined {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return undefined;
  }
}

/** Per source folder the files added, changed and removed (`files`), and each changed field (`fields`). */
function logChanges(files: (line: string) => void, fields: (line: string) => void, changes: readonly ClusterChanges[], outDir: string, before: FileTree, after: FileTree): void {
  if (changes.length === 0) {
    files(`${outDir}/ is up to date: no changes`);
    return;
  }
  for (const c of changes) {
    files(`${join(outDir, c.cluster)}/: ${c.added.length} added, ${c.changed.length} changed, ${c.removed.length} removed`);
    for (const f of c.added) files(`  + ${f}`);
    for (const f of c.changed) {
      files(`  ~ ${f}`);
      const key = `${c.cluster}/${f}`;
      const changed = changedFields(YAML.parse(before.get(key) ?? ''), YAML.parse(after.get(key) ?? ''));
      for (const field of changed.length > 0 ? changed : ['(text only: comments or formatting)']) fields(`      ${field}`);
    }
    for (const f of c.removed) files(`  - ${f}`);
  }
}
