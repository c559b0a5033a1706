/**
 * Writes `dist/` and the lock file so that a failed or interrupted run never leaves a mix: only the
 * files that differ are written, through a committed journal (see write-transaction.ts), and an
 * interrupted run is completed or undone by the next one. Callers hold the run lock (run-lock.ts).
 * Every file-system call goes through the {@link FsHost} given (default: the real one).
 */
import { resolve } from 'node:path';
import { NODE_FS_HOST } from './durable-fs.js';
import type { FsHost } from './fs-host.js';
import { recoverLegacySwap } from './legacy-swap-recovery.js';
import { isFsError, shownPath, WriteFailedError } from './write-failure.js';
import { readTree } from './read-tree.js';
import type { FileTree } from './render-files.js';
import { commitChanges, recoverTransaction, type WriteSummary } from './write-transaction.js';

export { readTree } from './read-tree.js';
export { readCommittedTree, committedPath, committedWritePending, checkTransaction, type WriteSummary } from './write-transaction.js';
export { UnsafeJournalError } from './journal-paths.js';

/**
 * Finishes or undoes whatever an interrupted earlier run left for `outDir` (a committed journal is
 * rolled forward, an uncommitted transaction discarded, old-format `.dist.staging-*`/`.dist.previous-*`
 * folders resolved). Call it only while holding the run lock of `outDir`.
 */
export function recoverInterruptedWrite(outDir: string, lockPath?: string, host: FsHost = NODE_FS_HOST): void {
  try {
    recoverLegacySwap(host, resolve(outDir), lockPath !== undefined ? resolve(lockPath) : undefined);
    recoverTransaction(outDir, lockPath, host);
  } catch (e) {
    if (!isFsError(e)) throw e;
    const e2 = e as NodeJS.ErrnoException & { dest?: string };
    throw new WriteFailedError(e2.dest ?? e2.path ?? outDir, e.code,
      `an interrupted earlier run left ${shownPath(resolve(outDir))}/ to be completed (or undone), and that failed; plan reads what it committed (check fails until it is in place); fix the cause and run synth again`);
  }
}

/** The lock file a write makes: its path and its text. */
export interface LockWrite {
  readonly path: string;
  readonly text: string;
}

/** How {@link writeOutput} reads and writes. */
export interface WriteOutputOptions {
  /** What `outDir` holds now, when the caller has already read it after recovering (synth does, under the run lock). @default read here */
  readonly before?: FileTree | undefined;
  /** The file system. @default NODE_FS_HOST */
  readonly host?: FsHost;
}

/**
 * Makes `outDir` exactly `tree` and the lock file `lock.text`, writing only files that differ
 * (nothing at all when nothing differs).
 * Throws `WriteFailedError` when the file system refuses.
 */
export function writeOutput(outDir: string, tree: FileTree, lock: LockWrite, options: WriteOutputOptions = {}): WriteSummary {
  const { path: lockPath, text: lockText } = lock;
  const { before, host = NODE_FS_HOST } = options;
  recoverInterruptedWrite(outDir, lockPath, host);
  return commitChanges(outDir, [{ dir: outDir, before: before ?? readTree(outDir, host), after: tree }], [{ path: lockPath, text: lockText }], host);
}

/** Makes the lock file `lockText` alone, through the transaction of `outDir` (the `observe` command). */
export function writeLockOnly(outDir: string, lockPath: string, lockText: string, host: FsHost = NODE_FS_HOST): WriteSummary {
  recoverInterruptedWrite(outDir, lockPath, host);
  return commitChanges(outDir, [], [{ path: lockPath, text: lockText }], host);
}

/** Makes `dir` exactly `tree` (no lock file), writing only what differs. Used for `delivery/`. */
export function replaceDirectory(dir: string, tree: FileTree, host: FsHost = NODE_FS_HOST): WriteSummary {
  recoverInterruptedWrite(dir, undefined, host);
  return commitChanges(dir, [{ dir, before: readTree(dir, host), after: tree }], [], host);
}
