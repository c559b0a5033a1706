/**
 * A link target's status: what the lock says of its last observation (stale since when, the gateway
 * probe's verdict then, how many services it exported), and whether the reader identity reaches its
 * API server now (`get` of its gateway Service, which the target role already holds). The lock does
 * not say whether a stale target was unreachable or held back by the removal guard; one that answers
 * now was either held back or has recovered since the last synth, and status says so, not which.
 */
import type { ClusterSpec } from '../model/fleet-spec.js';
import type { ClusterClient } from '../observe/cluster-client.js';
import type { FleetSnapshot } from '../snapshot/snapshot.js';
import { formatDuration } from '../util/duration.js';
import type { StatusProblem, TargetStatus } from './status-report.js';

/** A target's status and its problems. */
export interface TargetOutcome {
  readonly status: TargetStatus;
  readonly problems: readonly StatusProblem[];
}

/** Whether the client's API server answers now; the error message when it does not. */
export async function reachNow(client: ClusterClient | Error, cluster: ClusterSpec): Promise<string | null> {
  if (client instanceof Error) return client.message;
  try {
    await client.readService(cluster.gateway.namespace, cluster.gateway.name);
    return null;
  } catch (e) {
    return (e as Error).message;
  }
}

/** The status of target `cluster` at `now`, given the lock's `snapshot` and its reachability now (`error`: null when it answered). */
export function targetStatus(cluster: string, snapshot: FleetSnapshot, error: string | null, now: Date): TargetOutcome {
  const observed = snapshot.targets[cluster];
  const since = snapshot.staleSince?.targets?.[cluster] ?? null;
  const seconds = since !== null ? Math.max(0, Math.floor((now.getTime() - Date.parse(since)) / 1000)) : null;
  const problems: StatusProblem[] = [];
  if (since !== null) {
    const now = error === null ? 'it answers now: the last synth held it back (removal guard), or it recovered since; the next synth tells which' : 'it does not answer now either';
    problems.push({ class: 'stale', cluster, message: `target "${cluster}" is stale in the lock since ${since} (${formatDuration(seconds! * 1000)}): its mirrors are its last observation; ${now}` });
  }
  if (error !== null) problems.push({ class: 'not-visible', cluster, message: `target "${cluster}" cannot be read with the reader identity now: ${error}` });
  return {
    status: {
      cluster,
      observed: observed !== undefined,
      staleSince: since,
      staleSeconds: seconds,
      reachableNow: error === null,
      error,
      gatewayAlive: observed?.gatewayProbe?.alive ?? null,
      exportedServices: observed?.services.length ?? 0,
    },
    problems,
  };
}
