/**
 * The coded findings of the stages outside compile: clusters that could not be observed, the
 * safety guards' hold-backs, delivery settings, and the error that ended a run.
 */
import { ExitCode } from '../errors/exit-codes.js';
import type { FleetSpec } from '../model/fleet-spec.js';
import type { ObservationFailure } from '../observe/observation-error.js';
import type { StaleCluster } from '../observe/observe-fleet.js';
import { deliveryWarnings } from '../delivery/delivery-files.js';
import { heldBackWarning, type HeldBackTarget } from '../guard/hold-back-targets.js';
import { suspectTargetWarning, type SuspectTarget } from '../guard/suspect-targets.js';
import { Diag, type DiagnosticDefinition } from './diagnostic-codes.js';
import { diagnostic, type Diagnostic } from './diagnostic.js';

/** The code of each cause of a failed observation. */
const BY_FAILURE: Record<ObservationFailure, DiagnosticDefinition> = {
  kubeconfig: Diag.CLUSTER_KUBECONFIG,
  unreachable: Diag.CLUSTER_UNREACHABLE,
  unauthorized: Diag.CLUSTER_UNAUTHORIZED,
  forbidden: Diag.CLUSTER_FORBIDDEN,
  'api-error': Diag.CLUSTER_API_ERROR,
  'over-budget': Diag.CLUSTER_OVER_BUDGET,
};

/** One finding per cluster role that could not be observed (its last known state is kept). */
export function staleDiagnostics(stale: readonly StaleCluster[]): Diagnostic[] {
  return stale.map((s) => diagnostic(
    BY_FAILURE[s.error.failure],
    `${s.role} ${s.error.message}${s.keptPrevious ? '' : ' [never observed before: nothing to keep]'}`,
    { cluster: s.cluster },
  ));
}

/** One finding per target held back by the removal guard. */
export function heldBackDiagnostics(held: readonly HeldBackTarget[]): Diagnostic[] {
  return held.map((h) => diagnostic(Diag.TARGET_HELD_BACK, heldBackWarning(h), { cluster: h.target }));
}

/** The finding for a target that suddenly lists no exports. */
export function suspectDiagnostic(s: SuspectTarget): Diagnostic {
  return diagnostic(Diag.SUSPECT_TARGET, suspectTargetWarning(s), { cluster: s.cluster });
}

/** The findings about the fleet's GitOps delivery settings. */
export function deliveryDiagnostics(spec: FleetSpec): Diagnostic[] {
  return deliveryWarnings(spec).map((text) => diagnostic(Diag.DELIVERY_SETTING, text));
}

/** The code of a run's error by its exit code, unless the run named a more exact one. */
const BY_EXIT_CODE: Record<number, DiagnosticDefinition> = {
  [ExitCode.INTERNAL]: Diag.INTERNAL,
  [ExitCode.INVALID_INPUT]: Diag.INVALID_INPUT,
  [ExitCode.COMPILE_ERROR]: Diag.COMPILE_FAILED,
  [ExitCode.STALE]: Diag.STRICT_STALE,
  [ExitCode.CHECK_FAILED]: Diag.CHECK_FAILED,
  [ExitCode.BUSY]: Diag.RUN_BUSY,
  [ExitCode.REMOVAL_NOT_CONFIRMED]: Diag.REMOVAL_NOT_CONFIRMED,
  [ExitCode.WRITE_FAILED]: Diag.WRITE_FAILED,
  [ExitCode.STALE_LIMIT]: Diag.STALE_LIMIT,
};

/** The finding for the error that ended a run with `exitCode`. */
export function runErrorDiagnostic(exitCode: number, message: string, code?: DiagnosticDefinition): Diagnostic {
  return { ...diagnostic(code ?? BY_EXIT_CODE[exitCode] ?? Diag.INTERNAL, message), severity: 'error' };
}
