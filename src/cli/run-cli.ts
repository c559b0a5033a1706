/** `mirrorc` command line: `synth|plan|check|observe|init|explain|status|access [options]` (see {@link USAGE}); main.ts runs it on the process's arguments. */
import { mkdirSync } from 'node:fs';
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { ExitCode } from '../errors/exit-codes.js';
import { CLI_OPTIONS, COMMANDS, USAGE, type Command } from './options.js';
import { commandHelp, HELP_COMMANDS } from './command-help.js';
import { didYouMean } from './did-you-mean.js';
import { npmOfflineProblem } from './npm-offline.js';
import { ownVersion } from '../util/own-version.js';
import type { FsHost } from '../emit/fs-host.js';
import { runSynth } from '../pipeline/run-synth.js';
import { printErr, printOut } from '../util/print.js';

/** Commands the command line knows (for "did you mean"). */
const KNOWN_COMMANDS: readonly string[] = [...Object.keys(COMMANDS), 'init', 'explain', 'status', 'access'];

/** parseArgs' error as a message with advice that fits mirrorc (an unknown option: the closest known one). */
function parseErrorMessage(e: Error & { code?: string }, command: string | undefined): string {
  const unknown = e.code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION' ? /'(-[^']*)'/.exec(e.message)?.[1] : undefined;
  if (unknown === undefined) return e.message;
  const names = Object.entries(CLI_OPTIONS).flatMap(([name, o]) => [`--${name}`, ...('short' in o ? [`-${o.short}`] : [])]);
  const suggestion = didYouMean(unknown.split('=')[0]!, names);
  const helpFor = command !== undefined && (HELP_COMMANDS as readonly string[]).includes(command) ? `mirrorc ${command} --help` : 'mirrorc --help';
  return `unknown option ${unknown}${suggestion ? `; did you mean ${suggestion}?` : ''} (${helpFor} lists the options)`;
}

/** What the command line runs with besides its arguments. */
export interface CliProps {
  /** The file system of the write path (a test's child process injects faults through it). @default the real one */
  readonly host?: FsHost;
}

/** Runs the command line `argv` (without node and the script); returns the exit code. */
export async function runCli(argv: string[], props: CliProps = {}): Promise<number> {
  if (argv.length === 0) {
    printOut(USAGE);
    return ExitCode.INVALID_INPUT;
  }
  // `access` has options of its own (it mints credentials; it does not compile).
  // (Each other command's module is loaded only for it: synth starts its run before the compiler loads, see run-synth.ts.)
  if (argv[0] === 'access') return (await import('./access-command.js')).runAccess(argv, argv.slice(1));
  let parsed;
  try {
    parsed = parseArgs({ args: argv, allowPositionals: true, options: CLI_OPTIONS });
  } catch (e) {
    const command = argv.find((a) => !a.startsWith('-'));
    return await commandLineFailure(argv, ExitCode.INVALID_INPUT, parseErrorMessage(e as Error, command));
  }
  const { values, positionals } = parsed;
  const command = positionals[0];
  if (values.version) {
    printOut(ownVersion());
    return ExitCode.OK;
  }
  // `mirrorc <unknown> --help` is the unknown command's error (exit 2), not the general help with exit 0.
  if (values.help && (command === undefined || KNOWN_COMMANDS.includes(command))) {
    const known = command !== undefined && (HELP_COMMANDS as readonly string[]).includes(command);
    printOut(known ? commandHelp(command as (typeof HELP_COMMANDS)[number]) : USAGE);
    return ExitCode.OK;
  }
  if (command === undefined) {
    return await commandLineFailure(argv, ExitCode.INVALID_INPUT, `no command given (options alone no longer run synth): write "mirrorc synth ${argv.join(' ')}"`, USAGE);
  }
  if (command === 'init') return (await import('./init-command.js')).runInit(argv, positionals.slice(1));
  if (command === 'explain') return (await import('./explain-command.js')).runExplainCommand(argv, positionals.slice(1), values);
  if (command === 'status') return (await import('./status-command.js')).runStatusCommand(argv, positionals.slice(1), values);
  if (!Object.hasOwn(COMMANDS, command) || positionals.length > 1) {
    const suggestion = positionals.length === 1 ? didYouMean(command, KNOWN_COMMANDS) : undefined;
    return await commandLineFailure(argv, ExitCode.INVALID_INPUT, `unknown command "${positionals.join(' ')}"${suggestion ? `; did you mean "${suggestion}"?` : ''}`, USAGE);
  }
  if (values.json) return await commandLineFailure(argv, ExitCode.INVALID_INPUT, `--json is an option of explain; ${command}'s JSON is its report: --report - (or --report <file>)`);
  const npmOffline = npmOfflineProblem(process.env, command, values.offline);
  if (npmOffline) return await commandLineFailure(argv, ExitCode.INVALID_INPUT, npmOffline);
  const timeout = values.timeout !== undefined ? Number(values.timeout) : undefined;
  if (timeout !== undefined && !(Number.isInteger(timeout) && timeout > 0)) {
    return await commandLineFailure(argv, ExitCode.INVALID_INPUT, `--timeout must be a positive number of milliseconds, not "${values.timeout}"`);
  }
  const wait = values.wait !== undefined ? Number(values.wait) : undefined;
  if (wait !== undefined && !(values.wait!.trim() !== '' && Number.isFinite(wait) && wait >= 0)) {
    return await commandLineFailure(argv, ExitCode.INVALID_INPUT, `--wait must be a number of seconds (0 or more), not "${values.wait}"`);
  }
  if (values.quiet && values.verbose) {
    return await commandLineFailure(argv, ExitCode.INVALID_INPUT, '--quiet and --verbose exclude each other');
  }
  const cdk8sOutDir = process.env.CDK8S_OUTDIR;
  if (cdk8sOutDir && resolve(cdk8sOutDir) === resolve(values.out ?? 'dist')) {
    printErr(`warning: cdk8s-cli deleted its output folder ${cdk8sOutDir}/ before running mirrorc, and it is mirrorc's output too; set "output: .cdk8s.out" in cdk8s.yaml`);
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
    // The report takes stdout: plan's and check's list of changes goes to stderr.
    ...(values.report === '-' ? { print: printErr } : {}),
    ...(wait !== undefined ? { waitSeconds: wait } : {}),
    ...(values['max-stale'] !== undefined ? { maxStale: values['max-stale'] } : {}),
    env: process.env,
    verbosity: values.quiet ? 'quiet' : values.verbose ? 'verbose' : 'normal',
    ...(props.host ? { host: props.host } : {}),
  });
  // Run by `cdk8s synth`: its output folder must exist afterwards, and stays empty (see cdk8s.yaml).
  if (cdk8sOutDir) mkdirSync(cdk8sOutDir, { recursive: true });
  return result.exitCode;
}

/** Runs the command line `argv` and exits the process with its code; an unexpected failure (a bug) exits 1 with its stack. */
export function runCliAndExit(argv: string[], props: CliProps = {}): void {
  runCli(argv, props).then(
    (code) => process.exit(code),
    (e: unknown) => {
      void commandLineFailure(argv, ExitCode.INTERNAL, `unexpected failure (a bug in mirrorc; please report it with this output): ${e instanceof Error ? (e.stack ?? e.message) : String(e)}`).then((code) => process.exit(code), () => process.exit(ExitCode.INTERNAL));
    },
  );
}

/** command-line-failure.ts's commandLineFailure, its module (the report's, which loads much of mirrorc) loaded only when a run fails before it starts. */
async function commandLineFailure(argv: readonly string[], exitCode: number, message: string, usage?: string): Promise<number> {
  return (await import('./command-line-failure.js')).commandLineFailure(argv, exitCode, message, usage);
}
