#!/usr/bin/env node
/** `mirrorc` command line: `synth|plan|check|observe [options]` (see {@link USAGE}). */
import { parseArgs } from 'node:util';
import { ExitCode } from './exit-codes.js';
import { CLI_OPTIONS, COMMANDS, USAGE, type Command } from './options.js';
import { runSynth } from './synth.js';

async function main(argv: string[]): Promise<number> {
  let parsed;
  try {
    parsed = parseArgs({ args: argv, allowPositionals: true, options: CLI_OPTIONS });
  } catch (e) {
    process.stderr.write(`error: ${(e as Error).message}\n\n${USAGE}\n`);
    return ExitCode.INVALID_INPUT;
  }
  const { values, positionals } = parsed;
  if (values.help) {
    process.stdout.write(`${USAGE}\n`);
    return ExitCode.OK;
  }
  const command = positionals[0] ?? 'synth';
  if (!Object.hasOwn(COMMANDS, command) || positionals.length > 1) {
    process.stderr.write(`error: unknown command "${positionals.join(' ')}"\n\n${USAGE}\n`);
    return ExitCode.INVALID_INPUT;
  }
  const timeout = values.timeout !== undefined ? Number(values.timeout) : undefined;
  if (timeout !== undefined && !(Number.isInteger(timeout) && timeout > 0)) {
    process.stderr.write(`error: --timeout must be a positive number of milliseconds, not "${values.timeout}"\n`);
    return ExitCode.INVALID_INPUT;
  }
  const wait = values.wait !== undefined ? Number(values.wait) : undefined;
  if (wait !== undefined && !(values.wait!.trim() !== '' && Number.isFinite(wait) && wait >= 0)) {
    process.stderr.write(`error: --wait must be a number of seconds (0 or more), not "${values.wait}"\n`);
    return ExitCode.INVALID_INPUT;
  }
  if (values.quiet && values.verbose) {
    process.stderr.write('error: --quiet and --verbose exclude each other\n');
    return ExitCode.INVALID_INPUT;
  }
  const sources = (values.source ?? []).flatMap((s) => s.split(',')).map((s) => s.trim()).filter((s) => s !== '');
  const result = await runSynth({
    fleetFile: values.fleet ?? 'clusters/fleet.ts',
    mode: COMMANDS[command as Command],
    ...(values.lock !== undefined ? { lockFile: values.lock } : {}),
    outDir: values.out ?? process.env.CDK8S_OUTDIR ?? 'dist',
    offline: values.offline,
    strict: values.strict,
    ...(values.kubeconfig !== undefined ? { kubeconfig: values.kubeconfig } : {}),
    ...(timeout !== undefined ? { requestTimeoutMs: timeout } : {}),
    ...(sources.length > 0 ? { sources } : {}),
    ...(values.report !== undefined ? { reportFile: values.report } : {}),
    ...(wait !== undefined ? { waitSeconds: wait } : {}),
    verbosity: values.quiet ? 'quiet' : values.verbose ? 'verbose' : 'normal',
  });
  return result.exitCode;
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (e: unknown) => {
    process.stderr.write(`mirrorc: unexpected failure (please report it): ${e instanceof Error ? (e.stack ?? e.message) : String(e)}\n`);
    process.exit(ExitCode.INTERNAL);
  },
);
