/**
 * `mirrorc status`: loads the fleet, the lock and the committed `dist/`, then reads each cluster
 * with the reader identity, read-only (the identity synth observes with; nothing is written, no run
 * lock is taken): per source its mirrors in the lock against the live ones and their ready
 * endpoints, per target the lock's record of its last observation and whether it answers now, and
 * with Flux the Kustomizations that apply the cluster's folder. What it cannot read is a problem
 * of its own class, never a guess.
 */
import { committedPath, readCommittedTree } from '../emit/write-output.js';
import { ownVersion } from '../util/own-version.js';
import { buildFleet, importFleetDefinition, type FleetDefinition } from '../load/load-fleet.js';
import type { ClusterSpec, FleetSpec } from '../model/fleet-spec.js';
import { ClusterClient } from '../observe/cluster-client.js';
import { readLock } from '../observe/lock-file.js';
import { sortedUnique } from '../util/order.js';
import { redactServerAddresses } from '../util/redact.js';
import { fluxStatus, type LockCommit } from './flux-status.js';
import { problemExitCode, sortProblems } from './problem-exit-code.js';
import { sourceStatus } from './source-status.js';
import { STATUS_FORMAT, type StatusDocument, type StatusProblem } from './status-report.js';
import { gatewayNow, reachNow, targetStatus } from './target-status.js';
import { appendAll } from '../util/append-all.js';

/** Options of {@link runStatus}. */
export interface StatusOptions {
  /** Module whose default export defines the fleet. @default 'clusters/fleet.ts' */
  readonly fleetFile?: string;
  /** The fleet definition itself (tests, embedding). @default loaded from fleetFile */
  readonly define?: FleetDefinition;
  /** The lock file. @default `<fleetFile without .ts>.lock.json` */
  readonly lockFile?: string;
  /** The output directory. @default 'dist' */
  readonly outDir?: string;
  /** Kubeconfig for clusters whose access names none. @default `$KUBECONFIG`, else `~/.kube/config` */
  readonly kubeconfig?: string;
  /** Client-side timeout of one API request, in milliseconds. @default 10000 */
  readonly requestTimeoutMs?: number;
  /** The clock, for staleness. @default the system clock */
  readonly now?: () => Date;
  /** The commit that last changed the lock (Flux's side). @default asked of git in the lock's folder */
  readonly lockCommit?: LockCommit;
}

/** A client of `cluster` with its own budget, or the error that prevents one (a missing context). */
function clientOf(cluster: ClusterSpec, options: StatusOptions): ClusterClient | Error {
  try {
    return ClusterClient.fromAccess(cluster.name, cluster.access, {
      budget: cluster.observationBudget,
      attempts: 1,
      ...(options.kubeconfig !== undefined ? { defaultKubeconfig: options.kubeconfig } : {}),
      ...(options.requestTimeoutMs !== undefined ? { requestTimeoutMs: options.requestTimeoutMs } : {}),
    });
  } catch (e) {
    return e as Error;
  }
}

/** The status of the fleet; throws the loaders' errors (a fleet or lock file that cannot be read: invalid input). */
export async function runStatus(options: StatusOptions = {}): Promise<StatusDocument> {
  const fleetFile = options.fleetFile ?? 'clusters/fleet.ts';
  const outDir = options.outDir ?? 'dist';
  const lockFile = options.lockFile ?? fleetFile.replace(/\.[cm]?[tj]s$/, '') + '.lock.json';
  const define = options.define ?? (await importFleetDefinition(fleetFile));
  const spec: FleetSpec = buildFleet(define, fleetFile).fleet.toSpec();
  const { snapshot, units } = readLock(committedPath(outDir, lockFile));
  const tree = readCommittedTree(outDir);
  const now = (options.now ?? (() => new Date()))();
  const clusterOf = new Map(spec.clusters.map((c) => [c.name, c]));
  const problems: StatusProblem[] = [];
  const sources = [];
  for (const name of sortedUnique(spec.links.map((l) => l.source))) {
    const client = clientOf(clusterOf.get(name)!, options);
    const outcome = await sourceStatus({ cluster: name, client, snapshot, units: units ?? {}, tree, now });
    appendAll(problems, outcome.problems);
    const flux = spec.delivery?.flux;
    if (flux === undefined) {
      sources.push(outcome.status);
      continue;
    }
    const gitops = await fluxStatus({ cluster: name, client, flux, lockFile, ...(options.lockCommit !== undefined ? { lockCommit: options.lockCommit } : {}) });
    appendAll(problems, gitops.problems);
    sources.push({ ...outcome.status, gitops: gitops.status });
  }
  const targets = [];
  for (const name of sortedUnique(spec.links.map((l) => l.target))) {
    const cluster = clusterOf.get(name)!;
    const client = clientOf(cluster, options);
    const reached = await reachNow(client, cluster);
    const outcome = targetStatus(name, snapshot, reached.error, now);
    const gateway = await gatewayNow(cluster, snapshot, reached, client);
    appendAll(appendAll(problems, outcome.problems), gateway.problems);
    targets.push({ ...outcome.status, gatewayNow: gateway.now });
  }
  const sorted = sortProblems(problems).map((p) => ({ ...p, message: redactServerAddresses(p.message) }));
  return {
    statusFormat: STATUS_FORMAT,
    mirrorcVersion: ownVersion(),
    exitCode: problemExitCode(sorted),
    sources: sources.map((s) => ({ ...s, error: s.error !== null ? redactServerAddresses(s.error) : null })),
    targets: targets.map((t) => ({ ...t, error: t.error !== null ? redactServerAddresses(t.error) : null, gatewayNow: t.gatewayNow && { ...t.gatewayNow, why: t.gatewayNow.why !== null ? redactServerAddresses(t.gatewayNow.why) : null } })),
    problems: sorted,
  };
}
