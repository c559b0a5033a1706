/**
 * The end of a run that threw something mirrorc did not expect (a bug, or a fault no step maps to
 * an exit code): exit 1, the stack on the log (it is a bug report), and the report written anyway,
 * so CI always finds one. Nothing else is written: every writer replaces its files atomically.
 */
import { ExitCode } from '../errors/exit-codes.js';
import { buildRunReport, writeReportOrLog } from '../report/report.js';
import { runContext } from './run-context.js';
import type { SynthOptions, SynthResult } from './synth-options.js';

/** What to say about `thrown` in one line. */
export function describeThrown(thrown: unknown): string {
  if (thrown instanceof Error) return `${thrown.name}: ${thrown.message}`;
  return `${typeof thrown === 'string' ? JSON.stringify(thrown) : String(thrown)} (thrown as a ${thrown === null ? 'null' : typeof thrown}, not an Error)`;
}

/** Logs `thrown` as a bug, writes the report (exit code 1) and returns the run's result. */
export function unexpectedFailure(options: SynthOptions, thrown: unknown): SynthResult {
  const { log, mode, shard } = runContext(options);
  const error = `unexpected failure (a bug in mirrorc; please report it with this output): ${describeThrown(thrown)}`;
  log.always(`error: ${error}`);
  if (thrown instanceof Error && thrown.stack) log.always(thrown.stack);
  const report = buildRunReport({
    command: mode === 'write' ? 'synth' : mode, offline: options.offline ?? false, ...(shard ? { shard } : {}),
    stale: [], changes: [], lockChanged: false, diagnostics: [], exitCode: ExitCode.INTERNAL, error,
  });
  if (options.reportFile) writeReportOrLog(options.reportFile, report, log);
  return { exitCode: ExitCode.INTERNAL, changes: [], warnings: [], diagnostics: [], stale: [], error, report };
}
