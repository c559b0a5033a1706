/**
 * When each cluster was first found unobservable, kept in the lock. The lock must not change on
 * every run (it is committed), so the time is recorded only on the transition to stale, kept
 * unchanged while the cluster stays stale, and dropped once the cluster is observed again.
 */
import type { FleetSpec } from '../model/fleet-spec.js';
import { sortedRecord } from '../util/order.js';
import type { StaleCluster } from './observe-fleet.js';
import type { StaleSince } from '../snapshot/snapshot.js';

export type { StaleSince };


/** The outcome of observing one cluster in one role this run. */
export interface ObservationOutcome {
  readonly cluster: string;
  readonly role: 'target' | 'source';
  /** Whether the cluster answered; false keeps (or starts) its stale time. */
  readonly observed: boolean;
}

/** The clusters of the fleet in each role; entries of clusters that left the fleet are dropped. */
export interface FleetRoles {
  readonly targets: ReadonlySet<string>;
  readonly sources: ReadonlySet<string>;
}

/** A UTC timestamp with second precision: stable to read and to diff. */
export function formatStaleTime(now: Date): string {
  return now.toISOString().replace(/\.\d{3}Z$/, 'Z');
}

/**
 * The stale times after this run: a failed cluster keeps its earlier time or gets `now`, an
 * observed one loses its entry, a cluster not attempted (offline, outside a shard) keeps its entry.
 * Returns undefined when nothing is stale, so a healthy fleet's lock carries no such field.
 */
export function nextStaleSince(previous: StaleSince | undefined, outcomes: readonly ObservationOutcome[], fleet: FleetRoles, now: Date): StaleSince | undefined {
  const targets: Record<string, string> = {};
  const sources: Record<string, string> = {};
  for (const [name, since] of Object.entries(previous?.targets ?? {})) if (fleet.targets.has(name)) targets[name] = since;
  for (const [name, since] of Object.entries(previous?.sources ?? {})) if (fleet.sources.has(name)) sources[name] = since;
  const stamp = formatStaleTime(now);
  for (const outcome of outcomes) {
    const record = outcome.role === 'target' ? targets : sources;
    if (outcome.observed) delete record[outcome.cluster];
    else record[outcome.cluster] ??= stamp;
  }
  const result: { targets?: Record<string, string>; sources?: Record<string, string> } = {};
  if (Object.keys(targets).length > 0) result.targets = sortedRecord(targets);
  if (Object.keys(sources).length > 0) result.sources = sortedRecord(sources);
  return result.targets || result.sources ? result : undefined;
}

/**
 * The stale times with the targets the removal guard held back this run (src/guard/hold-back-targets.ts)
 * stale as well: each keeps its time from the lock (held back or unreachable before) or gets `now`.
 * Their observation answered, so the observe stage dropped their entries; holding them back makes
 * their state in the lock the last one let through, which is stale in every sense that matters.
 */
export function withHeldBackTargets(current: StaleSince | undefined, previous: StaleSince | undefined, held: readonly string[], now: Date): StaleSince | undefined {
  if (held.length === 0) return current;
  const targets: Record<string, string> = { ...current?.targets };
  for (const name of held) targets[name] = previous?.targets?.[name] ?? formatStaleTime(now);
  return { ...current, targets: sortedRecord(targets) };
}

/** The fleet's target and source clusters. */
export function fleetRoles(fleet: FleetSpec): FleetRoles {
  return { targets: new Set(fleet.links.map((l) => l.target)), sources: new Set(fleet.links.map((l) => l.source)) };
}

/**
 * The outcomes of a run that observed every cluster of `fleet`, `stale` being those that failed.
 * Every failure starts the stale clock — unreachable, 401, 403, API errors, and a kubeconfig that
 * lacks the cluster's context (a wrong context: the job's credentials no longer match the fleet)
 * or cannot be read. Only a kubeconfig file that does not exist at all on this machine gives no
 * outcome: that says nothing about the cluster, only about where synth runs (a fresh clone, a
 * laptop), so its stale time is neither started nor cleared and the lock stays as it is.
 */
export function observationOutcomes(fleet: FleetSpec, stale: readonly StaleCluster[]): ObservationOutcome[] {
  const roles = fleetRoles(fleet);
  const outcome = (cluster: string, role: 'target' | 'source'): ObservationOutcome[] => {
    const failure = stale.find((s) => s.cluster === cluster && s.role === role);
    if (failure?.error.kubeconfigMissing) return [];
    return [{ cluster, role, observed: failure === undefined }];
  };
  return [...[...roles.targets].flatMap((c) => outcome(c, 'target')), ...[...roles.sources].flatMap((c) => outcome(c, 'source'))];
}
