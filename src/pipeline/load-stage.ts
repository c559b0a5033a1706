/**
 * Stage 1, load: the run's paths and flags checked, the run lock taken (write and observe) with
 * whatever an interrupted run left completed or undone, then the fleet module and the lock loaded
 * and validated, all before any network call. Every refusal is an {@link InvalidInputError} (or the
 * run lock's {@link RunLockBusyError}, a {@link WriteFailedError}): nothing was contacted or written.
 */
import { dirname, join } from 'node:path';
import type { FsHost } from '../emit/fs-host.js';
import { acquireRunLock, type RunLock } from '../emit/run-lock.js';
import { checkTransaction, committedPath, recoverInterruptedWrite } from '../emit/write-output.js';
import { InvalidInputError } from '../errors/mirrorc-error.js';
import type { StaleLimit } from '../guard/stale-limit.js';
import { buildFleet, importFleetDefinition } from '../load/load-fleet.js';
import type { FleetSpec } from '../model/fleet-spec.js';
import { lockGatewayProblems } from '../observe/gateway-checks.js';
import { kubeconfigFileProblem } from '../observe/kubeconfig-file-problem.js';
import { LockFileError, readLock } from '../observe/lock-file.js';
import type { SourceRecords, UnitRecords } from '../state/lock-document.js';
import { walkUnitFolders, type UnitFolderFiles } from '../state/unit-folders.js';
import type { FleetSnapshot } from '../snapshot/snapshot.js';
import { parseDuration } from '../util/duration.js';
import type { RunContext } from './run-context.js';
import { shardProblem } from './shard.js';

/** Where a run reads and writes. */
export interface RunPaths {
  /** The output folder (`dist/`). */
  readonly outDir: string;
  /** The lock file. */
  readonly lockFile: string;
  /** The `delivery/` folder. */
  readonly deliveryDir: string;
  /** Where the committed lock is: the file, or its staged copy in a committed journal an interrupted run left (plan/check do not recover). */
  readonly committedLock: string;
}

/** What the load stage hands on. */
export interface Loaded {
  readonly paths: RunPaths;
  /** The validated fleet. */
  readonly spec: FleetSpec;
  /** The lock as committed: its snapshot (observed section and pinned IPs). */
  readonly previous: FleetSnapshot;
  /** The lock's unit records (docs/lock-and-state.md); undefined for a format 1 lock (migrated: its folders are adopted). */
  readonly previousUnits?: UnitRecords;
  /** The lock's source records; undefined for a lock of format 1 or 2 (every source is planned once). */
  readonly previousSources?: SourceRecords;
  /** The committed lock's text as read (undefined when there is none): the run's new lock text is compared with it. */
  readonly lockText?: string;
  /** The staleness limit in force: `--max-stale`, else the fleet's; never for offline runs. */
  readonly staleLimit?: StaleLimit;
  /**
   * synth and observe: the walk of every unit folder of `dist/` (their files), started under the run
   * lock after recovery and still running when the stage returns: compile plans while it runs and
   * checks its answers against it afterwards (src/pipeline/compile-stage.ts). Undefined when the walk failed.
   */
  readonly unitFolderWalk?: Promise<UnitFolderFiles | undefined>;
}

/**
 * Runs the load stage. A run lock it takes is pushed onto `held` at once, so that the caller
 * releases it whatever happens later.
 * @throws InvalidInputError (and its subclasses), RunLockBusyError, WriteFailedError
 */
