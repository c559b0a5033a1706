/**
 * A link target's status: what the lock says of its last observation (stale since when, the gateway
 * probe's verdict then, how many services it exported), and whether the reader identity reaches its
 * API server now (`get` of its gateway Service, which the target role already holds). The lock does
 * not say whether a stale target was unreachable or held back by the removal guard; one that answers
 * now was either held back or has recovered since the last synth, and status says so, not which.
 */
import type * as k8s from '@kubernetes/client-node';
import { GATEWAY_PROBE_FAILURE_THRESHOLD } from '../contract/linkerd.js';
import type { ClusterSpec } from '../model/fleet-spec.js';
import type { ClusterClient } from '../observe/cluster-client.js';
import type { FleetSnapshot } from '../snapshot/snapshot.js';
import { formatDuration } from '../util/duration.js';
import { probeGatewayNow } from './gateway-status.js';
import type { GatewayNow, StatusProblem, TargetStatus } from './status-report.js';

/** A target's status and its problems. */
export interface TargetOutcome {
  /** Its status but for the gateway probed now ({@link gatewayNow}). */
  readonly status: Omit<TargetStatus, 'gatewayNow'>;
  readonly problems: readonly StatusProblem[];
}

/** Whether the client's API server answers now (the error message when it does not), and the gateway Service it holds. */
export async function reachNow(client: ClusterClient | Error, cluster: ClusterSpec): Promise<{ readonly error: string | null; readonly gateway?: k8s.V1Service }> {
  if (client instanceof Error) return { error: client.message };
  try {
    const gateway = await client.readService(cluster.gateway.namespace, cluster.gateway.name);
    return { error: null, ...(gateway ? { gateway } : {}) };
  } catch (e) {
    return { error: (e as Error).message };
  }
}

/** The gateway probed now, and its problem: down, or not probed although the fleet asks for a probe. */
export async function gatewayNow(cluster: ClusterSpec, snapshot: FleetSnapshot, reached: { readonly gateway?: k8s.V1Service }, client: ClusterClient | Error): Promise<{ readonly now: GatewayNow | null; readonly problems: StatusProblem[] }> {
  const outcome = client instanceof Error
    ? (cluster.gateway.probe ? { notProbed: client.message } : null)
    : await probeGatewayNow(cluster.gateway, snapshot.targets[cluster.name]?.gateway, reached.gateway, client);
  if (outcome === null) return { now: null, problems: [] };
  const name = cluster.name;
  if ('notProbed' in outcome) return { now: { alive: null, latencyMs: null, why: outcome.notProbed }, problems: [{ class: 'not-visible', cluster: name, message: `the gateway of "${name}" could not be probed from here: ${outcome.notProbed}` }] };
  const why = outcome.alive ? null : outcome.failures.join('; ');
  return {
    now: { alive: outcome.alive, latencyMs: outcome.latencyMs, why },
    problems: outcome.alive ? [] : [{ class: 'gateway-down', cluster: name, message: `the gateway of "${name}" failed its probe from here ${GATEWAY_PROBE_FAILURE_THRESHOLD} times: ${why}` }],
  };
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
