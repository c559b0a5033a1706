// Whether the compiled lib/ was built from the src/ next to it: `npm run build` records a SHA-256 of
// src/ in lib/build-info.json, and the development tools compare it before they use lib/: the npm
// scripts synth|plan|check|observe (through check-lib.mjs), the benchmark, the tests of the compiled
// CLI and the API report. The product itself never hashes src/ (an installed mirrorc has none).
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

/** The file in lib/ that records what it was built from: `{ "sourceHash": <sourceTreeHash of src/> }`. */
export const BUILD_INFO_FILE = 'build-info.json';

/** SHA-256 over every file below `dir` (sorted relative paths and contents). */
export function sourceTreeHash(dir) {
  const hash = createHash('sha256');
  const walk = (rel) => {
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

/** Why the lib/ of checkout `root` cannot be used as it is (not built, no build record, built from other sources than src/), or undefined. */
export function compiledLibProblem(root) {
  if (!existsSync(join(root, 'lib', 'pipeline', 'run-synth.js'))) return 'lib/ has no pipeline/run-synth.js (not built)';
  let built;
  try {
    built = JSON.parse(readFileSync(join(root, 'lib', BUILD_INFO_FILE), 'utf8')).sourceHash;
  } catch {
    return `lib/${BUILD_INFO_FILE} is missing or unreadable`;
  }
  return built === sourceTreeHash(join(root, 'src')) ? undefined : 'lib/ was built from other sources than src/ (src/ changed since `npm run build`)';
}