export async function loadStage(run: RunContext, held: RunLock[]): Promise<Loaded> {
  const { options, mode, shard, log, host } = run;
  const outDir = options.outDir ?? 'dist';
  const lockFile = options.lockFile ?? (options.fleetFile ? options.fleetFile.replace(/\.[cm]?[tj]s$/, '') + '.lock.json' : undefined);
  if (!lockFile) throw new InvalidInputError('no lock file given (pass --lock <file>)');
  const deliveryDir = options.deliveryDir ?? join(dirname(outDir), 'delivery');
  const kubeconfigProblem = options.kubeconfig !== undefined ? await kubeconfigFileProblem(options.kubeconfig) : undefined;
  if (kubeconfigProblem) throw new InvalidInputError(`--kubeconfig ${options.kubeconfig} ${kubeconfigProblem}; pass a readable kubeconfig file, or leave --kubeconfig out to use $KUBECONFIG or ~/.kube/config`);
  // What an interrupted run left is checked before anything reads or completes it: a journal a commit added could name any path.
  checkTransaction(outDir, lockFile, host);
  checkTransaction(deliveryDir, undefined, host);
  const maxStaleFlag = options.maxStale?.trim();
  const maxStaleMs = maxStaleFlag !== undefined && maxStaleFlag !== 'off' ? parseDuration(maxStaleFlag) : undefined;
  if (maxStaleFlag !== undefined && maxStaleFlag !== 'off' && maxStaleMs === undefined) {
    throw new InvalidInputError(`--max-stale must be a duration such as 24h, 90m or 1d12h (or off), not "${options.maxStale}"`);
  }
  if (maxStaleMs !== undefined && options.offline) {
    throw new InvalidInputError('--max-stale limits how long clusters may go unobserved, and --offline observes none: leave --max-stale out of offline runs (put it on the run that observes)');
  }
  // One writer at a time: it then completes (or undoes) whatever an interrupted run left.
  let walking: Promise<UnitFolderFiles | undefined> | undefined;
  if (mode === 'write' || mode === 'observe') {
    held.push(await acquireRunLock(outDir, {
      ...(options.waitSeconds !== undefined ? { waitSeconds: options.waitSeconds } : {}),
      command: `${mode === 'write' ? 'synth' : mode}${options.offline ? ' --offline' : ''}${shard ? ` --source ${shard.join(',')}` : ''}`,
      onWait: (holder) => log.info(`waiting for another mirrorc run to finish writing ${outDir}/ (${holder})...`),
      host,
    }));
    recoverInterruptedWrite(outDir, lockFile, host);
    // Nothing else writes dist/ now (the run lock) and nothing of an interrupted run is left to
    // complete: its unit folders are walked (on worker threads) while the fleet is imported and the
    // lock parsed. A walk that fails leaves the check to walk each folder when it is asked.
    walking = walkUnitFolders(outDir, host).catch(() => undefined);
  }
  const paths: RunPaths = { outDir, lockFile, deliveryDir, committedLock: committedPath(outDir, lockFile, host) };

  // The model and the lock: loaded and validated before any network call.
  const define = options.define ?? (await importFleetDefinition(options.fleetFile ?? 'clusters/fleet.ts'));
  const spec = buildFleet(define, options.fleetFile).fleet.toSpec();
  const problem = missingLockProblem(lockFile, host.exists(paths.committedLock), outDir, options.newFleet ?? false, host);
  if (problem) throw new InvalidInputError(problem);
  const { snapshot: previous, units: previousUnits, sources: previousSources, text: lockText } = readLock(paths.committedLock, (p) => host.readFile(p));
  const gatewayProblems = lockGatewayProblems(spec, previous);
  if (gatewayProblems.length > 0) throw new LockFileError(lockFile, 'holds a gateway address, port or identity that mirrorc rejects (see below)', gatewayProblems);
  if (shard) {
    const problem = shardProblem(spec, shard);
    if (problem) throw new InvalidInputError(problem);
    // Shards compile from one shared observation; observing here would update targets that other
    // shards' sources also mirror, without recompiling them.
    if (!options.offline || mode === 'observe') {
      throw new InvalidInputError('--source compiles from the lock alone: add --offline, after one "observe" run has updated the lock for every shard (see docs/ci.md, "Sharding large fleets")');
    }
  }
  const staleLimit: StaleLimit | undefined = options.offline || maxStaleFlag === 'off' ? undefined
    : maxStaleMs !== undefined ? { text: maxStaleFlag!, ms: maxStaleMs, origin: '--max-stale' }
      : spec.stalenessLimit ? { text: spec.stalenessLimit.maxStale, ms: spec.stalenessLimit.maxStaleMs, origin: "the fleet's StalenessLimit maxStale" }
        : undefined;
  return { paths, spec, previous, ...(previousUnits ? { previousUnits } : {}), ...(previousSources ? { previousSources } : {}), ...(lockText !== undefined ? { lockText } : {}), ...(staleLimit ? { staleLimit } : {}), ...(walking ? { unitFolderWalk: walking } : {}) };
}

/**
 * Why a missing lock is an error here: with no lock, every target counts as never observed, so an
 * offline run (or a mistyped --lock) would compile an empty fleet and remove every mirror.
 */
function missingLockProblem(lockFile: string, lockExists: boolean, outDir: string, newFleet: boolean, host: FsHost): string | undefined {
  if (newFleet || lockExists || !hasFiles(host, outDir)) return undefined;
  return `lock file ${lockFile} does not exist, but ${outDir}/ has content: compiling without the lock would remove every mirror. ` +
    `Check the path (--lock), or restore the lock from git; to start this fleet from scratch on purpose, pass --new-fleet`;
}

function hasFiles(host: FsHost, dir: string): boolean {
  try {
    return host.readdir(dir).length > 0;
  } catch {
    return false;
  }
}
