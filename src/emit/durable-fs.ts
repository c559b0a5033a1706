/**
 * The real file-system host ({@link NODE_FS_HOST}): node:fs, durable. Files and the folders whose
 * entries change are fsynced; a batch of staged files is flushed with one syncfs per file system.
 */
import { execFileSync } from 'node:child_process';
import { closeSync, existsSync, fsyncSync, lstatSync, mkdirSync, openSync, readFileSync, readdirSync, realpathSync, renameSync, rmSync, rmdirSync, statSync, unlinkSync, writeFileSync, writeSync } from 'node:fs';
import type { Dirent } from 'node:fs';
import { release } from 'node:os';
import { KUSTOMIZATION_FILE } from './output-names.js';
import { dirname, join, resolve } from 'node:path';
import type { FsHost, WriteStep } from './fs-host.js';
import { folderFilesOnThreads } from './folder-files-threads.js';
import { BackgroundWriter } from './background-writes.js';
import { readUtf8File } from '../util/read-utf8.js';

/**
 * The staged files (the `stage-file` step) of the real host, written beside the caller's rendering
 * (src/emit/background-writes.ts). Every other mutating call waits for them first; the flush of the
 * staged files (`stage-sync`, the commit's first step) throws the first that failed.
 */
const staged = new BackgroundWriter();

/**
 * Runs `op` once every background write is done, throwing the first failure of one instead; a
 * discard (of a transaction that will not commit) needs them finished, not successful.
 */
function afterStaged<T>(step: WriteStep, op: () => T): T {
  if (step === 'discard') staged.settle();
  else staged.drain();
  return op();
}

/** The real file system, through node:fs. */
export const NODE_FS_HOST: FsHost = {
  exists: (path) => existsSync(path),
  lstat: (path) => lstatSync(path, { throwIfNoEntry: false }),
  stat: (path) => statSync(path),
  readFile: (path) => readUtf8File(path),
  readdir: (path) => readdirSync(path),
  readdirEntries: (path) => readdirSync(path, { withFileTypes: true }),
  realpath: (path) => realpathSync(path),
  folderFiles: (dirs) => folderFilesOnThreads(dirs, NODE_FS_HOST),
  renameReaches: (from, to) => renameReaches(from, to),
  writeFile: (step, path, text, flush) => (step === 'stage-file' && !flush ? staged.write(path, text) : afterStaged(step, () => writeFile(path, text, flush))),
  flush: (step, files) => afterStaged(step, () => flushFiles(files)),
  rename: (step, from, to) => afterStaged(step, () => renameSync(from, to)),
  unlink: (step, path) => afterStaged(step, () => unlinkIfExists(path)),
  // A staging folder is made before the files written into it are handed over: no wait.
  mkdir: (_step, path) => mkdirWithParents(path),
  rmdir: (step, path) => afterStaged(step, () => rmdirIfEmpty(path)),
  removeTree: (step, path) => afterStaged(step, () => rmSync(path, { recursive: true, force: true })),
  copyTree: (step, from, to) => afterStaged(step, () => copyTree(from, to)),
  writeAtomically: (step, path, text) => afterStaged(step, () => writeFileAtomically(path, text)),
  createExclusive: (path, text) => createExclusive(path, text),
  deleteQuietly: (path) => {
    try {
      unlinkSync(path);
    } catch {
      // already gone, or the folder is read-only
    }
  },
  fsyncDirectory: (dir) => fsyncDirectory(dir),
};

