/**
 * Errors that carry their exit code: a stage throws one, and the orchestrator (and the CLI) end the
 * run with `error.exitCode` and `error.message`, never mapping error classes to codes by hand.
 * Anything else that is thrown is a bug (exit 1, see src/pipeline/unexpected-failure.ts).
 */
import { ExitCode } from './exit-codes.js';

/** One of the documented exit codes (src/errors/exit-codes.ts). */
export type ExitCodeValue = (typeof ExitCode)[keyof typeof ExitCode];

/** A failure mirrorc expects and explains: its message is for the user (no stack trace), its exit code is its kind. */
export abstract class MirrorcError extends Error {
  /** What the run exits with. */
  abstract readonly exitCode: ExitCodeValue;
}

/** Bad input: command line, fleet definition, lock file or repository content (exit 2). Nothing was contacted or written. */
export class InvalidInputError extends MirrorcError {
  readonly exitCode = ExitCode.INVALID_INPUT;
  constructor(message: string) {
    super(message);
    this.name = 'InvalidInputError';
  }
}

/** `--strict` and at least one cluster could not be observed, or a target was held back (exit 4). Nothing was written. */
export class StrictStaleError extends MirrorcError {
  readonly exitCode = ExitCode.STALE;
  constructor(message: string) {
    super(message);
    this.name = 'StrictStaleError';
  }
}

/** `check`: the output or the lock differs from what synth would write (exit 5). */
export class CheckFailedError extends MirrorcError {
  readonly exitCode = ExitCode.CHECK_FAILED;
  constructor(message: string) {
    super(message);
    this.name = 'CheckFailedError';
  }
}

/** The run would remove more mirrors than the removal guard allows (exit 7). Nothing was written. */
export class RemovalNotConfirmedError extends MirrorcError {
  readonly exitCode = ExitCode.REMOVAL_NOT_CONFIRMED;
  constructor(message: string) {
    super(message);
    this.name = 'RemovalNotConfirmedError';
  }
}

/** A cluster is stale for longer than the staleness limit (exit 9); the output WAS written (stale but safe). */
export class StaleLimitError extends MirrorcError {
  readonly exitCode = ExitCode.STALE_LIMIT;
  constructor(message: string) {
    super(message);
    this.name = 'StaleLimitError';
  }
}
