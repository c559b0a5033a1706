/**
 * What a folder's files are, for the integrity check of a unit folder: how many regular files lie
 * below it, their bytes, and a digest of their sorted relative paths and sizes. No file is opened:
 * each folder is listed once (with its entries' types) and each file is lstat-ed once, which is the
 * least a check of names and sizes can do. A folder that cannot be listed, or that holds anything but
 * regular files and folders (a symbolic link, a socket...), has no record.
 *
 * At fleet size (175,302 files at 20×500) the walk is most of a no-change run, so the real host runs
 * it on worker threads (src/emit/folder-files-worker.ts) while the main thread imports the fleet and
 * parses the lock.
 */
import { createHash } from 'node:crypto';
import type { Dirent, Stats } from 'node:fs';

/** The files below a folder: count, total bytes, and the SHA-256 of their sorted `<path>\0<size>\n` lines. */
export interface FolderFiles {
  readonly count: number;
  readonly bytes: number;
  readonly digest: string;
}

/** The reads a walk makes (a subset of the file-system host). */
export interface FolderReads {
  /** The entries of a folder with their types; throws when it cannot be listed. */
  readonly readdirEntries: (path: string) => Dirent[];
  /** The entry itself (a link is not followed), or undefined when there is none. */
  readonly lstat: (path: string) => Stats | undefined;
}

/** The record of files whose paths (relative to their folder) and byte sizes are `sizes`. */
export function folderFilesRecord(sizes: Iterable<readonly [string, number]>): FolderFiles {
  // One line per file, `<path>\0<size>\n`: NUL sorts below every character of a name, so sorting the
  // lines natively sorts them by path (code-unit order), and the digest is of one string.
  const lines: string[] = [];
  let bytes = 0;
  for (const [path, size] of sizes) {
    lines.push(`${path}\0${size}\n`);
    bytes += size;
  }
  lines.sort();
  return { count: lines.length, bytes, digest: createHash('sha256').update(lines.join('')).digest('hex') };
}

/**
 * The paths (relative to `dir`) and sizes of the regular files below `dir`, or undefined when a
 * folder cannot be listed or holds something else; undefined too as soon as more than `limit` files
 * are found (a caller that knows how many to expect stops early).
 */
export function folderFileSizes(dir: string, reads: FolderReads, limit = Infinity): [string, number][] | undefined {
  const sizes: [string, number][] = [];
  const walk = (abs: string, rel: string): boolean => {
    let entries;
    try {
      entries = reads.readdirEntries(abs);
    } catch {
      return false;
    }
    for (const entry of entries) {
      const relPath = rel === '' ? entry.name : `${rel}/${entry.name}`;
      const absPath = `${abs}/${entry.name}`;
      if (entry.isDirectory()) {
        if (!walk(absPath, relPath)) return false;
      } else if (entry.isFile()) {
        const stats = reads.lstat(absPath);
        if (stats === undefined || !stats.isFile()) return false;
        sizes.push([relPath, stats.size]);
        if (sizes.length > limit) return false;
      } else return false;
    }
    return true;
  };
  return walk(dir, '') ? sizes : undefined;
}

/** The record of the files below `dir`, or undefined (see {@link folderFileSizes}). */
export function folderFiles(dir: string, reads: FolderReads): FolderFiles | undefined {
  const sizes = folderFileSizes(dir, reads);
  return sizes ? folderFilesRecord(sizes) : undefined;
}
