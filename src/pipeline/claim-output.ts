/**
 * The first half of the load stage: the run's paths and flags checked, and for synth and observe
 * the output claimed — the run lock taken, whatever an interrupted run left completed or undone,
 * and the walk of every unit folder started on worker threads. It imports little (no fleet model,
 * no compiler, no lock schema), so that the orchestrator (run-synth.ts) starts it before it loads
 * the later stages' modules: at 20×500 the walk (545,801 files) then runs while they load (≈ 0.3 s
 * of a run that otherwise left the second core idle). Every refusal is an InvalidInputError (or the
 * run lock's RunLockBusyError, a WriteFailedError): nothing was contacted or written.
 */
import { dirname, join } from 'node:path';
import { acquireRunLock, type RunLock } from '../emit/run-lock.js';
import { checkTransaction, recoverInterruptedWrite } from '../emit/write-output.js';
import { InvalidInputError } from '../errors/mirrorc-error.js';
import { kubeconfigFileProblem } from '../observe/kubeconfig-file-problem.js';
import { walkUnitFolders, type UnitFolderFiles } from '../state/unit-folders.js';
import { parseDuration } from '../util/duration.js';
import type { RunContext } from './run-context.js';

/** What {@link claimOutput} hands on to the rest of the load stage. */
export interface ClaimedOutput {
  /** The output folder (`dist/`). */
  readonly outDir: string;
  /** The lock file. */
  readonly lockFile: string;
  /** The `delivery/` folder. */
  readonly deliveryDir: string;
  /** `--max-stale` as given (trimmed), when it was. */
  readonly maxStaleFlag?: string;
  /** `--max-stale` in milliseconds, when it is a duration (not `off`). */
  readonly maxStaleMs?: number;
  /**
   * synth and observe: the walk of every unit folder of `dist/`, started under the run lock after
   * recovery (see Loaded.unitFolderWalk); undefined for the other modes.
   */
  readonly unitFolderWalk?: Promise<UnitFolderFiles | undefined>;
}

/**
 * Checks the run's paths and flags and, for synth and observe, claims the output. A run lock it
 * takes is pushed onto `held` at once, so that the caller releases it whatever happens later.
 * @throws InvalidInputError (and its subclasses), RunLockBusyError, WriteFailedError
 */
export async function claimOutput(run: RunContext, held: RunLock[]): Promise<ClaimedOutput> {
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
    // complete: its unit folders are walked (on worker threads) while the stages' modules load, the
    // fleet is imported and the lock parsed. A walk that fails leaves the check to walk each folder
    // when it is asked.
    walking = walkUnitFolders(outDir, host).catch(() => undefined);
  }
  return {
    outDir, lockFile, deliveryDir,
    ...(maxStaleFlag !== undefined ? { maxStaleFlag } : {}),
    ...(maxStaleMs !== undefined ? { maxStaleMs } : {}),
    ...(walking ? { unitFolderWalk: walking } : {}),
  };
}
