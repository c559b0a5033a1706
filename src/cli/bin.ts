#!/usr/bin/env node
/**
 * The `mirrorc` executable. It checks the Node.js version before loading anything else (main.js and
 * its imports use APIs older Node.js versions lack, which would fail with a stack), so it is written
 * in syntax and APIs that Node.js 12 and later understand; an older Node.js gets one line and exit 2.
 * Then it runs main.js in a Node process started with the CLI's V8 flags (v8-flags.ts, relaunch.ts),
 * unless this one was started with them.
 */
import { ExitCode } from '../errors/exit-codes.js';

/** The oldest Node.js mirrorc runs on (package.json "engines" says the same). */
const MINIMUM = [20, 19];

const version = process.versions.node.split('.').map(Number);
const major = version[0] || 0;
const minor = version[1] || 0;
if (major < MINIMUM[0]! || (major === MINIMUM[0] && minor < MINIMUM[1]!)) {
  process.stderr.write(`error: mirrorc needs Node.js ${MINIMUM.join('.')} or later (20, 22 or 24); this is Node.js ${process.versions.node}: install a supported Node.js and run it again\n`);
  process.exit(ExitCode.INVALID_INPUT);
}
const { hasHeapGrowthFlag } = await import('./v8-flags.js');
if (hasHeapGrowthFlag(process.execArgv)) await import('./main.js');
else (await import('./relaunch.js')).relaunchWithV8Flags(process.argv.slice(2));
