/** Reads an output folder back as a {@link FileTree}. */
import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { compareStrings } from '../util/order.js';
import type { FileTree } from './render-files.js';

/** Every file under `dir` (relative paths with `/`), sorted; empty when `dir` does not exist. */
export function readTree(dir: string): FileTree {
  const files: FileTree = new Map();
  const walk = (rel: string): void => {
    const abs = join(dir, rel);
    // The entries' types come with the listing: no stat per file (only a symbolic link is followed by one).
    for (const entry of readdirSync(abs, { withFileTypes: true }).sort((a, b) => compareStrings(a.name, b.name))) {
      const relPath = rel ? `${rel}/${entry.name}` : entry.name;
      const isDirectory = entry.isSymbolicLink() ? statSync(join(dir, relPath)).isDirectory() : entry.isDirectory();
      if (isDirectory) walk(relPath);
      else files.set(relPath, readFileSync(join(dir, relPath), 'utf8'));
    }
  };
  if (existsSync(dir)) walk('');
  return files;
}
