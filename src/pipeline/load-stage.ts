/**
 * Stage 1, load: the run's paths and flags checked, the run lock taken (write and observe) with
 * whatever an interrupted run left completed or undone (both in claim-output.ts, which the
 * orchestrator starts first), then the fleet module and the lock loaded and validated, all before
 * any network call. Every refusal is an {@link InvalidInputError} (or the run lock's
 * RunLockBusyError, a WriteFailedError): nothing was contacted or written.
 */
import type { FsHost } from '../emit/fs-host.js';
import { committedPath, committedWritePending } from '../emit/write-output.js';
import { CheckFailedError, InvalidInputError } from '../errors/mirrorc-error.js';
import { shownPath } from '../emit/write-failure.js';
import { transactionDir } from '../emit/write-transaction.js';
import type { StaleLimit } from '../guard/stale-limit.js';
import { buildFleet, importFleetDefinition } from '../load/load-fleet.js';
import type { FleetSpec } from '../model/fleet-spec.js';
import { lockGatewayProblems } from '../observe/gateway-checks.js';
import { LockFileError, readLock } from '../observe/lock-file.js';
import type { SourceRecords, UnitRecords } from '../state/lock-document.js';
import type { UnitFolderFiles } from '../state/unit-folders.js';
import type { FleetSnapshot } from '../snapshot/snapshot.js';
import type { ClaimedOutput } from './claim-output.js';
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
 * Runs the load stage from the output {@link claimOutput} claimed (its first half): the fleet module
 * and the lock loaded and validated.
 * @throws InvalidInputError (and its subclasses), LockFileError
 */
export async function loadStage(run: RunContext, claimed: ClaimedOutput): Promise<Loaded> {
  const { options, mode, shard, host } = run;
  const { outDir, lockFile, deliveryDir, maxStaleFlag, maxStaleMs, unitFolderWalk: walking } = claimed;
  if (mode === 'check') checkNoPendingWrite(host, [outDir, deliveryDir]);
  const paths: RunPaths = { outDir, lockFile, deliveryDir, committedLock: committedPath(outDir, lockFile, host) };

  // The model and the lock: loaded and validated before any network call.
  const define = options.define ?? (await importFleetDefinition(options.fleetFile ?? 'clusters/fleet.ts'));
  const spec = buildFleet(define, options.fleetFile).fleet.toSpec();
  const lockExists = host.exists(paths.committedLock);
  const problem = (options.newFleet ?? false) || lockExists ? undefined : missingLockProblem(lockFile, outDir, host);
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
 * check verifies what is on disk: a committed write that an interrupted synth left to complete means
 * the tree on disk is not (all) the committed one, whatever the journal says it will be.
 * @throws CheckFailedError (exit 5) when one of `homes` has such a write
 */
function checkNoPendingWrite(host: FsHost, homes: readonly string[]): void {
  for (const home of homes) {
    if (!committedWritePending(home, host)) continue;
    throw new CheckFailedError(`an interrupted synth committed a write of ${home}/ that is not in place yet (${shownPath(transactionDir(home))}/journal.json): ` +
      `the files on disk are not what it committed; run synth to complete it, and commit the result`);
  }
}

/**
 * Why a missing lock is an error here: with no lock, every target counts as never observed, so an
 * offline run (or a mistyped --lock) would compile an empty fleet and remove every mirror.
 */
function missingLockProblem(lockFile: string, outDir: string, host: FsHost): string | undefined {
  if (!hasFiles(host, outDir)) return undefined;
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
