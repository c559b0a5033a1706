/**
 * The file-system side of an incremental run: the integrity check of a unit folder (its file names
 * and sizes against the lock's record, no file read), and reading only the folders a run replaces.
 * Callers hold the run lock and have completed any interrupted write first.
 */
import { join } from 'node:path';
import { NODE_FS_HOST } from '../emit/durable-fs.js';
import type { FsHost } from '../emit/fs-host.js';
import type { FileTree } from '../emit/render-files.js';
import { readTree } from '../emit/read-tree.js';
import type { UnitFiles, UnitRecords } from './lock-document.js';
import { treeUnitRecords } from './adopt-dist.js';
import { filesRecord } from './unit-inventory.js';

/**
 * Whether `dir` holds exactly the files `files` records (names and sizes; a link, a missing or an
 * extra file fails). Each folder is listed once (with its entries' types) and each file is lstat-ed
 * once — no file is opened — which is the least a check of names and sizes can do; it stops at the
 * first folder that holds more files than recorded.
 */
export function folderMatches(dir: string, files: UnitFiles, host: FsHost = NODE_FS_HOST): boolean {
  const sizes: [string, number][] = [];
  const walk = (abs: string, rel: string): boolean => {
    let entries;
    try {
      entries = host.readdirEntries(abs);
    } catch {
      return false;
    }
    for (const entry of entries) {
      const relPath = rel === '' ? entry.name : `${rel}/${entry.name}`;
      const absPath = `${abs}/${entry.name}`;
      if (entry.isDirectory()) {
        if (!walk(absPath, relPath)) return false;
      } else if (entry.isFile()) {
        const stats = host.lstat(absPath);
        if (stats === undefined || !stats.isFile()) return false;
        sizes.push([relPath, stats.size]);
        if (sizes.length > files.count) return false;
      } else return false;
    }
    return true;
  };
  if (!walk(dir, '')) return false;
  if (sizes.length !== files.count) return false;
  const found = filesRecord(sizes);
  return found.bytes === files.bytes && found.digest === files.digest;
}

/** The integrity check of the unit folders of `outDir`. */
export function unitFolderCheck(outDir: string, host: FsHost = NODE_FS_HOST): (cluster: string, unit: string, files: UnitFiles) => boolean {
  return (cluster, unit, files) => folderMatches(join(outDir, cluster, unit), files, host);
}

/**
 * The files of `outDir` that a run replaces or removes (the `before` of its transaction), read from
 * disk: within each cluster of `clusters`, its kustomization.yaml, every rendered unit folder, and
 * every entry that is no unit the run keeps (a removed unit, a stray file); every top-level entry
 * that is none of `clusters` when `allTopLevel` (a full run owns the whole folder; a shard does not).
 * Kept units are not read at all.
 */
export function readReplacedFiles(outDir: string, clusters: ReadonlySet<string>, keptUnits: ReadonlySet<string>, allTopLevel: boolean, host: FsHost = NODE_FS_HOST): FileTree {
  const out: FileTree = new Map();
  let top: string[];
  try {
    top = host.readdir(outDir);
  } catch {
    return out;
  }
  const add = (rel: string): void => {
    const abs = join(outDir, rel);
    if (host.stat(abs).isDirectory()) for (const [p, text] of readTree(abs, host)) out.set(`${rel}/${p}`, text);
    else out.set(rel, host.readFile(abs));
  };
  for (const entry of top) {
    if (!clusters.has(entry)) {
      if (allTopLevel) add(entry);
      continue;
    }
    if (!host.lstat(join(outDir, entry))?.isDirectory()) {
      add(entry);
      continue;
    }
    for (const inner of host.readdir(join(outDir, entry))) {
      if (!keptUnits.has(`${entry}/${inner}`)) add(`${entry}/${inner}`);
    }
  }
  return out;
}

/**
 * `units`, plus the records of every cluster folder of `outDir` that it does not describe (a format 1
 * lock's, a folder restored by hand), adopted from its files once (src/state/adopt-dist.ts); from
 * `committed` when the caller has read the whole committed output already.
 */
export function withAdoptedFolders(units: UnitRecords, outDir: string, committed: FileTree | undefined, host: FsHost = NODE_FS_HOST): UnitRecords {
  let folders: string[];
  try {
    folders = host.readdirEntries(outDir).filter((e) => e.isDirectory()).map((e) => e.name);
  } catch {
    return units;
  }
  const missing = folders.filter((c) => units[c] === undefined);
  if (missing.length === 0) return units;
  const adopted: UnitRecords = { ...units };
  for (const cluster of missing) {
    const files = committed
      ? new Map([...committed].filter(([p]) => p.startsWith(`${cluster}/`)))
      : new Map([...readTree(join(outDir, cluster), host)].map(([p, t]) => [`${cluster}/${p}`, t] as const));
    const records = treeUnitRecords(files)[cluster];
    if (records) adopted[cluster] = records;
  }
  return adopted;
}
