/**
 * Compile: a pure function of (fleet, snapshot) → one {@link SourceChart} per source cluster.
 * No clock, no randomness, no network. Every name is checked before anything is rendered; any
 * error throws {@link CompileError} so that nothing is written.
 */
import type { Construct } from 'constructs';
import type { ClusterSpec, FleetSpec } from '../model/fleet-spec.js';
import type { FleetSnapshot } from '../observe/snapshot.js';
import { compareBy, compareStrings, sortedRecord, sortedUnique } from '../util/order.js';
import { CompileError, Diagnostics } from './diagnostics.js';
import type { MirrorUnit } from './mirror-unit.js';
import { planGatewayMirror } from './modes/gateway/plan-gateway.js';
import { planGlobalServices } from './modes/global/plan-global.js';
import { planHeadlessMirror, type HeadlessUnit } from './modes/headless/plan-headless.js';
import { allocatePinnedIPs } from './pinned-ips/allocate-pinned-ips.js';
import { credentialsRequirement, undeclaredCredentialsWarning, type SecretRequirement } from './modes/remote-discovery/credentials-requirement.js';
import { planFederatedServices } from './modes/federated/plan-federated.js';
import { planRemoteDiscoveryMirror } from './modes/remote-discovery/plan-remote-discovery.js';
import { MAX_SERVICE_NAME_LENGTH } from './names.js';
import { selectMirrors, type ModedRequest } from './select-mirrors.js';
import { SourceChart } from './source-chart.js';

/** What compile produced. */
export interface CompileResult {
  /** One chart per source cluster, by cluster name order. */
  readonly charts: readonly SourceChart[];
  readonly warnings: readonly string[];
  /**
   * Secrets that must exist in source clusters but that mirrorc never writes: one per link with
   * flat-mode (remote-discovery) mirrors or federated members, sorted by cluster and target.
   */
  readonly requirements: readonly SecretRequirement[];
  /**
   * The pinned ClusterIPs to remember in the lock: those of the compiled sources, as allocated now,
   * and the previous ones of every other source, untouched. Sorted by source, then `namespace/name`.
   */
  readonly pinnedServiceIPs: Readonly<Record<string, Readonly<Record<string, string>>>>;
}

/** Options of {@link compileFleet}. */
export interface CompileOptions {
  /** Compile only these source clusters. @default all */
  readonly sources?: ReadonlySet<string>;
}

/**
 * Compiles the mirrors of every source cluster into charts under `scope`.
 * @throws CompileError listing every error; nothing is rendered then
 */
export function compileFleet(scope: Construct, fleet: FleetSpec, snapshot: FleetSnapshot, options: CompileOptions = {}): CompileResult {
  const diagnostics = new Diagnostics();
  const sources = sortedUnique(fleet.links.map((l) => l.source)).filter((s) => !options.sources || options.sources.has(s));
  const plans = sources.map((source) => planSource(source, fleet, snapshot, diagnostics));
  if (diagnostics.errors.length > 0) throw new CompileError(diagnostics.errors);
  const charts = plans.map((plan) => new SourceChart(scope, plan.source, plan));
  const requirements = plans.flatMap((plan) => plan.requirements);
  const pinned: Record<string, Readonly<Record<string, string>>> = { ...(snapshot.pinnedServiceIPs ?? {}) };
  for (const plan of plans) {
    if (Object.keys(plan.pinnedIPs).length > 0) pinned[plan.source] = plan.pinnedIPs;
    else delete pinned[plan.source];
  }
  return { charts, warnings: diagnostics.warnings, requirements, pinnedServiceIPs: sortedRecord(pinned) };
}

interface SourcePlan {
  readonly source: string;
  readonly namespaces: string[];
  readonly units: MirrorUnit[];
  readonly requirements: SecretRequirement[];
  /** `namespace/name` → pinned ClusterIP of this source's per-pod Services. */
  readonly pinnedIPs: Record<string, string>;
}

