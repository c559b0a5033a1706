/** `mirrorc explain <cluster>/<namespace>/<service>`: the command-line shell of {@link runExplain}; it parses and prints. */
import { commandLineFailure } from './command-line-failure.js';
import { ONLY_FOR } from './command-help.js';
import { ExitCode } from '../errors/exit-codes.js';
import { renderExplanation } from '../explain/render-explanation.js';
import { runExplain } from '../pipeline/run-explain.js';
import { CLI_OPTIONS } from './options.js';
import { printOut } from '../util/print.js';
import { printableJson } from '../util/printable-text.js';
import { ownVersion } from '../util/own-version.js';

/** The version of explain's `--json` format; bumped on incompatible changes (docs/releases.md). */
export const EXPLAIN_REPORT_FORMAT = 1;

/** The parsed options explain reads. */
export interface ExplainArgs {
  readonly fleet?: string | undefined;
  readonly lock?: string | undefined;
  readonly out?: string | undefined;
  readonly json?: boolean | undefined;
}

/** The options in `argv` that explain does not take (`--offline`, ...). */
function foreignOptions(argv: readonly string[]): string[] {
  const allowed = ONLY_FOR.explain ?? [];
  const known = Object.entries(CLI_OPTIONS).flatMap(([name, o]) => [`--${name}`, ...('short' in o ? [`-${o.short}`] : [])]);
  return argv.filter((a) => a.startsWith('-')).map((a) => a.split('=')[0]!).filter((a) => known.includes(a) && !allowed.includes(a));
}

/** Explains `args[0]`; prints the text (or JSON) on stdout; returns the exit code. */
export async function runExplainCommand(argv: readonly string[], args: readonly string[], values: ExplainArgs): Promise<number> {
  const foreign = foreignOptions(argv);
  if (foreign.length > 0) {
    return commandLineFailure(argv, ExitCode.INVALID_INPUT, `explain does not take ${foreign.join(', ')}: it compiles from the lock, contacts no cluster and writes nothing (mirrorc explain --help lists its options)`);
  }
  if (args.length !== 1) {
    return commandLineFailure(argv, ExitCode.INVALID_INPUT, `explain takes one <cluster>/<namespace>/<service>${args.length > 1 ? `, not "${args.join(' ')}"` : ' (e.g. mirrorc explain east/shop/web)'}`);
  }
  const outDir = values.out ?? 'dist';
  const outcome = await runExplain({
    ref: args[0]!,
    ...(values.fleet !== undefined ? { fleetFile: values.fleet } : {}),
    ...(values.lock !== undefined ? { lockFile: values.lock } : {}),
    outDir,
  });
  if (!outcome.ok) {
    if (values.json) printOut(printableJson(JSON.stringify({ ...jsonHeader(), error: outcome.error, ...(outcome.reason ? { reason: outcome.reason } : {}) }, null, 2)));
    return commandLineFailure(argv, ExitCode.INVALID_INPUT, outcome.error);
  }
  // JSON keeps exact values (printableJson changes only how characters are written); text lines are made printable.
  printOut(values.json ? printableJson(JSON.stringify({ ...jsonHeader(), ...outcome.explanation }, null, 2)) : renderExplanation(outcome.explanation, outDir).join('\n'));
  return ExitCode.OK;
}

/** What every JSON document explain prints starts with: its format's version and mirrorc's. */
function jsonHeader(): { reportFormat: number; mirrorcVersion: string } {
  return { reportFormat: EXPLAIN_REPORT_FORMAT, mirrorcVersion: ownVersion() };
}