function writeFile(path: string, text: string, flush: boolean): void {
  const fd = openSync(path, 'w');
  try {
    const bytes = Buffer.from(text, 'utf8');
    let written = 0;
    while (written < bytes.length) written += writeSync(fd, bytes, written, bytes.length - written);
    if (flush) fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

/**
 * Makes the content of `files` durable. Returns the devices (file systems) that were flushed by
 * syncfs: on those, the entries of every folder are durable too (no folder fsync needed). One `sync --file-system` (syncfs(2)) per file system
 * flushes them all at once: an fsync per file costs a journal commit each (15 s of a 65,000-file
 * write, measured). Where that is unavailable or fails, each file is fsynced, which also reports the
 * failing file's error.
 */
function flushFiles(files: readonly string[]): ReadonlySet<number> {
  const synced = new Set<number>();
  if (files.length === 0) return synced;
  const byDevice = new Map<number, string[]>();
  const folderDevices = new Map<string, number>();
  for (const f of files) {
    const folder = dirname(f);
    let dev = folderDevices.get(folder);
    if (dev === undefined) folderDevices.set(folder, (dev = statSync(folder).dev));
    const list = byDevice.get(dev);
    if (list) list.push(f);
    else byDevice.set(dev, [f]);
  }
  for (const [dev, list] of byDevice) {
    if (list.length > 1 && syncFileSystem(list[0]!)) {
      synced.add(dev);
      continue;
    }
    for (const f of list) fsyncFile(f);
  }
  return synced;
}

/**
 * syncfs(2) of the file system holding `path`, through coreutils `sync -f`; false when that is not
 * possible. Only on Linux 5.8 or later: elsewhere `sync` ignores its arguments and may return before
 * the data is on disk (BSD, macOS), and older Linux kernels' syncfs does not report write errors.
 */
function syncFileSystem(path: string): boolean {
  if (!SYNCFS_REPORTS_ERRORS) return false;
  try {
    execFileSync('sync', ['--file-system', path], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

/** Whether this kernel's syncfs(2) is durable and reports writeback errors (Linux ≥ 5.8). */
const SYNCFS_REPORTS_ERRORS = ((): boolean => {
  if (process.platform !== 'linux') return false;
  const [major, minor] = release().split('.').map((n) => Number.parseInt(n, 10));
  return major !== undefined && minor !== undefined && (major > 5 || (major === 5 && minor >= 8));
})();

function fsyncFile(path: string): void {
  const fd = openSync(path, 'r');
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

/** A name no mirrorc run creates: the source of the probe rename, which must not exist. */
const PROBE_NAME = '.mirrorc-rename-probe.absent';

/**
 * Whether an entry of `from` can be renamed into `to`. On Linux, by trying, with nothing written:
 * rename(2) of a missing entry of `from` to `to` fails with EXDEV when the two folders are on two
 * mounts (the kernel compares the mounts before it looks the entry up) and with ENOENT when the
 * rename would work. Elsewhere the kernel may look the entry up first, so the folders' devices are
 * compared instead (a bind mount, nullfs, is then found by the rename of the apply, which copies).
 * Only EXDEV answers false: any other refusal (EROFS, EACCES) is left to the write that follows.
 */
function renameReaches(from: string, to: string): boolean {
  if (process.platform !== 'linux') return statSync(from).dev === statSync(to).dev;
  try {
    renameSync(join(from, PROBE_NAME), join(to, PROBE_NAME));
  } catch (e) {
    // ENOENT: the rename would work. Any other refusal (EROFS, EACCES) is not the probe's to report:
    // the write that follows meets it and names the path it was for.
    return (e as NodeJS.ErrnoException).code !== 'EXDEV';
  }
  // Someone made the probe's source: put it back where it was.
  renameSync(join(to, PROBE_NAME), join(from, PROBE_NAME));
  return true;
}

/**
 * Copies `from` (a file, or a folder with everything below it) to the new path `to`: each file and
 * folder fsynced. Within a folder its subfolders come first and its kustomization.yaml last, so that
 * even a copy cut short by a kill never holds a kustomization.yaml that lists a file it lacks.
 */
function copyTree(from: string, to: string): void {
  if (!lstatSync(from).isDirectory()) {
    writeFileSync(to, readFileSync(from), { flag: 'wx', flush: true });
    return;
  }
  mkdirSync(to);
  const entries = readdirSync(from, { withFileTypes: true });
  const order = (e: Dirent): number => (e.isDirectory() ? 0 : e.name === KUSTOMIZATION_FILE ? 2 : 1);
  for (const e of entries.sort((a, b) => order(a) - order(b))) copyTree(join(from, e.name), join(to, e.name));
  fsyncDirectory(to);
}

function unlinkIfExists(path: string): void {
  try {
    unlinkSync(path);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
  }
}

/** Creates `path` and its missing parents (one by one: a recursive mkdir can report ENOENT for what is EROFS or EACCES). */
function mkdirWithParents(path: string): void {
  const missing: string[] = [];
  for (let p = resolve(path); !existsSync(p) && dirname(p) !== p; p = dirname(p)) missing.unshift(p);
  for (const p of missing) {
    try {
      mkdirSync(p);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
    }
  }
}

function rmdirIfEmpty(path: string): void {
  try {
    rmdirSync(path);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code !== 'ENOENT' && code !== 'ENOTEMPTY' && code !== 'EEXIST') throw e;
  }
}

function createExclusive(path: string, text: string): boolean {
  let fd: number;
  try {
    fd = openSync(path, 'wx');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw e;
  }
  try {
    writeSync(fd, text);
  } finally {
    closeSync(fd);
  }
  return true;
}

/** Flushes a folder's entries (renames, creations, deletions in it) to disk; a missing folder is skipped. */
export function fsyncDirectory(dir: string): void {
  let fd: number;
  try {
    fd = openSync(dir, 'r');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return;
    throw e;
  }
  try {
    fsyncSync(fd);
  } catch (e) {
    // Some platforms cannot fsync a folder (EINVAL, EISDIR, EPERM); the renames are still atomic there.
    const code = (e as NodeJS.ErrnoException).code;
    if (code !== 'EINVAL' && code !== 'EISDIR' && code !== 'EPERM' && code !== 'EBADF') throw e;
  } finally {
    closeSync(fd);
  }
}

/**
 * Replaces the single file `path` atomically and durably, outside the write transaction (run report,
 * run-lock holder info): `<path>.<pid>.tmp` is written and flushed, renamed over `path`, and the
 * folder fsynced. Readers see the old or the new file, never a part; on failure the old file stays
 * and the temp file is removed. The pid keeps two processes writing one file from sharing a temp file.
 */
export function writeFileAtomically(path: string, text: string): void {
  const tmp = `${path}.${process.pid}.tmp`;
  try {
    writeFileSync(tmp, text, { flush: true });
    renameSync(tmp, path);
  } catch (e) {
    rmSync(tmp, { force: true });
    throw e;
  }
  fsyncDirectory(dirname(resolve(path)));
}
