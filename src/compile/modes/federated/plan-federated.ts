/**
 * Plans the federated Services of one source cluster (contract §2.4). Unlike the other modes,
 * which turn one target service into one mirror, a federated Service aggregates over every link of
 * the source: its members are the services of one namespace and name that match a link's
 * `federatedServiceSelector` in the link's target, plus the source's own service matching the
 * cluster's `localFederatedSelector`.
 */
import { LOCAL_DISCOVERY_ANNOTATION, MIRRORED_RESOURCE_LABEL, REMOTE_DISCOVERY_ANNOTATION } from '../../../contract/linkerd.js';
import { MANAGED_LABEL, MANAGED_VALUE } from '../../../contract/mirrorc.js';
import type { FleetSpec, LinkSpec } from '../../../model/fleet-spec.js';
import { selectorMatches, selectorToQuery } from '../../../model/label-selector.js';
import type { FleetSnapshot, ObservedService, TargetSnapshot } from '../../../snapshot/snapshot.js';
import { compareStrings } from '../../../util/order.js';
import { copiedAnnotations, copiedLabels, undeliverableMetadata } from '../../copy-metadata.js';
import type { Diagnostics } from '../../diagnostics.js';
import { undeliverableWarning } from '../../mirror-metadata.js';
import type { MirrorUnit } from '../../mirror-unit.js';
import { federatedServiceName } from '../../names.js';
import { PlanMemo } from '../../plan-memo.js';
import { federatedConflicts } from './federated-conflicts.js';
import { byPrecedence, memberId, type FederatedMember } from './federated-member.js';
import { federatedServiceObjects } from './federated-service.js';
import { Diag } from '../../../diagnostics/diagnostic-codes.js';
import { isSystemNamespace } from '../../system-namespaces.js';

/** The local member is copied without exclusions: it belongs to no link (Linkerd's local mirror has none either). */
const NO_EXCLUSIONS = { excludedLabels: [], excludedAnnotations: [] } as const;

/** What the federated Services of one source need from the rest of compile. */
export interface FederatedPlan {
  readonly units: MirrorUnit[];
  /** Namespaces to create because a member's link sets `createMissingNamespaces`. */
  readonly namespaces: string[];
  /**
   * Per link path: the federated Services (`namespace/name`) with a member of that link's target.
   * The destination resolves those members with the target's credentials Secret (contract §4.1).
   */
  readonly credentialNeeds: ReadonlyMap<string, readonly string[]>;
}

/** What the federated Services of a source are planned from. */
export interface FederatedInput {
  readonly fleet: FleetSpec;
  readonly snapshot: FleetSnapshot;
  /** Shares each target's candidate members between the links of every source (plan-memo.ts). @default none shared */
  readonly memo?: PlanMemo;
}

