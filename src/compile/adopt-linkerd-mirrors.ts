/**
 * Adoption of the mirrors Linkerd's service-mirror controller wrote (link `adoptLinkerdMirrors`,
 * runbook in docs/migrate-from-linkerd-controller.md). A Service of the source that mirrorc did not
 * write is normally a foreign name that no mirror may take; one that Linkerd's controller wrote for
 * the unit's own target is taken over in place instead, as long as mirrorc's object can be applied
 * over it: a Service's `clusterIP` never changes, so a headless Linkerd mirror (`clusterIP: None`)
 * can only become mirrorc's headless mirror and a ClusterIP one only a ClusterIP one.
 */
import type { ForeignService } from '../snapshot/snapshot.js';
import type { MirrorUnit } from './mirror-unit.js';

/** What to do with a unit's Service name held by a Service mirrorc did not write. */
export type ForeignNameVerdict =
  | { readonly adopt: true }
  | {
      readonly adopt: false;
      readonly message: string;
      /** The name is held by a mirror Linkerd's controller wrote, which adoption would take over: the message says how. */
      readonly adoptable?: true;
    };

/**
 * Whether `unit` may take over `foreign`, which holds the name of one of its Services (`name`),
 * and why not. `source` names the source cluster in messages; `linkPath` the unit's link, for the hint.
 */
export function foreignNameVerdict(source: string, unit: MirrorUnit, name: string, foreign: ForeignService): ForeignNameVerdict {
  const key = `${foreign.namespace}/${foreign.name}`;
  if (foreign.linkerdFederated === true) return federatedVerdict(source, unit, key);
  const writtenByLinkerd = foreign.linkerdCluster !== undefined;
  if (!writtenByLinkerd || unit.adoptsLinkerdMirrorsOf !== foreign.linkerdCluster) {
    const hint = writtenByLinkerd
      ? `; it is a mirror written by Linkerd's service-mirror controller for target "${foreign.linkerdCluster}": to take it over in place, set adoptLinkerdMirrors: true on the link from "${foreign.linkerdCluster}" (see docs/migrate-from-linkerd-controller.md)`
      : '';
    return {
      adopt: false,
      message: `${source}: the mirror of ${unit.origin} would be Service ${key}, which already exists in "${source}" and was not written by mirrorc${hint}; rename or remove that Service, or exclude namespace "${unit.namespace}" from the link`,
      ...(writtenByLinkerd ? { adoptable: true as const } : {}),
    };
  }
  // The root Service of a headless unit is its first name; every other Service it writes has a ClusterIP.
  const oursHeadless = unit.mode === 'headless' && unit.serviceNames[0] === name;
  const theirsHeadless = foreign.clusterIP === undefined;
  if (oursHeadless && !theirsHeadless) {
    return {
      adopt: false,
      message: `${source}: Linkerd's controller mirrored ${unit.origin} as Service ${key} with ClusterIP ${foreign.clusterIP} (its headless support was off), but mirrorc mirrors it per pod as a headless Service, and a Service's clusterIP cannot change in place; it cannot be adopted as it is`,
    };
  }
  if (!oursHeadless && theirsHeadless) {
    return {
      adopt: false,
      message:
        `${source}: Linkerd's controller mirrored ${unit.origin} as the headless Service ${key} (clusterIP None), but mirrorc would write a Service with a ClusterIP there, and a Service's clusterIP cannot change in place; ` +
        `declare pinnedServiceIPRange on cluster "${source}" so that mirrorc mirrors it per pod as Linkerd does`,
    };
  }
  return { adopt: true };
}

/**
 * A federated Service Linkerd's controller wrote (`<svc>-federated`): mirrorc's federated Service of
 * that name takes it over in place when a link of one of its members adopts Linkerd's mirrors (it
 * has no endpoints and no clusterIP is written, so nothing the data plane reads changes); any other
 * unit of that name is refused, with the hint.
 */
function federatedVerdict(source: string, unit: MirrorUnit, key: string): ForeignNameVerdict {
  if (unit.mode === 'federated' && unit.adoptsLinkerdMirrorsOf !== undefined) return { adopt: true };
  const hint = unit.mode === 'federated'
    ? `; it is a federated Service written by Linkerd's service-mirror controller: to take it over in place, set adoptLinkerdMirrors: true on a link of one of its members (see docs/migrate-from-linkerd-controller.md)`
    : '';
  return {
    adopt: false,
    message: `${source}: the mirror of ${unit.origin} would be Service ${key}, which already exists in "${source}" and was not written by mirrorc${hint}; rename or remove that Service, or exclude namespace "${unit.namespace}" from the link`,
    ...(unit.mode === 'federated' ? { adoptable: true as const } : {}),
  };
}

/**
 * The ClusterIPs that adopted per-pod mirrors keep, `namespace/name` → IP: those the source already
 * gave the Services Linkerd's controller wrote (read from the source, not from any range).
 */
export function adoptedClusterIPs(units: readonly MirrorUnit[], foreign: readonly ForeignService[], adopted: ReadonlySet<string>): Record<string, string> {
  const byKey = new Map(foreign.map((f) => [`${f.namespace}/${f.name}`, f]));
  const ips: Record<string, string> = {};
  for (const unit of units) {
    for (const name of unit.pinnedServiceNames ?? []) {
      const key = `${unit.namespace}/${name}`;
      const ip = byKey.get(key)?.clusterIP;
      if (adopted.has(key) && ip !== undefined) ips[key] = ip;
    }
  }
  return ips;
}
