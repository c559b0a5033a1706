/** `mirrorc status`: the command-line shell of {@link runStatus}; it parses and prints. */
import { commandLineFailure } from './command-line-failure.js';
import { ONLY_FOR } from './command-help.js';
import { ExitCode } from '../errors/exit-codes.js';
import { FleetDefinitionError } from '../model/fleet.js';
import { FleetLoadError } from '../load/load-fleet.js';
import { LockFileError } from '../observe/lock-file.js';
import { UnsafeJournalError } from '../emit/write-output.js';
import { renderStatus } from '../status/render-status.js';
import { runStatus } from '../status/run-status.js';
import { canonicalJson } from '../util/canonical-json.js';
import { CLI_OPTIONS } from './options.js';
import { printOut } from '../util/print.js';
import { printableJson } from '../util/printable-text.js';

/** The parsed options status reads. */
export interface StatusArgs {
  readonly fleet?: string | undefined;
  readonly lock?: string | undefined;
  readonly out?: string | undefined;
  readonly kubeconfig?: string | undefined;
  readonly timeout?: string | undefined;
  readonly output?: string | undefined;
}

/** The options in `argv` that status does not take. */
function foreignOptions(argv: readonly string[]): string[] {
  const allowed = ONLY_FOR.status ?? [];
  const known = Object.entries(CLI_OPTIONS).flatMap(([name, o]) => [`--${name}`, ...('short' in o ? [`-${o.short}`] : [])]);
  return argv.filter((a) => a.startsWith('-')).map((a) => a.split('=')[0]!).filter((a) => known.includes(a) && !allowed.includes(a));
}

/** Runs status; prints the table (or `--output json`) on stdout; returns the exit code of the most urgent problem class. */
export async function runStatusCommand(argv: readonly string[], args: readonly string[], values: StatusArgs): Promise<number> {
  const foreign = foreignOptions(argv);
  if (foreign.length > 0) return commandLineFailure(argv, ExitCode.INVALID_INPUT, `status does not take ${foreign.join(', ')}: it only reads (mirrorc status --help lists its options)`);
  if (args.length > 0) return commandLineFailure(argv, ExitCode.INVALID_INPUT, `status takes no argument, not "${args.join(' ')}"`);
  const output = values.output ?? 'table';
  if (output !== 'table' && output !== 'json') return commandLineFailure(argv, ExitCode.INVALID_INPUT, `--output must be table or json, not "${output}"`);
  const timeout = values.timeout !== undefined ? Number(values.timeout) : undefined;
  if (timeout !== undefined && !(Number.isInteger(timeout) && timeout > 0)) {
    return commandLineFailure(argv, ExitCode.INVALID_INPUT, `--timeout must be a positive number of milliseconds, not "${values.timeout}"`);
  }
  let doc;
  try {
    doc = await runStatus({
      ...(values.fleet !== undefined ? { fleetFile: values.fleet } : {}),
      ...(values.lock !== undefined ? { lockFile: values.lock } : {}),
      ...(values.out !== undefined ? { outDir: values.out } : {}),
      ...(values.kubeconfig !== undefined ? { kubeconfig: values.kubeconfig } : {}),
      ...(timeout !== undefined ? { requestTimeoutMs: timeout } : {}),
    });
  } catch (e) {
    if (e instanceof FleetDefinitionError || e instanceof FleetLoadError || e instanceof LockFileError || e instanceof UnsafeJournalError) {
      return commandLineFailure(argv, ExitCode.INVALID_INPUT, e.message);
    }
    throw e;
  }
  printOut(output === 'json' ? printableJson(canonicalJson(doc)) : renderStatus(doc).join('\n'));
  return doc.exitCode;
}
