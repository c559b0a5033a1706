// `npm run build` (also run by `npm ci` and `npm install`, as the `prepare` script): compiles src/
// to lib/ (ESM JavaScript, declarations, source maps) and copies the non-TypeScript files src/ holds,
// so that the CLI starts without transpiling, and records a hash of src/ in lib/build-info.json. lib/ is rebuilt from scratch: no file of a deleted
// source survives. Run it again after changing src/.
import { spawnSync } from 'node:child_process';
import { cpSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const src = join(root, 'src');
const lib = join(root, 'lib');
const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');

rmSync(lib, { recursive: true, force: true });
const run = spawnSync(process.execPath, [tsc, '-p', join(root, 'tsconfig.build.json')], { stdio: 'inherit' });
if (run.status !== 0) {
  rmSync(lib, { recursive: true, force: true });
  console.error('build: tsc failed (see above); lib/ is not built');
  process.exit(run.status ?? 1);
}
cpSync(src, lib, { recursive: true, filter: (from) => !from.endsWith('.ts') });
// Recorded last: the npm scripts, the benchmark and the tests refuse a lib/ whose src/ no longer matches (lib-freshness.mjs).
const { BUILD_INFO_FILE, sourceTreeHash } = await import('./lib-freshness.mjs');
writeFileSync(join(lib, BUILD_INFO_FILE), `${JSON.stringify({ sourceHash: sourceTreeHash(src) }, null, 2)}\n`);
