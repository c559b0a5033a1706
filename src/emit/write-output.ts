/**
 * Writes `dist/` and the lock file so that a failed or interrupted run leaves the previous
 * output in place: the new tree is written beside `dist/` and swapped in by rename.
 */
import { existsSync, mkdirSync, readFileSync, readdirSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { compareStrings } from '../util/order.js';
import type { FileTree } from './render-files.js';

/** Every file under `dir` (relative paths with `/`), sorted; empty when `dir` does not exist. */
export function readTree(dir: string): FileTree {
  const files: FileTree = new Map();
  const walk = (rel: string): void => {
    const abs = join(dir, rel);
    for (const entry of readdirSync(abs).sort(compareStrings)) {
      const relPath = rel ? `${rel}/${entry}` : entry;
      if (statSync(join(dir, relPath)).isDirectory()) walk(relPath);
      else files.set(relPath, readFileSync(join(dir, relPath), 'utf8'));
    }
  };
  if (existsSync(dir)) walk('');
  return files;
}

/** Recovers from a run interrupted between the two renames of {@link writeOutput}. */
export function recoverInterruptedWrite(outDir: string): void {
  const parent = dirname(outDir);
  if (!existsSync(parent)) return;
  const previous = readdirSync(parent).filter((e) => e.startsWith(`.${basename(outDir)}.previous-`));
  for (const p of previous) {
    if (!existsSync(outDir)) renameSync(join(parent, p), outDir);
    else rmSync(join(parent, p), { recursive: true, force: true });
  }
  for (const s of readdirSync(parent).filter((e) => e.startsWith(`.${basename(outDir)}.staging-`))) {
    rmSync(join(parent, s), { recursive: true, force: true });
  }
}

/**
 * Replaces `outDir` by exactly `tree`, then the lock file by `lockText`. The tree is fully
 * written before the swap; the lock is written by rename after it.
 */
export function writeOutput(outDir: string, tree: FileTree, lockPath: string, lockText: string): void {
  const lockTmp = `${lockPath}.tmp`;
  writeFileSync(lockTmp, lockText);
  try {
    // If the lock's rename fails, the previous output is put back so that dist/ and the lock still match.
    swapInDirectory(outDir, tree, () => renameSync(lockTmp, lockPath));
  } finally {
    rmSync(lockTmp, { force: true });
  }
}

/**
 * Replaces `dir` by exactly `tree` (no lock file): written beside it, swapped in by rename, so an
 * interrupted run leaves the previous folder. Used for `delivery/`.
 */
export function replaceDirectory(dir: string, tree: FileTree): void {
  swapInDirectory(dir, tree, () => {});
}

/**
 * Writes `tree` into a staging folder beside `dir`, swaps it in by rename, then runs `commit`; if the
 * swap or `commit` throws, the previous `dir` is put back.
 */
function swapInDirectory(dir: string, tree: FileTree, commit: () => void): void {
  recoverInterruptedWrite(dir);
  const parent = dirname(dir);
  mkdirSync(parent, { recursive: true });
  const staging = join(parent, `.${basename(dir)}.staging-${process.pid}`);
  const previous = join(parent, `.${basename(dir)}.previous-${process.pid}`);
  rmSync(staging, { recursive: true, force: true });
  mkdirSync(staging, { recursive: true });
  for (const [rel, content] of tree) {
    const abs = join(staging, rel);
    mkdirSync(dirname(abs), { recursive: true });
    writeFileSync(abs, content);
  }
  const hadOutput = existsSync(dir);
  if (hadOutput) renameSync(dir, previous);
  try {
    renameSync(staging, dir);
    commit();
  } catch (e) {
    if (existsSync(dir) && hadOutput) renameSync(dir, staging);
    if (hadOutput) renameSync(previous, dir);
    rmSync(staging, { recursive: true, force: true });
    throw e;
  }
  rmSync(previous, { recursive: true, force: true });
}
