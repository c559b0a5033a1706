/**
 * Which code the synth child runs: the compiled CLI's (lib/, as `npm run synth` runs it; the
 * default) or the TypeScript sources through tsx (`--tsx`, which adds tsx's start-up and on-the-fly
 * compilation to every run). The compiled code is checked against src/ first, as the npm scripts
 * check it (lib/build-info.json, scripts/lib-freshness.mjs), and rebuilt with `npm run build` when missing or out of date.
 */
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { compiledLibProblem } from '../scripts/lib-freshness.mjs';
import { REPO_ROOT } from './generate-fleet.js';

export type SynthCode = 'compiled' | 'tsx';

/** lib/ could not be built: the benchmark cannot measure the compiled code. */
export class CompiledLibError extends Error {
  override name = 'CompiledLibError';
}

const LIB_RUN_SYNTH = join(REPO_ROOT, 'lib', 'pipeline', 'run-synth.js');
const SRC_RUN_SYNTH = join(REPO_ROOT, 'src', 'pipeline', 'run-synth.ts');

/** The URL of the module whose `runSynth` the child calls. */
export function runSynthModule(code: SynthCode): string {
  return pathToFileURL(code === 'compiled' ? LIB_RUN_SYNTH : SRC_RUN_SYNTH).href;
}

/** Makes sure lib/ matches src/, building it (`npm run build`) when it does not; throws CompiledLibError when that fails. */
export function ensureCompiledLib(log: (line: string) => void): void {
  const problem = compiledLibProblem(REPO_ROOT);
  if (problem === undefined) return;
  log(`bench: ${problem}: running npm run build (node scripts/build-lib.mjs)...`);
  const build = spawnSync(process.execPath, [join(REPO_ROOT, 'scripts', 'build-lib.mjs')], { cwd: REPO_ROOT, stdio: ['ignore', 'inherit', 'inherit'] });
  const after = build.status === 0 ? compiledLibProblem(REPO_ROOT) : `npm run build exited with ${build.status ?? build.signal}`;
  if (after !== undefined) {
    throw new CompiledLibError(`the compiled code (lib/) cannot be measured: ${after}. Fix the build (npm run build), or measure the TypeScript sources with --tsx`);
  }
}
