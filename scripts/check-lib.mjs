// Run by the npm scripts synth|plan|check|observe before the compiled CLI (`node lib/cli/main.js`):
// after a `git pull` or an edit of src/ without `npm run build`, an old compiler would otherwise
// write its old output. Exits 2 with one line when lib/ is missing or was built from other sources.
// (The compiled CLI itself does not check: an installed mirrorc has no src/ to compare with.)
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { compiledLibProblem } from './lib-freshness.mjs';

const problem = compiledLibProblem(join(dirname(fileURLToPath(import.meta.url)), '..'));
if (problem !== undefined) {
  process.stderr.write(`error: the compiled CLI (lib/) is out of date: ${problem}; run "npm run build" (npm ci does it too), then run this command again\n`);
  process.exit(2);
}
