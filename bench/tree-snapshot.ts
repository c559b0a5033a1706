/**
 * What a run wrote: a snapshot of every file below a directory (inode, size, mtime, content hash)
 * taken before and after, compared. A file counts as written when it was created, deleted, or its
 * inode, size or mtime moved (rewritten, even with the same bytes); as changed when its bytes differ.
 */
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';

/** One file's state. */
export interface FileState {
  /** Inode, size and mtime in nanoseconds: moves whenever the file is written. */
  readonly stamp: string;
  readonly size: number;
  /** SHA-1 of the content. */
  readonly hash: string;
}

/** Relative path (with `/`) → state. */
export type TreeSnapshot = Map<string, FileState>;

/**
 * Every file below `dir`. Content is hashed only for files whose stamp differs from `previous`
 * (a snapshot of the same directory taken earlier), so repeated snapshots of a large, mostly
 * unchanged tree read only what moved.
 */
export function snapshotTree(dir: string, previous?: TreeSnapshot): TreeSnapshot {
  const out: TreeSnapshot = new Map();
  const walk = (rel: string): void => {
    let entries;
    try {
      entries = readdirSync(join(dir, rel), { withFileTypes: true });
    } catch {
      return;
    }
    for (const entry of entries) {
      const relPath = rel ? `${rel}/${entry.name}` : entry.name;
      if (entry.isDirectory()) {
        walk(relPath);
        continue;
      }
      const abs = join(dir, relPath);
      const st = statSync(abs, { bigint: true });
      const stamp = `${st.ino}:${st.size}:${st.mtimeNs}`;
      const known = previous?.get(relPath);
      const hash = known && known.stamp === stamp ? known.hash : createHash('sha1').update(readFileSync(abs)).digest('hex');
      out.set(relPath, { stamp, size: Number(st.size), hash });
    }
  };
  walk('');
  return out;
}

/** The difference between two snapshots of a directory. */
export interface TreeWrites {
  /** Files created, deleted or rewritten (content or mtime changed). */
  readonly written: number;
  /** Bytes of the created and rewritten files (their size afterwards). */
  readonly bytes: number;
  /** Files whose content differs (created and deleted ones included). */
  readonly changed: number;
  /** Files afterwards. */
  readonly files: number;
  /** Paths whose content changed, sorted, at most `keep` of them. */
  readonly changedPaths: readonly string[];
}

/** What happened between `before` and `after`; `keep` changed paths are listed. */
export function compareSnapshots(before: TreeSnapshot, after: TreeSnapshot, keep = 20): TreeWrites {
  let written = 0;
  let bytes = 0;
  let changed = 0;
  const changedPaths: string[] = [];
  const noteChange = (path: string): void => {
    changed++;
    if (changedPaths.length < keep) changedPaths.push(path);
  };
  for (const [path, state] of after) {
    const old = before.get(path);
    if (!old || old.stamp !== state.stamp) {
      written++;
      bytes += state.size;
    }
    if (!old || old.hash !== state.hash) noteChange(path);
  }
  for (const path of before.keys()) {
    if (!after.has(path)) {
      written++;
      noteChange(path);
    }
  }
  return { written, bytes, changed, files: after.size, changedPaths: changedPaths.sort() };
}
