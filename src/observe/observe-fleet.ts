/**
 * Observes every cluster once per role (a target linked from many sources is listed once), with
 * bounded concurrency, and merges the result with the previous snapshot: a cluster that cannot
 * be observed keeps its previous state (stale-but-safe) and is reported.
 */
import { FEDERATED_NAME_SUFFIX } from '../contract/linkerd.js';
import { GLOBAL_SERVICE_SUFFIX } from '../contract/mirrorc.js';
import type { ClusterSpec, FleetSpec } from '../model/fleet-spec.js';
import { compareStrings, sortedRecord } from '../util/order.js';
import { mapLimit } from '../util/map-limit.js';
import { ClusterClient, type ClusterClientOptions } from './cluster-client.js';
import { ObservationError } from './observation-error.js';
import type { ObservationProgress } from './observation-progress.js';
import { describeGateway, gatewayProblems, linkingSourceRanges, type DeclaredRange } from './gateway-checks.js';
import { observeSource } from './observe-source.js';
import { observeTarget } from './observe-target.js';
import { SNAPSHOT_FORMAT, type FleetSnapshot, type ObservedGateway, type SourceSnapshot, type TargetSnapshot } from './snapshot.js';

/** Tuning of {@link observeFleet}. */
export interface ObserveOptions extends ClusterClientOptions {
  /** Clusters observed at the same time. @default 4 */
  readonly concurrency?: number;
  /** Observe only these clusters (by name); the others keep their previous state. @default all */
  readonly only?: ReadonlySet<string>;
  /** Called when each cluster's observation starts and ends (progress display). @default none */
  readonly onProgress?: (event: ObservationProgress) => void;
}

/** A cluster role that could not be observed this run. */
export interface StaleCluster {
  readonly cluster: string;
  readonly role: 'target' | 'source';
  readonly error: ObservationError;
  /** Whether a previous observation exists (and is being kept). */
  readonly keptPrevious: boolean;
}

/** The merged snapshot and what went wrong. */
export interface FleetObservation {
  readonly snapshot: FleetSnapshot;
  readonly stale: readonly StaleCluster[];
  /** Non-fatal findings, such as a gateway without an address. */
  readonly warnings: readonly string[];
}

