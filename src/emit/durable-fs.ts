/**
 * The mutating file-system calls of the write path: each is one named step (for fault injection)
 * and is durable (files and the folders whose entries change are fsynced).
 */
import { execFileSync } from 'node:child_process';
import { closeSync, existsSync, fsyncSync, mkdirSync, openSync, renameSync, rmSync, rmdirSync, statSync, unlinkSync, writeFileSync, writeSync } from 'node:fs';
import { release } from 'node:os';
import { dirname, resolve } from 'node:path';
import { faultPoint, type WriteStep } from './fault-injection.js';

/** Creates or truncates `path`, writes `text` and fsyncs it. */
export function writeDurably(step: WriteStep, path: string, text: string): void {
  writeFile(step, path, text, true);
}

/** Creates or truncates `path` and writes `text`, without flushing it: {@link flushFiles} makes a batch durable. */
export function writeUnflushed(step: WriteStep, path: string, text: string): void {
  writeFile(step, path, text, false);
}

function writeFile(step: WriteStep, path: string, text: string, flush: boolean): void {
  faultPoint(step, path);
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
export function flushFiles(step: WriteStep, files: readonly string[]): ReadonlySet<number> {
  const synced = new Set<number>();
  if (files.length === 0) return synced;
  faultPoint(step, files[0]!);
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

/** Renames `from` to `to` (atomic within one file system). */
export function renameStep(step: WriteStep, from: string, to: string): void {
  faultPoint(step, to);
  renameSync(from, to);
}

/** Deletes the file `path`; a missing file is fine. */
export function unlinkStep(step: WriteStep, path: string): void {
  faultPoint(step, path);
  try {
    unlinkSync(path);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
  }
}

/** Creates `path` and its missing parents (one by one: a recursive mkdir can report ENOENT for what is EROFS or EACCES). */
export function mkdirStep(step: WriteStep, path: string): void {
  faultPoint(step, path);
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

/** Removes the empty folder `path`; a missing or non-empty folder is left as it is. */
export function rmdirStep(step: WriteStep, path: string): void {
  faultPoint(step, path);
  try {
    rmdirSync(path);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code !== 'ENOENT' && code !== 'ENOTEMPTY' && code !== 'EEXIST') throw e;
  }
}

/** Removes `path` and everything below it; a missing path is fine. */
export function removeTreeStep(step: WriteStep, path: string): void {
  faultPoint(step, path);
  rmSync(path, { recursive: true, force: true });
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
