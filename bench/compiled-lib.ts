/**
 * Which code the synth child runs: the compiled CLI's (lib/, as `npm run synth` runs it; the
 * default) or the TypeScript sources through tsx (`--tsx`, which adds tsx's start-up and on-the-fly
 * compilation to every run). The compiled code is checked against src/ first, as the compiled CLI
 * checks itself (lib/build-info.json), and rebuilt with `npm run build` when missing or out of date.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { BUILD_INFO_FILE, sourceTreeHash, type BuildInfo } from '../src/cli/compiled-build.js';
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

/** Why lib/ cannot be used as it is (missing, or built from other sources than src/), or undefined. */
export function compiledLibProblem(root = REPO_ROOT): string | undefined {
  if (!existsSync(join(root, 'lib', 'pipeline', 'run-synth.js'))) return 'lib/ has no pipeline/run-synth.js (not built)';
  let built: string | undefined;
  try {
    built = (JSON.parse(readFileSync(join(root, 'lib', BUILD_INFO_FILE), 'utf8')) as BuildInfo).sourceHash;
  } catch {
    return `lib/${BUILD_INFO_FILE} is missing or unreadable`;
  }
  return built === sourceTreeHash(join(root, 'src')) ? undefined : 'lib/ was built from other sources than src/ (src/ changed since `npm run build`)';
}

/** Makes sure lib/ matches src/, building it (`npm run build`) when it does not; throws CompiledLibError when that fails. */
export function ensureCompiledLib(log: (line: string) => void): void {
  const problem = compiledLibProblem();
  if (problem === undefined) return;
  log(`bench: ${problem}: running npm run build (node scripts/build-lib.mjs)...`);
  const build = spawnSync(process.execPath, [join(REPO_ROOT, 'scripts', 'build-lib.mjs')], { cwd: REPO_ROOT, stdio: ['ignore', 'inherit', 'inherit'] });
  const after = build.status === 0 ? compiledLibProblem() : `npm run build exited with ${build.status ?? build.signal}`;
  if (after !== undefined) {
    throw new CompiledLibError(`the compiled code (lib/) cannot be measured: ${after}. Fix the build (npm run build), or measure the TypeScript sources with --tsx`);
  }
}
