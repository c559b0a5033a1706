/** Verbosity levels of the CLI's stderr output: what an operator sees while a run progresses. */
import { outputText } from '../util/print.js';

/** `quiet`: errors and warnings only; `normal`: also progress, changed files and the summary; `verbose`: also changed fields and timings. */
export type Verbosity = 'quiet' | 'normal' | 'verbose';

/** Writes lines to one sink, filtered by the run's verbosity. */
export interface RunLog {
  /** Errors and warnings: printed at every level. */
  always(line: string): void;
  /** Progress, changed files and the summary: hidden by `quiet`. */
  info(line: string): void;
  /** Per-field changes and timings: only with `verbose`. */
  detail(line: string): void;
  readonly verbosity: Verbosity;
}

/** A {@link RunLog} writing to `sink`, with credentials redacted from every line and every line made printable (src/util/print.ts). */
export function runLog(sink: (line: string) => void, verbosity: Verbosity): RunLog {
  const write = (line: string): void => sink(outputText(line));
  return {
    verbosity,
    always: write,
    info: verbosity === 'quiet' ? () => {} : write,
    detail: verbosity === 'verbose' ? write : () => {},
  };
}
