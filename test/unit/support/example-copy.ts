/** A scratch copy of the example fleet's dist/ and lock, for offline runs that must not touch the repository. */
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runSynth, type SynthOptions, type SynthResult } from '../../../src/pipeline/run-synth.js';

/** The copy, a way to run the CLI job on it, and what it logged and printed. */
export interface ExampleCopy {
  readonly dir: string;
  readonly outDir: string;
  readonly lockFile: string;
  readonly logged: string[];
  readonly printed: string[];
  run(options?: Partial<SynthOptions>): Promise<SynthResult>;
  /** Replaces `from` by `to` in the lock (a simulated observation). */
  editLock(from: string, to: string): void;
  remove(): void;
}

/** Copies `dist/` and `clusters/fleet.lock.json` into a temp dir; runs are offline unless told otherwise. */
export function exampleCopy(): ExampleCopy {
  const dir = mkdtempSync(join(tmpdir(), 'mirrorc-ops-'));
  const outDir = join(dir, 'dist');
  const lockFile = join(dir, 'fleet.lock.json');
  cpSync('dist', outDir, { recursive: true });
  cpSync('clusters/fleet.lock.json', lockFile);
  const logged: string[] = [];
  const printed: string[] = [];
  return {
    dir, outDir, lockFile, logged, printed,
    run: (options = {}) => {
      logged.length = 0;
      printed.length = 0;
      return runSynth({
        fleetFile: 'clusters/fleet.ts', lockFile, outDir, offline: true,
        log: (l) => logged.push(l), print: (l) => printed.push(l), ...options,
      });
    },
    editLock: (from, to) => {
      const text = readFileSync(lockFile, 'utf8');
      if (!text.includes(from)) throw new Error(`the example lock does not contain ${from}`);
      writeFileSync(lockFile, text.replaceAll(from, to));
    },
    remove: () => rmSync(dir, { recursive: true, force: true }),
  };
}