/** The federated Services of `source`, with warnings for members left out and for conflicts. */
export function planFederatedServices(source: string, input: FederatedInput, diagnostics: Diagnostics): FederatedPlan {
  const { fleet, snapshot } = input;
  const memo = input.memo ?? new PlanMemo(fleet.clusters);
  const groups = collectMembers(source, { fleet, snapshot, memo }, diagnostics);
  const sourceSnapshot = snapshot.sources[source];
  const units: MirrorUnit[] = [];
  const namespaces = new Set<string>();
  const credentialNeeds = new Map<string, string[]>();

  for (const key of [...groups.keys()].sort(compareStrings)) {
    const [namespace, serviceName] = key.split('/') as [string, string];
    const name = federatedServiceName(serviceName);
    const where = `federated Service ${namespace}/${name}`;
    const eligible = groups.get(key)!.sort(byPrecedence).filter((m) => {
      const id = `${m.cluster}/${namespace}/${serviceName}`;
      if (m.service.headless) {
        diagnostics.warn(Diag.FEDERATED_MEMBER_LEFT_OUT, `${source}: ${id} is headless (clusterIP: None), and a headless Service cannot join a federated Service (Linkerd refuses it too), so it is left out of ${where}; give it a cluster IP or remove its federated label`, { cluster: source, target: m.cluster, namespace, service: serviceName });
        return false;
      }
      if (m.service.ports.length === 0) {
        diagnostics.warn(Diag.FEDERATED_MEMBER_LEFT_OUT, `${source}: ${id} has no ports, so it cannot join ${where} (a Service needs at least one port); left out`, { cluster: source, target: m.cluster, namespace, service: serviceName });
        return false;
      }
      return true;
    });
    const members = systemNamespaceMembers(source, memo, { namespace, name, members: eligible }, diagnostics);
    const winner = members[0];
    if (!winner) continue;
    const remote = members.filter((m) => m.link !== undefined);
    if (sourceSnapshot && !sourceSnapshot.namespaces.includes(namespace)) {
      if (!remote.some((m) => m.link!.createMissingNamespaces)) {
        diagnostics.warn(Diag.NAMESPACE_MISSING, `${source}: namespace "${namespace}" does not exist, so ${where} (${members.map(memberId).join(', ')}) is not compiled; create the namespace, or set createMissingNamespaces on a link of its members`, { cluster: source, namespace, service: name });
        continue;
      }
      namespaces.add(namespace);
    }

    const conflicts = federatedConflicts(members);
    if (conflicts.length > 0) {
      // A warning, not an error: Linkerd and the MCS API keep serving with the first member and
      // flag the conflict; failing the build would block every other mirror of the fleet.
      diagnostics.warn(
        Diag.FEDERATED_CONFLICT,
        `${source}: the members of ${where} conflict; it takes its ports, labels and annotations from ${memberId(winner)} ` +
          `(precedence: the source's own member, then the targets by cluster name) and lists every member: ${conflicts.join('; ')}. ` +
          `Make the members agree (same port names, numbers, protocols and Service type), or remove the federated label from the one that differs`,
        { cluster: source, namespace, service: name },
      );
    }

    const local = members.find((m) => m.link === undefined);
    for (const u of undeliverableMetadata(winner.service, winner.link ?? NO_EXCLUSIONS)) diagnostics.warn(Diag.METADATA_NOT_DELIVERED, undeliverableWarning(source, `${winner.cluster}/${namespace}/${serviceName}`, winner.cluster, u), { cluster: source, target: winner.cluster, namespace, service: serviceName });
    const annotations: Record<string, string> = { ...copiedAnnotations(winner.service.annotations, winner.link ?? NO_EXCLUSIONS) };
    // Members in precedence order, so the list never depends on the API's list order (Linkerd uses join order).
    if (remote.length > 0) annotations[REMOTE_DISCOVERY_ANNOTATION] = remote.map(memberId).join(',');
    if (local) annotations[LOCAL_DISCOVERY_ANNOTATION] = local.service.name;
    // No cluster-name label: a federated Service belongs to no single target (contract §2.4).
    const labels = { ...copiedLabels(winner.service.labels, winner.link ?? NO_EXCLUSIONS), [MIRRORED_RESOURCE_LABEL]: 'true', [MANAGED_LABEL]: MANAGED_VALUE };
    const ports = winner.service.ports;

    for (const m of remote) {
      const needs = credentialNeeds.get(m.link!.path) ?? [];
      needs.push(`${namespace}/${name}`);
      credentialNeeds.set(m.link!.path, needs);
    }
    units.push({
      source,
      namespace,
      origin: `${namespace}/${serviceName} (members ${members.map(memberId).join(', ')})`,
      mode: 'federated',
      // Linkerd's federated Service of this name is taken over when a member's link adopts Linkerd's mirrors.
      adoptsLinkerdMirrorsOf: remote.find((m) => m.link!.adoptLinkerdMirrors === true)?.cluster,
      serviceNames: [name],
      objects: () => federatedServiceObjects({ namespace, name, labels, annotations, ports }),
    });
  }
  return { units, namespaces: [...namespaces].sort(compareStrings), credentialNeeds };
}

/** The eligible members of the federated Service `namespace/name`. */
interface FederatedGroup {
  readonly namespace: string;
  readonly name: string;
  readonly members: readonly FederatedMember[];
}

/**
 * The members that pass the system-namespace rule every mode follows (system-namespaces.ts): a
 * target's member in a system namespace of its target or of the source joins only when its link sets
 * `mirrorSystemNamespaces`; the source's own member in one of the source's system namespaces joins
 * only a federated Service that such an opted-in member brings. Each member left out is named in a
 * warning (MRC3008).
 */
