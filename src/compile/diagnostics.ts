/** Findings of a compile: errors stop the run before anything is written, warnings are reported. */
import { ExitCode } from '../errors/exit-codes.js';
import { MirrorcError } from '../errors/mirrorc-error.js';

/** Collected findings; each message names the cluster, the service and what to do. */
export class Diagnostics {
  public readonly errors: string[] = [];
  public readonly warnings: string[] = [];
  /** Facts `plan` shows besides file changes (e.g. a generic gateway's port of each mirror). */
  public readonly notes: string[] = [];

  /** @param strict whether a problem of one mirror ({@link skip}) is an error rather than a skip */
  constructor(private readonly strict = false) {}

  public error(message: string): void {
    this.errors.push(message);
  }

  public warn(message: string): void {
    this.warnings.push(message);
  }

  /** A row for `plan`. */
  public note(row: string): void {
    this.notes.push(row);
  }

  /** A problem of one mirror: with strict an error; otherwise a warning that `outcome` (e.g. "x is skipped") while the other mirrors are updated. */
  public skip(message: string, outcome: string): void {
    if (this.strict) this.error(message);
    else this.warn(`${message}; ${outcome}, the other mirrors are updated (--strict makes this an error)`);
  }
}

/** Compile found errors; nothing was written. */
export class CompileError extends MirrorcError {
  readonly exitCode = ExitCode.COMPILE_ERROR;
  constructor(public readonly problems: readonly string[]) {
    super(`compile found ${problems.length} error${problems.length === 1 ? '' : 's'}; nothing was written:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
    this.name = 'CompileError';
  }
}
