/**
 * Deterministic fault injection for the write path (tests only). `MIRRORC_FAULT` names one fault:
 *
 * - `crash:<step>`: the process kills itself (SIGKILL) right before the first `<step>`;
 * - `crash:<n>`: ... right before the n-th mutating file-system step of the run (1-based);
 * - `errno:<CODE>:<step>` or `errno:<CODE>:<n>`: that step fails once with an fs error of that code
 *   (e.g. `errno:ENOSPC:stage-file`), as the file system would report it.
 *
 * Every mutating file-system step of the write path calls {@link faultPoint} first. This file is
 * the only place that reads the variable.
 */

/** The environment variable holding the fault. */
export const FAULT_ENV = 'MIRRORC_FAULT';

/** Every named step of the write path, in the order a run meets them (see docs/safety/write-path.md). */
export const WRITE_STEPS = [
  /** Writing the run lock's holder-info file (best effort). */
  'holder-info',
  /** Putting back or deleting leftovers of the old (swap) format. */
  'legacy-recover',
  /** Removing an uncommitted transaction (after a failure, or left by a killed run). */
  'discard',
  /** Creating the transaction folder and its list of files staged outside it. */
  'txn-begin',
  /** Writing one staged file (not yet flushed). */
  'stage-file',
  /** Flushing every staged file to disk at once (one syncfs per file system, else an fsync per file). */
  'stage-sync',
  /** Writing (and fsyncing) the journal's temporary file. */
  'journal-write',
  /** Renaming the journal into place: the commit point. */
  'journal-commit',
  /** Creating a folder of the output that the new tree needs. */
  'apply-mkdir',
  /** Renaming a staged object file into place. */
  'apply-object',
  /** Renaming a staged kustomization.yaml into place (after every object file). */
  'apply-kustomization',
  /** Deleting a file the new tree no longer has (after every put). */
  'apply-delete',
  /** Removing a folder left empty by the deletes. */
  'apply-rmdir',
  /** Renaming the staged lock file into place (last). */
  'apply-lock',
  /** Removing the journal and the transaction folder after a complete apply. */
  'txn-cleanup',
] as const;

/** A named step of the write path. */
export type WriteStep = (typeof WRITE_STEPS)[number];

interface Fault {
  readonly kind: 'crash' | 'errno';
  readonly code?: string;
  /** A step name, or the 1-based number of the mutating step. */
  readonly at: WriteStep | number;
}

let configured: Fault | undefined | null = null;
let stepsSoFar = 0;
let fired = false;

/** Parses a fault specification; throws a plain error for a malformed one. */
export function parseFault(spec: string): Fault {
  const parts = spec.split(':');
  const at = (s: string | undefined): WriteStep | number => {
    if (s !== undefined && /^[1-9][0-9]*$/.test(s)) return Number(s);
    if (s !== undefined && (WRITE_STEPS as readonly string[]).includes(s)) return s as WriteStep;
    throw new Error(`${FAULT_ENV}="${spec}": "${s ?? ''}" is neither a step number nor one of ${WRITE_STEPS.join(', ')}`);
  };
  if (parts[0] === 'crash' && parts.length === 2) return { kind: 'crash', at: at(parts[1]) };
  if (parts[0] === 'errno' && parts.length === 3 && /^E[A-Z0-9]+$/.test(parts[1]!)) return { kind: 'errno', code: parts[1]!, at: at(parts[2]) };
  throw new Error(`${FAULT_ENV}="${spec}" is not crash:<step|n> or errno:<CODE>:<step|n>`);
}

function fault(): Fault | undefined {
  if (configured === null) {
    const spec = process.env[FAULT_ENV];
    configured = spec ? parseFault(spec) : undefined;
  }
  return configured;
}

/** Replaces the fault of this process (in-process tests); `undefined` injects none. Resets the step count. */
export function injectFault(spec: string | undefined): void {
  configured = spec === undefined ? undefined : parseFault(spec);
  stepsSoFar = 0;
  fired = false;
}

/** Called right before every mutating file-system step; crashes or throws when the fault says so. */
export function faultPoint(step: WriteStep, path: string): void {
  stepsSoFar++;
  const f = fault();
  if (!f || fired) return;
  if (typeof f.at === 'number' ? f.at !== stepsSoFar : f.at !== step) return;
  fired = true;
  if (f.kind === 'crash') process.kill(process.pid, 'SIGKILL');
  throw Object.assign(new Error(`${f.code}: injected fault before ${step}, '${path}'`), { code: f.code, errno: -1, syscall: step, path });
}