/** Observes the fleet's clusters and merges the result into `previous`. */
export async function observeFleet(fleet: FleetSpec, previous: FleetSnapshot, options: ObserveOptions = {}): Promise<FleetObservation> {
  const clusters = new Map(fleet.clusters.map((c) => [c.name, c]));
  const targetNames = [...new Set(fleet.links.map((l) => l.target))].sort(compareStrings);
  const sourceNames = [...new Set(fleet.links.map((l) => l.source))].sort(compareStrings);
  const selected = (name: string): boolean => options.only === undefined || options.only.has(name);

  const clients = new Map<string, ClusterClient | ObservationError>();
  const clientFor = (cluster: ClusterSpec): ClusterClient => {
    let client = clients.get(cluster.name);
    if (!client) {
      try {
        client = ClusterClient.fromAccess(cluster.name, cluster.access, options);
      } catch (e) {
        if (!(e instanceof ObservationError)) throw e;
        client = e;
      }
      clients.set(cluster.name, client);
    }
    if (client instanceof ObservationError) throw client;
    return client;
  };

  type Task = { role: 'target' | 'source'; name: string };
  const tasks: Task[] = [
    ...targetNames.filter(selected).map((name) => ({ role: 'target' as const, name })),
    ...sourceNames.filter(selected).map((name) => ({ role: 'source' as const, name })),
  ];
  const targets: Record<string, TargetSnapshot> = {};
  const sources: Record<string, SourceSnapshot> = {};
  const stale: StaleCluster[] = [];
  const warnings: string[] = [];
  const skippedBySource: string[] = [];

  const outcomes = await mapLimit(tasks, options.concurrency ?? 4, async (task) => {
    const cluster = clusters.get(task.name)!;
    const progress = { cluster: task.name, role: task.role };
    options.onProgress?.({ kind: 'started', ...progress });
    try {
      if (task.role === 'target') {
        const links = fleet.links.filter((l) => l.target === task.name);
        const exports = fleet.explicitExports.filter((e) => e.cluster === task.name);
        const target = await observeTarget(clientFor(cluster), cluster.gateway, links, exports);
        options.onProgress?.({ kind: 'finished', ...progress, services: target.snapshot.services.length });
        return { task, target };
      }
      const linkedTargets = fleet.links.filter((l) => l.source === task.name).map((l) => l.target);
      const props = {
        targetNames: linkedTargets,
        aggregateSuffixes: [GLOBAL_SERVICE_SUFFIX, FEDERATED_NAME_SUFFIX],
        localFederatedSelector: cluster.localFederatedSelector,
        ...(cluster.pinnedServiceIPRange !== undefined ? { pinnedServiceIPRange: cluster.pinnedServiceIPRange } : {}),
        onSkipped: (warning: string) => skippedBySource.push(warning),
      };
      const source = await observeSource(clientFor(cluster), props);
      options.onProgress?.({ kind: 'finished', ...progress, namespaces: source.namespaces.length });
      return { task, source };
    } catch (e) {
      if (e instanceof ObservationError) {
        options.onProgress?.({ kind: 'finished', ...progress, error: e });
        return { task, error: e };
      }
      throw e;
    }
  });

  for (const outcome of outcomes) {
    const { role, name } = outcome.task;
    if ('error' in outcome && outcome.error) {
      const prev = role === 'target' ? previous.targets[name] : previous.sources[name];
      stale.push({ cluster: name, role, error: outcome.error, keptPrevious: prev !== undefined });
      if (role === 'target' && previous.targets[name]) targets[name] = previous.targets[name]!;
      if (role === 'source' && previous.sources[name]) sources[name] = previous.sources[name]!;
    } else if ('target' in outcome && outcome.target) {
      const observed = outcome.target;
      let snapshot = observed.snapshot;
      const lastGateway = previous.targets[name]?.gateway;
      for (const problem of observed.gatewayProblems) warnings.push(`cluster "${name}": ${problem}`);
      warnings.push(...(observed.skipped ?? []));
      snapshot = checkedGateway(name, snapshot, lastGateway, linkingSourceRanges(fleet, name), warnings);
      if (!snapshot.gateway && lastGateway) {
        snapshot = { ...snapshot, gateway: lastGateway };
        warnings.push(`cluster "${name}": keeping the last known gateway ${lastGateway.addresses.join(',')}:${lastGateway.port} for its gateway-mode mirrors`);
      }
      targets[name] = snapshot;
    } else if ('source' in outcome && outcome.source) {
      sources[name] = outcome.source;
    }
  }
  warnings.push(...skippedBySource.sort(compareStrings));
  // Clusters not observed this run (sharding) keep their previous state untouched.
  for (const name of targetNames) if (!selected(name) && previous.targets[name]) targets[name] = previous.targets[name]!;
  for (const name of sourceNames) if (!selected(name) && previous.sources[name]) sources[name] = previous.sources[name]!;

  return {
    snapshot: {
      format: SNAPSHOT_FORMAT,
      targets: sortedRecord(targets),
      sources: sortedRecord(sources),
      // Compile's pinned IPs are carried over; compile replaces those of the sources it compiles.
      ...(previous.pinnedServiceIPs !== undefined ? { pinnedServiceIPs: previous.pinnedServiceIPs } : {}),
    },
    stale,
    warnings,
  };
}

/**
 * The target snapshot with an acceptable gateway: a gateway whose address, port or identity is
 * rejected is dropped (the caller then keeps the last known one), and so is one that lost the
 * identity the lock knew (a downgrade of transport security is never automatic). A changed port
 * or identity is taken, with a warning, so it shows in plan output.
 */
function checkedGateway(target: string, snapshot: TargetSnapshot, last: ObservedGateway | undefined, ranges: readonly DeclaredRange[], warnings: string[]): TargetSnapshot {
  const gateway = snapshot.gateway;
  if (!gateway) return snapshot;
  const { gateway: _dropped, ...withoutGateway } = snapshot;
  const keeping = last && gatewayProblems(last, ranges).length === 0
    ? `keeping the last known gateway ${describeGateway(last)}`
    : 'no earlier gateway is known, so its gateway-mode mirrors are not compiled';
  const problems = gatewayProblems(gateway, ranges);
  if (problems.length > 0) {
    warnings.push(
      `cluster "${target}": REJECTED its gateway ${describeGateway(gateway)}: ${problems.join('; ')}; ${keeping}; ` +
        'fix the gateway Service (its load-balancer address, "mc-gateway" port and identity annotation) or the gateway settings of the model',
    );
    return withoutGateway;
  }
  if (!last) return snapshot;
  if (last.identity !== undefined && gateway.identity === undefined) {
    warnings.push(
      `cluster "${target}": REJECTED its gateway ${describeGateway(gateway)}: it lost its identity ${last.identity}, so proxies could no longer verify it; ${keeping}; ` +
        'restore the gateway identity annotation, or set gateway.identity in the model',
    );
    return withoutGateway;
  }
  if (gateway.port !== last.port) warnings.push(`cluster "${target}": its gateway port changed from ${last.port} to ${gateway.port}; mirrors now send traffic to port ${gateway.port}`);
  if (gateway.identity !== last.identity && last.identity !== undefined) {
    warnings.push(`cluster "${target}": its gateway identity changed from ${last.identity} to ${gateway.identity}; proxies now require the new identity`);
  }
  return snapshot;
}
