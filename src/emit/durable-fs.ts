/**
 * The mutating file-system calls of the write path: each is one named step (for fault injection)
 * and is durable (files and the folders whose entries change are fsynced).
 */
import { closeSync, existsSync, fsyncSync, mkdirSync, openSync, renameSync, rmSync, rmdirSync, unlinkSync, writeFileSync, writeSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { faultPoint, type WriteStep } from './fault-injection.js';

/** Creates or truncates `path`, writes `text` and fsyncs it. */
export function writeDurably(step: WriteStep, path: string, text: string): void {
  faultPoint(step, path);
  const fd = openSync(path, 'w');
  try {
    const bytes = Buffer.from(text, 'utf8');
    let written = 0;
    while (written < bytes.length) written += writeSync(fd, bytes, written, bytes.length - written);
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
