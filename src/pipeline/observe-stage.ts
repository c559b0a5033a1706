/**
 * Stage 2, observe (skipped offline): every cluster's API read within its budget; a cluster that
 * fails keeps its locked state (stale but safe, named in the warnings). A target that suddenly lists
 * no exports keeps its locked services unless removals are confirmed (src/guard/suspect-targets.ts).
 */
import { holdBackSuspectTargets, type SuspectTarget } from '../guard/suspect-targets.js';
import type { Diagnostic } from '../diagnostics/diagnostic.js';
import { printStaleClusters } from '../diagnostics/print-diagnostics.js';
import { suspectDiagnostic } from '../diagnostics/run-diagnostics.js';
import { observeFleet, type StaleCluster } from '../observe/observe-fleet.js';
import { fleetRoles, nextStaleSince, observationOutcomes, withHeldBackTargets } from '../observe/stale-since.js';
import { observationProgressPrinter } from '../report/progress.js';
import type { FleetSnapshot } from '../snapshot/snapshot.js';
import { appendAll } from '../util/append-all.js';
import type { Loaded } from './load-stage.js';
import type { RunContext } from './run-context.js';

/** What the observe stage hands on. */
export interface Observed {
  /** The snapshot to compile from: fresh observations, the locked state of stale clusters, updated stale-since times. */
  readonly snapshot: FleetSnapshot;
  /** The clusters that could not be observed. */
  readonly stale: readonly StaleCluster[];
  /** Observation findings (gateway problems, skipped objects, suspect targets) as coded data. */
  readonly diagnostics: readonly Diagnostic[];
  /** Targets held back because they suddenly list no exports: stale, like those the removal guard holds back. */
  readonly suspects: readonly SuspectTarget[];
}

/** Observes the fleet of `loaded`; never throws for a cluster that cannot be observed. */
export async function observeStage(run: RunContext, loaded: Loaded): Promise<Observed> {
  const { options, log, now } = run;
  const { spec, previous } = loaded;
  log.info(`observing ${spec.clusters.length} cluster${spec.clusters.length === 1 ? '' : 's'}...`);
  const observation = await observeFleet(spec, previous, {
    ...(options.kubeconfig !== undefined ? { defaultKubeconfig: options.kubeconfig } : {}),
    ...(options.requestTimeoutMs !== undefined ? { requestTimeoutMs: options.requestTimeoutMs } : {}),
    ...(options.pageSize !== undefined ? { pageSize: options.pageSize } : {}),
    ...(options.perServiceSliceLists !== undefined ? { perServiceSliceLists: options.perServiceSliceLists } : {}),
    onProgress: observationProgressPrinter(log, now),
  });
  const stale = observation.stale;
  let snapshot: FleetSnapshot = { ...observation.snapshot, staleSince: nextStaleSince(previous.staleSince, observationOutcomes(spec, stale), fleetRoles(spec), now()) };
  const diagnostics = [...observation.diagnostics];
  let suspects: readonly SuspectTarget[] = [];
  if (!options.confirmRemovals) {
    const held = holdBackSuspectTargets(previous, snapshot);
    suspects = held.suspects;
    // Held back is stale: its clock starts (or keeps its earlier start), never silent.
    snapshot = { ...held.snapshot, staleSince: withHeldBackTargets(held.snapshot.staleSince, previous.staleSince, suspects.map((s) => s.cluster), now()) };
    appendAll(diagnostics, suspects.map(suspectDiagnostic));
  }
  if (stale.length > 0) printStaleClusters(log, stale, loaded.paths.lockFile);
  return { snapshot, stale, diagnostics, suspects };
}
