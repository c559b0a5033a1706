/** Findings of a compile: errors stop the run before anything is written, warnings are reported. */
import { ExitCode } from '../errors/exit-codes.js';
import { MirrorcError } from '../errors/mirrorc-error.js';
import { Diag, type DiagnosticDefinition } from '../diagnostics/diagnostic-codes.js';
import { diagnostic, messages, type Diagnostic, type DiagnosticSubject } from '../diagnostics/diagnostic.js';
import { appendAll } from '../util/append-all.js';

/** Collected findings; each names its code, the cluster and service, and what to do. */
export class Diagnostics {
  /** Every finding in the order found, warnings and errors (an error keeps its code's identity; its severity is `error`). */
  public readonly findings: Diagnostic[] = [];
  /** Facts `plan` shows besides file changes (e.g. a generic gateway's port of each mirror). */
  public readonly notes: string[] = [];

  /** @param strict whether a problem of one mirror ({@link skip}) is an error rather than a skip */
  constructor(private readonly strict = false) {}

  /** The error messages. */
  public get errors(): string[] {
    return messages(this.findings.filter((d) => d.severity === 'error'));
  }

  /** The warning messages. */
  public get warnings(): string[] {
    return messages(this.warningFindings);
  }

  /** The warnings as data. */
  public get warningFindings(): Diagnostic[] {
    return this.findings.filter((d) => d.severity === 'warning');
  }

  /** An error of `definition` (a warning code used as an error, e.g. under --strict, becomes severity error). */
  public error(definition: DiagnosticDefinition, message: string, subject?: DiagnosticSubject): void {
    this.findings.push({ ...diagnostic(definition, message, subject), severity: 'error' });
  }

  public warn(definition: DiagnosticDefinition, message: string, subject?: DiagnosticSubject): void {
    this.findings.push(diagnostic(definition, message, subject));
  }

  /** A row for `plan`. */
  public note(row: string): void {
    this.notes.push(row);
  }

  /** A problem of one mirror: with strict an error; otherwise a warning that `outcome` (e.g. "x is skipped") while the other mirrors are updated. */
  public skip(definition: DiagnosticDefinition, message: string, outcome: string, subject?: DiagnosticSubject): void {
    if (this.strict) this.error(definition, message, subject);
    else this.warn(definition, `${message}; ${outcome}, the other mirrors are updated (--strict makes this an error)`, subject);
  }

  /** Takes over the findings of `other` (a compile round done apart). */
  public merge(other: Diagnostics): void {
    appendAll(this.findings, other.findings);
  }
}

/** Compile found errors; nothing was written. */
export class CompileError extends MirrorcError {
  readonly exitCode = ExitCode.COMPILE_ERROR;
  /** The errors as data. */
  public readonly diagnostics: readonly Diagnostic[];

  constructor(problems: readonly (string | Diagnostic)[]) {
    const found = problems.map((p) => (typeof p === 'string' ? diagnostic(Diag.COMPILE_FAILED, p) : p));
    super(`compile found ${found.length} error${found.length === 1 ? '' : 's'}; nothing was written:\n${found.map((p) => `  - ${p.message}`).join('\n')}`);
    this.name = 'CompileError';
    this.diagnostics = found;
  }

  /** The error messages. */
  public get problems(): readonly string[] {
    return messages(this.diagnostics);
  }
}
