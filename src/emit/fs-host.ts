/**
 * The one file-system host of the write path: every read and write of `dist/`, `delivery/`, the
 * lock, the transaction folder and the run lock's holder file goes through an {@link FsHost} passed
 * in (`SynthOptions.host`; default {@link NODE_FS_HOST}, the real node:fs one in durable-fs.ts).
 * Each mutating call is one named step of the write path ({@link WriteStep}): a test wraps the host
 * (test/fixtures/faulting-host.ts) to fail or crash at any step.
 */
import type { Dirent, Stats } from 'node:fs';
import type { FolderFiles } from './folder-files.js';

/** Every named step of the write path, in the order a run meets them (see docs/safety/write-path.md). */
export const WRITE_STEPS = [
  /** Writing the run lock's holder-info file (best effort). */
  'holder-info',
  /** Putting back or deleting leftovers of the old (swap) format. */
  'legacy-recover',
  /** Removing an uncommitted transaction (after a failure, or left by a killed run). */
  'discard',
  /**
   * Creating the transaction folder and its list of files staged outside it (beside their targets, on
   * another mount), and the output folders such a file or new unit folder is staged in.
   */
  'txn-begin',
  /** Writing one staged file (not yet flushed). */
  'stage-file',
  /** Flushing every staged file to disk at once (one syncfs per file system, else an fsync per file). */
  'stage-sync',
  /** Writing (and fsyncing) the journal's temporary file. */
  'journal-write',
  /** Renaming the journal into place: the commit point. */
  'journal-commit',
  /** Creating a folder of the output that the new tree needs. */
  'apply-mkdir',
  /** Renaming a new unit folder, staged whole, into place (with its files and its kustomization.yaml). */
  'apply-folder',
  /** Renaming a staged object file into place. */
  'apply-object',
  /** Renaming a staged kustomization.yaml into place (after every object file). */
  'apply-kustomization',
  /** Deleting a file the new tree no longer has (after every put). */
  'apply-delete',
  /** Removing a folder left empty by the deletes. */
  'apply-rmdir',
  /** Renaming the staged lock file into place (last). */
  'apply-lock',
  /** Removing the journal and the transaction folder after a complete apply. */
  'txn-cleanup',
] as const;

/** A named step of the write path. */
export type WriteStep = (typeof WRITE_STEPS)[number];

/** The file-system calls of the write path. Paths are as given (relative to the working folder, or absolute). */
export interface FsHost {
  // Reads.
  /** Whether `path` exists (following symbolic links). */
  exists(path: string): boolean;
  /** The entry `path` itself (a link is not followed), or undefined when there is none. */
  lstat(path: string): Stats | undefined;
  /** What `path` leads to; throws (ENOENT...) when nothing. */
  stat(path: string): Stats;
  /** The UTF-8 text of the file `path`; throws (ENOENT...) when it cannot. */
  readFile(path: string): string;
  /** The names in the folder `path`. */
  readdir(path: string): string[];
  /** The entries of the folder `path`, with their types. */
  readdirEntries(path: string): Dirent[];
  /** The real path of `path` (symbolic links resolved); throws when it does not exist. */
  realpath(path: string): string;
  /**
   * The record of the files below each folder of `dirs`, in order (src/emit/folder-files.ts: names
   * and sizes, no file opened; undefined for a folder that cannot be listed or holds anything but
   * files and folders). The real host walks on worker threads, beside the caller's own work.
   */
  folderFiles(dirs: readonly string[]): Promise<readonly (FolderFiles | undefined)[]>;
  /**
   * Whether an entry of the folder `from` can be renamed into the folder `to` (both exist): false
   * when they are on two mounts (rename(2) fails with EXDEV), also two mounts of one file system (a
   * bind mount: same `st_dev`). Changes nothing. Throws the file system's error when it refuses
   * otherwise (EROFS, EACCES).
   */
  renameReaches(from: string, to: string): boolean;

  // Writes: each is the named step `step` and durable unless said otherwise.
  /** Creates or truncates `path` and writes `text`; `flush`: fsync it too (else {@link flush} makes a batch durable). */
  writeFile(step: WriteStep, path: string, text: string, flush: boolean): void;
  /** Makes `files` durable; returns the devices flushed as a whole (syncfs), whose folder entries are durable too. */
  flush(step: WriteStep, files: readonly string[]): ReadonlySet<number>;
  /** Renames `from` to `to` (atomic within one file system). */
  rename(step: WriteStep, from: string, to: string): void;
  /** Deletes the file `path`; a missing file is fine. */
  unlink(step: WriteStep, path: string): void;
  /** Creates the folder `path` and its missing parents. */
  mkdir(step: WriteStep, path: string): void;
  /** Removes the empty folder `path`; a missing or non-empty folder is left as it is. */
  rmdir(step: WriteStep, path: string): void;
  /**
   * Copies the file or folder `from` (and everything below it) to `to`, which must not exist, each
   * file and folder made durable: where a rename cannot go (another mount), after the commit point.
   */
  copyTree(step: WriteStep, from: string, to: string): void;
  /** Removes `path` and everything below it; a missing path is fine. */
  removeTree(step: WriteStep, path: string): void;
  /** Replaces the single file `path` atomically and durably (temp file, rename, folder fsync). */
  writeAtomically(step: WriteStep, path: string, text: string): void;
  /** Creates `path` holding `text` only if it does not exist (O_EXCL); false when it exists. Not a step (the run lock's pid file). */
  createExclusive(path: string, text: string): boolean;
  /** Deletes the file `path` if it can, ignoring every failure. Not a step (the run lock's bookkeeping). */
  deleteQuietly(path: string): void;
  /** Flushes a folder's entries to disk; a missing folder is skipped (not a step: it changes nothing visible). */
  fsyncDirectory(dir: string): void;
}