function planSource(source: string, fleet: FleetSpec, snapshot: FleetSnapshot, diagnostics: Diagnostics): SourcePlan {
  const sourceSnapshot = snapshot.sources[source];
  if (!sourceSnapshot) {
    diagnostics.warn(`${source}: this source cluster has never been observed, so its namespaces and existing Services are unknown; namespace and collision checks are skipped`);
  }
  const namespaces = new Set<string>();
  const units: MirrorUnit[] = [];
  const requirements: SecretRequirement[] = [];
  const flatNeeds = new Map<string, string[]>();
  for (const link of fleet.links.filter((l) => l.source === source)) {
    const flat: MirrorUnit[] = [];
    for (const request of selectMirrors(link, fleet, snapshot, diagnostics)) {
      const ns = request.service.namespace;
      if (sourceSnapshot && !sourceSnapshot.namespaces.includes(ns)) {
        if (!link.createMissingNamespaces) {
          diagnostics.warn(`${source}: namespace "${ns}" does not exist, so ${request.link.target}/${ns}/${request.service.name} is not mirrored; create the namespace, or set createMissingNamespaces on link ${link.path}`);
          continue;
        }
        namespaces.add(ns);
      }
      const unit = planMirror(request, diagnostics);
      if (!unit) continue;
      units.push(unit);
      if (request.mode === 'remote-discovery') flat.push(unit);
    }
    flatNeeds.set(link.path, flat.map((u) => `${u.namespace}/${u.serviceNames[0] ?? ''}`));
  }
  // Federated Services aggregate over all links of the source, so they are planned once, after them.
  const federated = planFederatedServices(source, fleet, snapshot, diagnostics);
  units.push(...federated.units);
  for (const ns of federated.namespaces) namespaces.add(ns);
  for (const link of fleet.links.filter((l) => l.source === source)) {
    // One Secret per link serves its flat mirrors and its federated members alike (contract §7.1).
    const neededBy = [...(flatNeeds.get(link.path) ?? []), ...(federated.credentialNeeds.get(link.path) ?? [])].sort(compareStrings);
    if (neededBy.length > 0) {
      const target = fleet.clusters.find((c) => c.name === link.target)!;
      const requirement = credentialsRequirement(link, target, neededBy);
      requirements.push(requirement);
      // Warn, not fail: the mirrors are valid objects, and the Secret may well exist already
      // (link-gen, another pipeline); the warning says exactly what to check and how to silence it.
      if (requirement.provided === undefined) diagnostics.warn(undeclaredCredentialsWarning(requirement));
    }
  }
  // StatefulSets: the `-global` Services aggregate the per-pod mirrors of every link of this source.
  const sourceCluster = fleet.clusters.find((c) => c.name === source)!;
  units.push(
    ...planGlobalServices(
      {
        source: sourceCluster,
        targetOrder: fleet.links.filter((l) => l.source === source).map((l) => l.target),
        headless: units.filter((u): u is HeadlessUnit => u.mode === 'headless' && (u as HeadlessUnit).joinsGlobal),
        localMembers: (sourceSnapshot?.globalMembers ?? []).filter((m) => !sourceSnapshot || sourceSnapshot.namespaces.includes(m.namespace)),
      },
      diagnostics,
    ),
  );
  checkNames(source, units, sourceSnapshot?.foreignServices ?? [], diagnostics);
  // A namespace this compiler created stays in the output while any mirror lives in it: dropping it
  // because it now exists would make GitOps prune it, and every object in it.
  const managed = new Set(sourceSnapshot?.managedNamespaces ?? []);
  for (const unit of units) if (managed.has(unit.namespace)) namespaces.add(unit.namespace);
  return {
    source,
    namespaces: [...namespaces].sort(compareStrings),
    units: units.sort(compareBy((u) => u.namespace, (u) => u.serviceNames[0] ?? '')),
    requirements: requirements.sort(compareBy((r) => r.target)),
    pinnedIPs: pinServiceIPs(sourceCluster, units, snapshot, diagnostics),
  };
}

/** Pins the ClusterIP of every per-pod Service of a source (see allocate-pinned-ips.ts for the rules). */
function pinServiceIPs(source: ClusterSpec, units: readonly MirrorUnit[], snapshot: FleetSnapshot, diagnostics: Diagnostics): Record<string, string> {
  const requests = units.flatMap((u) => (u.pinnedServiceNames ?? []).map((name) => ({ namespace: u.namespace, name, origin: u.origin })));
  if (requests.length === 0 || source.pinnedServiceIPRange === undefined) return {};
  return allocatePinnedIPs(
    {
      source: source.name,
      range: source.pinnedServiceIPRange,
      requests,
      previous: snapshot.pinnedServiceIPs?.[source.name] ?? {},
      live: snapshot.sources[source.name]?.pinnedRangeServices,
    },
    diagnostics,
  );
}

/** The unit of `request` in its mode. */
function planMirror(request: ModedRequest, diagnostics: Diagnostics): MirrorUnit | undefined {
  switch (request.mode) {
    case 'gateway':
      return planGatewayMirror(request, diagnostics);
    case 'remote-discovery':
      return planRemoteDiscoveryMirror(request, diagnostics);
    case 'headless':
      return planHeadlessMirror(request, diagnostics);
  }
}

/** Name length and collisions, the same checks for every mode. */
function checkNames(source: string, units: readonly MirrorUnit[], foreign: readonly { namespace: string; name: string }[], diagnostics: Diagnostics): void {
  const foreignKeys = new Set(foreign.map((s) => `${s.namespace}/${s.name}`));
  const owners = new Map<string, MirrorUnit>();
  for (const unit of units) {
    for (const name of unit.serviceNames) {
      const key = `${unit.namespace}/${name}`;
      if (name.length > MAX_SERVICE_NAME_LENGTH) {
        diagnostics.error(`${source}: the ${unit.mode}-mode mirror of ${unit.origin} would be named "${name}" (${name.length} characters), but Kubernetes allows at most ${MAX_SERVICE_NAME_LENGTH}; shorten the service or cluster name, or exclude the service from the link`);
      }
      if (foreignKeys.has(key)) {
        diagnostics.error(`${source}: the mirror of ${unit.origin} would be Service ${key}, which already exists in "${source}" and was not written by mirrorc; rename or remove that Service, or exclude namespace "${unit.namespace}" from the link`);
      }
      const other = owners.get(key);
      if (other) {
        diagnostics.error(`${source}: ${unit.origin} and ${other.origin} would both be mirrored as Service ${key}; rename one of the services or exclude one from its link`);
      } else {
        owners.set(key, unit);
      }
    }
  }
}
