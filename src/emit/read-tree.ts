/** Reads an output folder back as a {@link FileTree}. */
import { join } from 'node:path';
import { compareStrings } from '../util/order.js';
import { NODE_FS_HOST } from './durable-fs.js';
import type { FsHost } from './fs-host.js';
import type { FileTree } from './render-files.js';

/**
 * Every file under `dir` (relative paths with `/`), sorted; empty when `dir` does not exist.
 * @param known the text of a file (relative path) known to be on disk: it is listed, not read @default none known
 */
export function readTree(dir: string, host: FsHost = NODE_FS_HOST, known?: (path: string) => string | undefined): FileTree {
  const files: FileTree = new Map();
  const walk = (rel: string): void => {
    const abs = join(dir, rel);
    // The entries' types come with the listing: no stat per file (only a symbolic link is followed by one).
    for (const entry of host.readdirEntries(abs).sort((a, b) => compareStrings(a.name, b.name))) {
      const relPath = rel ? `${rel}/${entry.name}` : entry.name;
      const isDirectory = entry.isSymbolicLink() ? host.stat(join(dir, relPath)).isDirectory() : entry.isDirectory();
      if (isDirectory) walk(relPath);
      else files.set(relPath, known?.(relPath) ?? host.readFile(join(dir, relPath)));
    }
  };
  if (host.exists(dir)) walk('');
  return files;
}
