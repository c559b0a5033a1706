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
import { folderFileSizes } from '../emit/folder-files.js';
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
  const sizes = folderFileSizes(dir, host, files.count);
  return sizes !== undefined && sizes.length === files.count && sameFiles(filesRecord(sizes), files);
}

/** Whether two files records are the same (count, bytes and digest). */
export function sameFiles(found: UnitFiles, files: UnitFiles): boolean {
  return found.count === files.count && found.bytes === files.bytes && found.digest === files.digest;
}

/** The files of every unit folder (`<cluster>/<unit>`) of an output folder, as walked once: undefined for a folder that has no record. */
export type UnitFolderFiles = ReadonlyMap<string, UnitFiles | undefined>;

/**
 * Walks every unit folder of `outDir` (each folder inside each cluster folder) through
 * `host.folderFiles`, which the real host runs on worker threads: the caller starts it and does
 * other work (the fleet import, the lock's parse) until it needs the answer. Only a caller that holds
 * the run lock and has completed any interrupted write may start it: nothing may change `dist/`
 * between the walk and the check that uses it.
 */
export async function walkUnitFolders(outDir: string, host: FsHost = NODE_FS_HOST): Promise<UnitFolderFiles> {
  const units: string[] = [];
  for (const cluster of directories(host, outDir)) for (const unit of directories(host, join(outDir, cluster))) units.push(`${cluster}/${unit}`);
  const records = await host.folderFiles(units.map((u) => join(outDir, u)));
  return new Map(units.map((u, i) => [u, records[i]]));
}

function directories(host: FsHost, dir: string): string[] {
  try {
    return host.readdirEntries(dir).filter((e) => e.isDirectory()).map((e) => e.name);
  } catch {
    return [];
  }
}

/**
 * The integrity check of the unit folders of `outDir`: from `walked` (the whole output walked once,
 * {@link walkUnitFolders}) when it knows the folder, else by walking the folder now.
 */
export function unitFolderCheck(outDir: string, host: FsHost = NODE_FS_HOST, walked?: UnitFolderFiles): (cluster: string, unit: string, files: UnitFiles) => boolean {
  return (cluster, unit, files) => {
    const key = `${cluster}/${unit}`;
    if (walked?.has(key)) {
      const found = walked.get(key);
      return found !== undefined && sameFiles(found, files);
    }
    return folderMatches(join(outDir, cluster, unit), files, host);
  };
}

/** Which folders of the output a run replaces: the clusters it writes, the units in them it keeps, and whether it owns every top-level entry. */
export interface ReplacedFolders {
  /** The cluster folders the run writes. */
  readonly clusters: ReadonlySet<string>;
  /** `<cluster>/<unit>` of the units the run keeps (never read). */
  readonly keptUnits: ReadonlySet<string>;
  /** Whether every top-level entry that is none of {@link clusters} is replaced too (a full run owns the whole folder; a shard does not). */
  readonly allTopLevel: boolean;
}

/**
 * The files of `outDir` that a run replaces or removes (the `before` of its transaction), read from
 * disk: within each cluster of `replaced.clusters`, its kustomization.yaml, every rendered unit folder, and
 * every entry that is no unit the run keeps (a removed unit, a stray file); every top-level entry
 * that is none of them when `allTopLevel`.
 * Kept units are not read at all, nor is a file `known` gives the text of.
 * @param known the text of a file (path relative to `outDir`) known to be on disk, without reading it @default none known
 */
export function readReplacedFiles(outDir: string, replaced: ReplacedFolders, host: FsHost = NODE_FS_HOST, known?: (path: string) => string | undefined): FileTree {
  const { clusters, keptUnits, allTopLevel } = replaced;
  const out: FileTree = new Map();
  let top: string[];
  try {
    top = host.readdir(outDir);
  } catch {
    return out;
  }
  const add = (rel: string): void => {
    const abs = join(outDir, rel);
    if (host.stat(abs).isDirectory()) for (const [p, text] of readTree(abs, host, known && ((q) => known(`${rel}/${q}`)))) out.set(`${rel}/${p}`, text);
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