function systemNamespaceMembers(source: string, memo: PlanMemo, group: FederatedGroup, diagnostics: Diagnostics): FederatedMember[] {
  const { namespace, name, members } = group;
  const sourceCluster = memo.cluster(source);
  const sourceSystem = sourceCluster !== undefined && isSystemNamespace(sourceCluster, namespace);
  const kept: FederatedMember[] = [];
  const skip = (m: FederatedMember, why: string, what: string): void => {
    diagnostics.warn(Diag.SYSTEM_NAMESPACE_SKIPPED, `${source}: ${why}, so ${m.cluster}/${namespace}/${m.service.name} is not mirrored; ${what}`, { cluster: source, target: m.cluster, namespace, service: m.service.name });
  };
  for (const m of members) {
    if (m.link === undefined || m.link.mirrorSystemNamespaces) {
      kept.push(m);
      continue;
    }
    const target = memo.cluster(m.cluster);
    const why = target !== undefined && isSystemNamespace(target, namespace)
      ? `"${namespace}" is a system namespace of "${m.cluster}"`
      : sourceSystem ? `its federated Service ${namespace}/${name} would go to "${namespace}", a system namespace of "${source}"` : undefined;
    if (why) skip(m, why, `set mirrorSystemNamespaces: true on link ${m.link.path} to mirror system namespaces`);
    else kept.push(m);
  }
  if (!sourceSystem || kept.some((m) => m.link !== undefined)) return kept;
  for (const m of kept) {
    skip(m, `its federated Service ${namespace}/${name} would go to "${namespace}", a system namespace of "${source}"`, 'it joins one there only with a member of a link that sets mirrorSystemNamespaces: true; or remove its federated label');
  }
  return [];
}

/**
 * The services of `targetSnapshot` that `link` takes as federated members, in the snapshot's order:
 * they depend on the target's observation and the link's namespace filter and federated selector
 * only, so links that agree on these share one list.
 */
export function federatedCandidates(link: LinkSpec, targetSnapshot: TargetSnapshot, memo: PlanMemo): readonly ObservedService[] {
  return memo.shared(targetSnapshot, `federated\n${JSON.stringify([link.namespaces, link.federatedServiceSelector])}`, () =>
    targetSnapshot.services.filter((service) => memo.namespaceSelected(link.namespaces, service.namespace) && selectorMatches(link.federatedServiceSelector, service.labels)),
  );
}

/** Every candidate member of `source`'s federated Services, grouped by `namespace/name`, unordered. */
function collectMembers(source: string, input: Required<FederatedInput>, diagnostics: Diagnostics): Map<string, FederatedMember[]> {
  const { fleet, snapshot, memo } = input;
  const groups = new Map<string, FederatedMember[]>();
  const add = (member: FederatedMember): void => {
    const key = `${member.service.namespace}/${member.service.name}`;
    const group = groups.get(key);
    if (group) group.push(member);
    else groups.set(key, [member]);
  };

  const sourceCluster = memo.cluster(source)!;
  const sourceSnapshot = snapshot.sources[source];
  const localQuery = selectorToQuery(sourceCluster.localFederatedSelector);
  for (const service of sourceSnapshot?.federatedMembers ?? []) {
    if (selectorMatches(sourceCluster.localFederatedSelector, service.labels)) add({ cluster: source, service });
  }

  // selectMirrors already warns about targets that were never observed or lack a selector in the lock.
  for (const link of fleet.links.filter((l) => l.source === source)) {
    const targetSnapshot = snapshot.targets[link.target];
    if (!targetSnapshot) continue;
    for (const service of federatedCandidates(link, targetSnapshot, memo)) add({ cluster: link.target, link, service });
  }

  if (sourceSnapshot && sourceSnapshot.federatedSelector !== localQuery && groups.size > 0) {
    diagnostics.warn(
      Diag.FEDERATED_LOCAL_NOT_OBSERVED,
      `${source}: the lock holds no observation of "${source}"'s own federated members with selector "${localQuery}" (it predates federated mode, or localFederatedSelector changed since), ` +
        `so its federated Services may lack their local member; run synth with cluster access to observe it`,
      { cluster: source },
    );
  }
  return groups;
}
