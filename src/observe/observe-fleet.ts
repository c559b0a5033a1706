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
import type { ClusterClient, ClusterClientOptions } from './cluster-client.js';
import { ObservationError } from './observation-error.js';
import type { ObservationProgress } from './observation-progress.js';
import { checkedGateway, gatewayRejections, linkingSourceRanges } from './gateway-checks.js';
import { observeSource } from './observe-source.js';
import { observeTarget } from './observe-target.js';
import { observeTrustRoots } from './observe-trust-roots.js';
import { SNAPSHOT_FORMAT, type FleetSnapshot, type ObservedGateway, type SourceSnapshot, type TargetSnapshot } from '../snapshot/snapshot.js';
import { Diag, type DiagnosticDefinition } from '../diagnostics/diagnostic-codes.js';
import { diagnostic, messages, type Diagnostic } from '../diagnostics/diagnostic.js';
import { pinnedRangesOf } from '../model/pinned-ranges.js';

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
  /** Non-fatal findings, such as a gateway without an address: the `message` of each of {@link diagnostics}. */
  readonly warnings: readonly string[];
  /** The same findings as coded data. */
  readonly diagnostics: readonly Diagnostic[];
}

/** Observes the fleet's clusters and merges the result into `previous`. */
export async function observeFleet(fleet: FleetSpec, previous: FleetSnapshot, options: ObserveOptions = {}): Promise<FleetObservation> {
  const clusters = new Map(fleet.clusters.map((c) => [c.name, c]));
  const targetNames = [...new Set(fleet.links.map((l) => l.target))].sort(compareStrings);
  const sourceNames = [...new Set(fleet.links.map((l) => l.source))].sort(compareStrings);
  const selected = (name: string): boolean => options.only === undefined || options.only.has(name);
  // Loaded here, not at start-up: client-node takes about half a second to import, and offline runs never need it.
  const { ClusterClient } = await import('./cluster-client.js');

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
  const warnings: Diagnostic[] = [];
  const warn = (code: DiagnosticDefinition, cluster: string, texts: readonly string[]): void => {
    for (const text of texts) warnings.push(diagnostic(code, text, { cluster }));
  };
  const skippedBySource: { cluster: string; text: string }[] = [];
  // Per cluster, once even when it is observed in both roles.
  const trustProblems = new Map<string, readonly string[]>();

  const outcomes = await mapLimit(tasks, options.concurrency ?? 4, async (task) => {
    const cluster = clusters.get(task.name)!;
    const progress = { cluster: task.name, role: task.role };
    options.onProgress?.({ kind: 'started', ...progress });
    try {
      // A fresh budget per cluster and role: its deadline starts now and bounds everything below.
      const client = clientFor(cluster).withBudget(cluster.observationBudget);
      if (task.role === 'target') {
        const links = fleet.links.filter((l) => l.target === task.name);
        const exports = fleet.explicitExports.filter((e) => e.cluster === task.name);
        const ranges = linkingSourceRanges(fleet, task.name);
        const last = comparableLastGateway(previous.targets[task.name]?.gateway, cluster);
        const { observed, trust } = await client.withinDeadline((async () => ({
          observed: await observeTarget(client, cluster.gateway, links, exports, (gateway) => gatewayRejections(gateway, last, ranges)),
          trust: await observeTrustRoots(client, cluster.controlPlaneNamespace),
        }))());
        trustProblems.set(task.name, trust.problems);
        const target = { ...observed, snapshot: { ...observed.snapshot, ...(trust.roots ? { trustRoots: trust.roots } : {}) } };
        options.onProgress?.({ kind: 'finished', ...progress, services: target.snapshot.services.length });
        return { task, target };
      }
      const linkedTargets = fleet.links.filter((l) => l.source === task.name).map((l) => l.target);
      const props = {
        targetNames: linkedTargets,
        aggregateSuffixes: [GLOBAL_SERVICE_SUFFIX, FEDERATED_NAME_SUFFIX],
        localFederatedSelector: cluster.localFederatedSelector,
        mcsSource: fleet.links.some((l) => l.source === task.name && l.mcs === true),
        ...(cluster.pinnedServiceIPRange !== undefined ? { pinnedServiceIPRanges: pinnedRangesOf(cluster) } : {}),
        onSkipped: (warning: string) => skippedBySource.push({ cluster: task.name, text: warning }),
      };
      const { observedSource, trust } = await client.withinDeadline((async () => ({
        observedSource: await observeSource(client, props),
        trust: await observeTrustRoots(client, cluster.controlPlaneNamespace),
      }))());
      trustProblems.set(task.name, trust.problems);
      const source = { ...observedSource, ...(trust.roots ? { trustRoots: trust.roots } : {}) };
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
      warn(Diag.GATEWAY_PROBLEM, name, observed.gatewayProblems.map((problem) => `cluster "${name}": ${problem}`));
      warn(Diag.OBJECT_INVALID, name, observed.skipped ?? []);
      warn(Diag.SERVICE_EXPORT_PROBLEM, name, observed.serviceExportProblems ?? []);
      const gatewayWarnings: string[] = [];
      snapshot = checkedGateway(name, snapshot, comparableLastGateway(lastGateway, clusters.get(name)), linkingSourceRanges(fleet, name), gatewayWarnings);
      // checkedGateway words a rejection "REJECTED its gateway"; any other finding of it is a change taken.
      for (const text of gatewayWarnings) warn(text.includes(': REJECTED its gateway') ? Diag.GATEWAY_REJECTED : Diag.GATEWAY_CHANGED, name, [text]);
      if (!snapshot.gateway && lastGateway) {
        // A rejected gateway is not probed either: the last known gateway keeps its last probe verdict.
        const lastProbe = previous.targets[name]?.gatewayProbe;
        snapshot = { ...snapshot, gateway: lastGateway, ...(lastProbe && !snapshot.gatewayProbe ? { gatewayProbe: lastProbe } : {}) };
        warn(Diag.GATEWAY_KEPT, name, [`cluster "${name}": keeping the last known gateway ${lastGateway.addresses.join(',')}:${lastGateway.port} for its gateway-mode mirrors`]);
      }
      targets[name] = snapshot;
    } else if ('source' in outcome && outcome.source) {
      sources[name] = outcome.source;
    }
  }
  for (const s of skippedBySource.sort((a, b) => compareStrings(a.text, b.text))) warn(Diag.OBJECT_INVALID, s.cluster, [s.text]);
  for (const name of [...trustProblems.keys()].sort(compareStrings)) warn(Diag.TRUST_ROOTS_UNREAD, name, trustProblems.get(name)!);
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
    warnings: messages(warnings),
    diagnostics: warnings,
  };
}


/** The last known gateway to check a new one against: a gateway switched to kind 'generic' has no identity by design, which is no downgrade to refuse. */
function comparableLastGateway(last: ObservedGateway | undefined, cluster: ClusterSpec | undefined): ObservedGateway | undefined {
  if (!last || cluster?.gateway.kind !== 'generic') return last;
  const { identity: _identity, ...withoutIdentity } = last;
  return withoutIdentity;
}
