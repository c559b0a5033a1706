/**
 * Runs `main.js` in a child Node process started with the CLI's V8 flags (v8-flags.ts), for the
 * `mirrorc` executable (bin.ts), whose `#!/usr/bin/env node` line cannot pass them portably. The
 * child shares this process's standard streams, working directory and environment; a signal this
 * process receives is passed on (a SIGINT from a terminal reaches both); this process ends as the
 * child ended: with its exit code, or killed by the same signal.
 */
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { printErr } from '../util/print.js';
import { V8_FLAGS } from './v8-flags.js';

/** The signals passed on to the child. */
const FORWARDED: readonly NodeJS.Signals[] = ['SIGINT', 'SIGTERM', 'SIGHUP'];

/** Starts `main.js` with the V8 flags and the arguments `args`; this process then ends as the child does. */
export function relaunchWithV8Flags(args: readonly string[]): void {
  const main = fileURLToPath(new URL('./main.js', import.meta.url));
  const child = spawn(process.execPath, [...process.execArgv, ...V8_FLAGS, main, ...args], { stdio: 'inherit' });
  const forward = (signal: NodeJS.Signals): void => {
    child.kill(signal);
  };
  for (const signal of FORWARDED) process.on(signal, forward);
  child.on('error', (e) => {
    printErr(`error: could not start Node.js (${process.execPath}) to run mirrorc: ${e.message}`);
    process.exit(1);
  });
  child.on('exit', (code, signal) => {
    for (const s of FORWARDED) process.off(s, forward);
    if (signal) process.kill(process.pid, signal);
    else process.exitCode = code ?? 1;
  });
}
