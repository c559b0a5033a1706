/** Which target services each link mirrors, and in which mode. */
import type { ClusterSpec, FleetSpec, LinkSpec } from '../model/fleet-spec.js';
import { linkSelectorQueries, selectorMatches } from '../model/label-selector.js';
import type { FleetSnapshot, ObservedService, TargetSnapshot } from '../snapshot/snapshot.js';
import type { Diagnostics } from './diagnostics.js';
import type { MirrorRequest } from './mirror-unit.js';
import { PlanMemo } from './plan-memo.js';
import { readsServiceExports } from '../model/service-exports.js';
import { mirrorPlacement } from './mirror-placement.js';
import { Diag } from '../diagnostics/diagnostic-codes.js';
import { linkSlicesBy } from './mirror-slices.js';

/** The mirroring modes selection decides between (contract §2.2, §2.3, §2.5). */
export type MirrorMode = 'gateway' | 'remote-discovery' | 'headless';

/** A mirror request with its mode decided. */
export interface ModedRequest extends MirrorRequest {
  readonly mode: MirrorMode;
}

/** What the links of a planning run are selected from. */
export interface SelectionInput {
  readonly fleet: FleetSpec;
  readonly snapshot: FleetSnapshot;
  /** Whether the current output holds a mirror of an origin (generic-gateway ports). @default none does */
  readonly established?: ((origin: string) => boolean) | undefined;
  /** The planning run's memo. @default one for this call alone */
  readonly memo?: PlanMemo;
}

/**
 * The mirror requests of one link, in the target snapshot's (sorted) order. A service matching the
 * link's `remoteDiscoverySelector` is mirrored in flat mode, even when it also matches `selector` or
 * is explicitly exported (Linkerd: remote discovery wins); otherwise `selector`, an explicit export
 * or, for an MCS link, a ServiceExport object makes it a gateway-mode mirror. `memo` shares work
 * between the links of one planning run (see plan-memo.ts).
 */
export function selectMirrors(link: LinkSpec, input: SelectionInput, diagnostics: Diagnostics): ModedRequest[] {
  const { snapshot, established } = input;
  const memo = input.memo ?? new PlanMemo(input.fleet.clusters, input.fleet.explicitExports);
  const target = memo.cluster(link.target) as ClusterSpec;
  const targetSnapshot = snapshot.targets[link.target];
  if (!targetSnapshot) {
    diagnostics.warn(Diag.TARGET_NEVER_OBSERVED, `${link.source}: target "${link.target}" has never been observed successfully, so nothing from it is mirrored yet`, { cluster: link.source, target: link.target });
    return [];
  }
  for (const query of linkSelectorQueries(link)) {
    if (!targetSnapshot.selectors.includes(query)) {
      diagnostics.warn(Diag.SELECTOR_NOT_OBSERVED, `${link.source}: the lock holds no observation of "${link.target}" with selector "${query}" (the link, or what mirrorc observes, changed since); run synth with cluster access to observe it`, { cluster: link.source, target: link.target });
    }
  }
  const fromServiceExports = readsServiceExports(link);
  if (fromServiceExports && !targetSnapshot.serviceExportsListed) {
    diagnostics.warn(Diag.SERVICE_EXPORTS_NOT_OBSERVED, `${link.source}: the lock holds no observation of "${link.target}"'s ServiceExport objects (MCS link ${link.path} exports the Services they name); run synth with cluster access to observe them`, { cluster: link.source, target: link.target });
  }
  for (const missing of targetSnapshot.missingExplicitExports) {
    diagnostics.warn(Diag.EXPLICIT_EXPORT_MISSING, `${link.source}: explicit export ${link.target}/${missing} does not exist in "${link.target}"; nothing mirrored for it`, { cluster: link.source, target: link.target, namespace: missing.split('/')[0], service: missing.split('/')[1] });
  }
  const source = memo.cluster(link.source) as ClusterSpec;
  const slices = linkSlicesBy(link, snapshot.sources[link.source]);
  const requests: ModedRequest[] = [];
  for (const { service, flat } of selectedServices(link, targetSnapshot, fromServiceExports, memo)) {
    if (flat) {
      mirrorPlacement({ link, service, mode: 'remote-discovery' }, diagnostics, memo); // warns: not applicable
      requests.push({ link, target, targetSnapshot, service, mode: 'remote-discovery' });
    } else {
      const mode = gatewayModeOf(service, { link, source, target }, diagnostics);
      const placement = mirrorPlacement({ link, service, mode }, diagnostics, memo);
      requests.push({ link, target, targetSnapshot, service, mode, ...(placement ? { placement } : {}), ...(established ? { established } : {}), slicesBy: slices.by });
    }
  }
  if (slices.sticky && requests.some((r) => r.mode !== 'remote-discovery')) {
    diagnostics.warn(Diag.LINKERD_FORM_KEPT, `${link.source}: the mirrors of "${link.target}" stay in Linkerd's endpoint form (Kubernetes mirrors their Endpoints into the EndpointSlices Linkerd's destination reads) although link ${link.path} no longer sets adoptLinkerdMirrors: leaving that form would delete those slices while mirrorc's own list the same endpoints, which empties the mirrors in Linkerd's destination for up to ten minutes; set adoptLinkerdMirrors: true again to silence this`, { cluster: link.source, target: link.target });
  }
  if (requests.some((r) => r.mode !== 'remote-discovery') && !targetSnapshot.gateway) {
    diagnostics.warn(Diag.NO_GATEWAY_ADDRESS, `${link.source}: no gateway address is known for "${link.target}", so its gateway-mode mirrors are not compiled`, { cluster: link.source, target: link.target });
  }
  return requests;
}

