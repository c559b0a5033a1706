/** One finding of a run, as data: what the JSON report carries and the human output groups. */
import type { DiagnosticDefinition, Severity } from './diagnostic-codes.js';

/** What a finding concerns; every field optional (a fleet-wide finding names none). */
export interface DiagnosticSubject {
  /** The cluster it concerns: the source whose output it changes, or the cluster that was observed. */
  readonly cluster?: string;
  /** The target cluster the service lives in, when it differs from `cluster`. */
  readonly target?: string;
  /** The namespace of the service. */
  readonly namespace?: string;
  /** The service's name (in `target` when given, else in `cluster`). */
  readonly service?: string;
}

/** A coded warning or error. */
export interface Diagnostic extends DiagnosticSubject {
  /** Stable code from the table in src/diagnostics/diagnostic-codes.ts (`MRC3009`). */
  readonly code: string;
  /** `error`: the run stopped (or, for a --strict skip, would stop); `warning`: reported, the run went on. */
  readonly severity: Severity;
  /** The full message, naming cluster and service (the line the human output prints). */
  readonly message: string;
  /** One line of what to do. */
  readonly hint: string;
}

/** A {@link Diagnostic} of `definition`; undefined subject fields are left out (canonical JSON). */
export function diagnostic(definition: DiagnosticDefinition, message: string, subject: DiagnosticSubject = {}): Diagnostic {
  const fields = Object.fromEntries(Object.entries(subject).filter(([, v]) => v !== undefined)) as DiagnosticSubject;
  return { code: definition.code, severity: definition.severity, ...fields, message, hint: definition.hint };
}

/** The message texts of `diagnostics` (the plain `warnings` lists of results and the report). */
export function messages(diagnostics: readonly Diagnostic[]): string[] {
  return diagnostics.map((d) => d.message);
}
