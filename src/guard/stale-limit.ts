/**
 * The staleness limit (`--max-stale`, or the fleet's `StalenessLimit`): a cluster that has not been
 * observed (or a target that has been held back by the removal guard) for longer than the limit fails the job (exit 9) after the run has written its
 * stale-but-safe output, so a frozen mirror set cannot stay green forever.
 */
import type { StaleSince } from '../snapshot/snapshot.js';
import { formatDuration } from '../util/duration.js';

/** A staleness limit in force for one run. */
export interface StaleLimit {
  /** As the user wrote it (`24h`), for messages. */
  readonly text: string;
  readonly ms: number;
  /** Where it comes from, for messages: `--max-stale` or the fleet's StalenessLimit. */
  readonly origin: string;
}

/** A cluster stale for longer than the limit. */
export interface OverStaleLimit {
  readonly cluster: string;
  readonly role: 'target' | 'source';
  /** Its `staleSince` from the lock. */
  readonly since: string;
  readonly ageMs: number;
}

/** The clusters whose stale time (from the lock after this run) is older than `limit`, targets first, by name. */
export function clustersOverStaleLimit(staleSince: StaleSince | undefined, limit: StaleLimit, now: Date): OverStaleLimit[] {
  const over: OverStaleLimit[] = [];
  for (const role of ['target', 'source'] as const) {
    const record = (role === 'target' ? staleSince?.targets : staleSince?.sources) ?? {};
    for (const [cluster, since] of Object.entries(record).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
      const ageMs = now.getTime() - Date.parse(since);
      if (ageMs > limit.ms) over.push({ cluster, role, since, ageMs });
    }
  }
  return over;
}

/**
 * The error of a run that ends with exit 9.
 * @param heldBack targets the removal guard held back this run: stale although they answered @default none
 */
export function staleLimitMessage(over: readonly OverStaleLimit[], limit: StaleLimit, wrote: string, heldBack: ReadonlySet<string> = new Set()): string {
  const rows = over.map((o) => o.role === 'target' && heldBack.has(o.cluster)
    ? `  - ${o.role} ${o.cluster}: stale since ${o.since} (${formatDuration(o.ageMs)}), held back by the removal guard this run`
    : `  - ${o.role} ${o.cluster}: not observed since ${o.since} (${formatDuration(o.ageMs)})`);
  return `${over.length} cluster${over.length === 1 ? ' has' : 's have'} been stale for longer than ${limit.origin} ${limit.text}:\n${rows.join('\n')}\n` +
    `${wrote}; fix the cluster's access or API server (see the warnings above), or raise the limit`;
}
