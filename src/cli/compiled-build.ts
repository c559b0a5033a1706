/**
 * The compiled CLI (`lib/`) must match the sources (`src/`) it was built from: after a `git pull`
 * or an edit without `npm run build`, an old compiler would otherwise write its old output. The
 * build records a hash of `src/`; the compiled CLI compares it at start-up (a few milliseconds).
 */
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The file in `lib/` that records what it was built from. */
export const BUILD_INFO_FILE = 'build-info.json';

/** What `lib/build-info.json` holds. */
export interface BuildInfo {
  /** {@link sourceTreeHash} of `src/` when `lib/` was built. @default none (required) */
  readonly sourceHash: string;
}

/** SHA-256 over every file below `dir` (sorted relative paths and contents). */
export function sourceTreeHash(dir: string): string {
  const hash = createHash('sha256');
  const walk = (rel: string): void => {
    for (const entry of readdirSync(join(dir, rel), { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))) {
      const path = rel === '' ? entry.name : `${rel}/${entry.name}`;
      if (entry.isDirectory()) walk(path);
      else if (entry.isFile()) {
        const bytes = readFileSync(join(dir, path));
        hash.update(`${path}\0${bytes.length}\0`).update(bytes);
      }
    }
  };
  walk('');
  return hash.digest('hex');
}

/**
 * Why the running compiled CLI must not run (its `lib/` was built from other sources than the
 * `src/` next to it, or its build record is missing), or undefined when it may, or when it runs
 * from the sources themselves, or when no `src/` is next to it.
 */
export function compiledBuildProblem(): string | undefined {
  if (!import.meta.url.endsWith('.js')) return undefined;
  const lib = fileURLToPath(new URL('../', import.meta.url));
  const src = join(lib, '..', 'src');
  if (!existsSync(src)) return undefined;
  let built: string | undefined;
  try {
    built = (JSON.parse(readFileSync(join(lib, BUILD_INFO_FILE), 'utf8')) as BuildInfo).sourceHash;
  } catch {
    built = undefined;
  }
  if (built === sourceTreeHash(src)) return undefined;
  return 'the compiled CLI (lib/) is out of date: src/ changed since it was built; run "npm run build" (npm ci does it too), then run this command again';
}