/** A target service a link selects: in flat mode (its `remoteDiscoverySelector`) or else in a gateway mode. */
interface SelectedService {
  readonly service: ObservedService;
  readonly flat: boolean;
}

/**
 * The services of `targetSnapshot` that `link` selects, in the snapshot's order. They depend on the
 * target's observation and on the link's namespace filter, selectors and ServiceExport reading only,
 * so the links of every source that agree on these share one list (plan-memo.ts).
 */
function selectedServices(link: LinkSpec, targetSnapshot: TargetSnapshot, fromServiceExports: boolean, memo: PlanMemo): readonly SelectedService[] {
  const key = `select\n${JSON.stringify([link.namespaces, link.remoteDiscoverySelector, link.selector, fromServiceExports])}`;
  return memo.shared(targetSnapshot, key, () => {
    const selected: SelectedService[] = [];
    for (const service of targetSnapshot.services) {
      if (!memo.namespaceSelected(link.namespaces, service.namespace)) continue;
      if (selectorMatches(link.remoteDiscoverySelector, service.labels)) selected.push({ service, flat: true });
      else if (service.explicit || selectorMatches(link.selector, service.labels) || (fromServiceExports && service.serviceExport)) selected.push({ service, flat: false });
    }
    return selected;
  });
}

/** A link with the specs of its source and target clusters. */
interface LinkClusters {
  readonly link: LinkSpec;
  readonly source: ClusterSpec;
  readonly target: ClusterSpec;
}

/**
 * A headless service whose endpoints have hostnames (a StatefulSet) is mirrored per pod, as in
 * Linkerd; without hostnames (a Deployment, or a StatefulSet whose serviceName differs) it becomes an
 * ordinary gateway mirror. Per-pod mirrors need the source to declare where their IPs are pinned.
 */
function gatewayModeOf(service: ObservedService, clusters: LinkClusters, diagnostics: Diagnostics): MirrorMode {
  const { link, source, target } = clusters;
  if (!service.headless || (service.hostnames ?? []).length === 0) return 'gateway';
  if (target.gateway.kind === 'generic') {
    // A generic gateway reserves a port per service, not per pod: the service is mirrored as a whole.
    diagnostics.warn(Diag.HEADLESS_NOT_PER_POD, `${link.source}: ${link.target}/${service.namespace}/${service.name} is a headless service with pod hostnames, but "${link.target}" has a generic gateway (a port per service, not per pod), so it is mirrored as one gateway Service instead of per pod`, { cluster: link.source, target: link.target, namespace: service.namespace, service: service.name });
    return 'gateway';
  }
  if (source.pinnedServiceIPRange === undefined) {
    diagnostics.warn(
      Diag.HEADLESS_NOT_PER_POD,
      `${link.source}: ${link.target}/${service.namespace}/${service.name} is a headless service with pod hostnames, but cluster "${link.source}" declares no pinnedServiceIPRange, ` +
        `so it is mirrored as one gateway Service instead of per pod; declare a block of "${link.source}"'s Service CIDR (e.g. pinnedServiceIPRange: '10.96.0.0/24') to mirror its pods`,
      { cluster: link.source, target: link.target, namespace: service.namespace, service: service.name },
    );
    return 'gateway';
  }
  return 'headless';
}
