#!/usr/bin/env node
/** `mirrorc` command line: `synth|plan|check [--offline] [--strict] [--fleet F] [--lock F] [--out D] [--kubeconfig F]`. */
import { parseArgs } from 'node:util';
import { ExitCode } from './exit-codes.js';
import { runSynth } from './synth.js';

const USAGE = `usage: mirrorc <synth|plan|check> [options]

  synth   observe the fleet's clusters, update the lock, compile mirrors into <out>/<cluster>/
  plan    the same, but only print what would be added, changed (with the fields) and removed
  check   like plan, but exit 5 when <out>/ or the lock differs from what synth would write (for CI)

options:
  --fleet <file>       fleet definition module (default: clusters/fleet.ts)
  --lock <file>        lock file (default: the fleet file with .lock.json)
  --out <dir>          output directory (default: $CDK8S_OUTDIR or dist)
  --offline            compile from the lock alone; contact no cluster
  --strict             fail, writing nothing, if any cluster cannot be observed
  --kubeconfig <file>  kubeconfig for clusters whose access names none
  --timeout <ms>       client-side timeout of one API request (default: 10000)
  -h, --help           show this help

exit codes: 0 ok, 1 unexpected failure, 2 invalid input, 3 compile errors, 4 --strict and stale clusters,
            5 check found differences`;

async function main(argv: string[]): Promise<number> {
  let parsed;
  try {
    parsed = parseArgs({
      args: argv,
      allowPositionals: true,
      options: {
        fleet: { type: 'string' },
        lock: { type: 'string' },
        out: { type: 'string' },
        offline: { type: 'boolean', default: false },
        strict: { type: 'boolean', default: false },
        kubeconfig: { type: 'string' },
        timeout: { type: 'string' },
        help: { type: 'boolean', short: 'h', default: false },
      },
    });
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
  if (!['synth', 'plan', 'check'].includes(command) || positionals.length > 1) {
    process.stderr.write(`error: unknown command "${positionals.join(' ')}"\n\n${USAGE}\n`);
    return ExitCode.INVALID_INPUT;
  }
  const timeout = values.timeout !== undefined ? Number(values.timeout) : undefined;
  if (timeout !== undefined && !(Number.isInteger(timeout) && timeout > 0)) {
    process.stderr.write(`error: --timeout must be a positive number of milliseconds, not "${values.timeout}"\n`);
    return ExitCode.INVALID_INPUT;
  }
  const result = await runSynth({
    fleetFile: values.fleet ?? 'clusters/fleet.ts',
    mode: command === 'synth' ? 'write' : (command as 'plan' | 'check'),
    ...(values.lock !== undefined ? { lockFile: values.lock } : {}),
    outDir: values.out ?? process.env.CDK8S_OUTDIR ?? 'dist',
    offline: values.offline,
    strict: values.strict,
    ...(values.kubeconfig !== undefined ? { kubeconfig: values.kubeconfig } : {}),
    ...(timeout !== undefined ? { requestTimeoutMs: timeout } : {}),
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
