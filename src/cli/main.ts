#!/usr/bin/env node
/** `mirrorc` command line, as a program: runs run-cli.ts on the process's arguments (started by bin.ts, or `node lib/cli/main.js`). */
import { runCliAndExit } from './run-cli.js';

runCliAndExit(process.argv.slice(2));
