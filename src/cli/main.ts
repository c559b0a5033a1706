#!/usr/bin/env node
/** `mirrorc` command line: `synth|plan|check|observe [options]` (see {@link USAGE}). */
import { mkdirSync } from 'node:fs';
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { commandLineFailure } from './command-line-failure.js';
import { compiledBuildProblem } from './compiled-build.js';
import { ExitCode } from './exit-codes.js';
import { CLI_OPTIONS, COMMANDS, USAGE, type Command } from './options.js';
import { runSynth } from '../pipeline/run-synth.js';
import { runInit } from './init-command.js';
import { runAccess } from './access-command.js';

async function main(argv: string[]): Promise<number> {
  // `access` has options of its own (it mints credentials; it does not compile).
  if (argv[0] === 'access') return runAccess(argv, argv.slice(1));
  let parsed;
  try {
    parsed = parseArgs({ args: argv, allowPositionals: true, options: CLI_OPTIONS });
  } catch (e) {
    return commandLineFailure(argv, ExitCode.INVALID_INPUT, (e as Error).message, USAGE);
  }
  const { values, positionals } = parsed;
  if (values.help) {
    process.stdout.write(`${USAGE}\n`);
    return ExitCode.OK;
  }
  const command = positionals[0] ?? 'synth';
  if (command === 'init') return runInit(argv, positionals.slice(1));
  if (!Object.hasOwn(COMMANDS, command) || positionals.length > 1) {
    return commandLineFailure(argv, ExitCode.INVALID_INPUT, `unknown command "${positionals.join(' ')}"`, USAGE);
  }
  const buildProblem = compiledBuildProblem();
  if (buildProblem) return commandLineFailure(argv, ExitCode.INVALID_INPUT, buildProblem);
  const timeout = values.timeout !== undefined ? Number(values.timeout) : undefined;
  if (timeout !== undefined && !(Number.isInteger(timeout) && timeout > 0)) {
    return commandLineFailure(argv, ExitCode.INVALID_INPUT, `--timeout must be a positive number of milliseconds, not "${values.timeout}"`);
  }
  const wait = values.wait !== undefined ? Number(values.wait) : undefined;
  if (wait !== undefined && !(values.wait!.trim() !== '' && Number.isFinite(wait) && wait >= 0)) {
    process.stderr.write(`error: --wait must be a number of seconds (0 or more), not "${values.wait}"\n`);
    return ExitCode.INVALID_INPUT;
  }
  if (values.quiet && values.verbose) {
    return commandLineFailure(argv, ExitCode.INVALID_INPUT, '--quiet and --verbose exclude each other');
  }
  const cdk8sOutDir = process.env.CDK8S_OUTDIR;
  if (cdk8sOutDir && resolve(cdk8sOutDir) === resolve(values.out ?? 'dist')) {
    process.stderr.write(`warning: cdk8s-cli deleted its output folder ${cdk8sOutDir}/ before running mirrorc, and it is mirrorc's output too; set "output: .cdk8s.out" in cdk8s.yaml\n`);
  }
  const sources = (values.source ?? []).flatMap((s) => s.split(',')).map((s) => s.trim()).filter((s) => s !== '');
  const result = await runSynth({
    fleetFile: values.fleet ?? 'clusters/fleet.ts',
    mode: COMMANDS[command as Command],
    ...(values.lock !== undefined ? { lockFile: values.lock } : {}),
    outDir: values.out ?? 'dist',
    offline: values.offline,
    strict: values.strict,
    confirmRemovals: values['confirm-removals'],
    newFleet: values['new-fleet'],
    ...(values.kubeconfig !== undefined ? { kubeconfig: values.kubeconfig } : {}),
    ...(timeout !== undefined ? { requestTimeoutMs: timeout } : {}),
    ...(sources.length > 0 ? { sources } : {}),
    ...(values.report !== undefined ? { reportFile: values.report } : {}),
    ...(wait !== undefined ? { waitSeconds: wait } : {}),
    ...(values['max-stale'] !== undefined ? { maxStale: values['max-stale'] } : {}),
    env: process.env,
    verbosity: values.quiet ? 'quiet' : values.verbose ? 'verbose' : 'normal',
  });
  // Run by `cdk8s synth`: its output folder must exist afterwards, and stays empty (see cdk8s.yaml).
  if (cdk8sOutDir) mkdirSync(cdk8sOutDir, { recursive: true });
  return result.exitCode;
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (e: unknown) => {
    process.exit(commandLineFailure(process.argv.slice(2), ExitCode.INTERNAL, `unexpected failure (a bug in mirrorc; please report it with this output): ${e instanceof Error ? (e.stack ?? e.message) : String(e)}`));
  },
);
