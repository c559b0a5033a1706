/**
 * Failures of the command line itself (before or around a run): the message on stderr, and the
 * `--report` file written whenever its path can be read from the arguments, so CI finds a report
 * after every failure.
 */
import { parseArgs } from 'node:util';
import { printErr } from '../util/print.js';
import { COMMANDS, CLI_OPTIONS } from './options.js';
import { buildRunReport, writeReportOrLog, type ReportCommand } from '../report/report.js';

const stderrLog = { always: printErr };

/** The `--report` path, command and `--offline` as far as `argv` can be read, even when it is invalid. */
function readableArgs(argv: readonly string[]): { reportFile?: string; command: ReportCommand; offline: boolean } {
  try {
    const { values, positionals } = parseArgs({ args: [...argv], allowPositionals: true, strict: false, options: CLI_OPTIONS });
    const command = positionals[0] ?? 'synth';
    const report = values.report;
    return {
      ...(typeof report === 'string' && report !== '' ? { reportFile: report } : {}),
      command: Object.hasOwn(COMMANDS, command) ? (command as ReportCommand) : 'synth',
      offline: values.offline === true,
    };
  } catch {
    return { command: 'synth', offline: false };
  }
}

/** Prints `error: <message>` (and `usage` when given), writes the report when `--report` is readable, returns `exitCode`. */
export function commandLineFailure(argv: readonly string[], exitCode: number, message: string, usage?: string): number {
  stderrLog.always(`error: ${message}${usage ? `\n\n${usage}` : ''}`);
  const { reportFile, command, offline } = readableArgs(argv);
  if (reportFile) {
    const report = buildRunReport({ command, offline, exitCode, error: message, stale: [], changes: [], lockChanged: false, diagnostics: [] });
    writeReportOrLog(reportFile, report, stderrLog);
  }
  return exitCode;
}
