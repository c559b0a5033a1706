/** Which target services each link mirrors, and in which mode. */
import type { ClusterSpec, FleetSpec, LinkSpec } from '../model/fleet-spec.js';
import { selectorMatches, selectorToQuery } from '../model/label-selector.js';
import type { FleetSnapshot } from '../observe/snapshot.js';
import type { Diagnostics } from './diagnostics.js';
import type { MirrorRequest } from './mirror-unit.js';
import { namespaceSelected } from './namespace-filter.js';

/** A mirror request with its mode decided. */
export interface ModedRequest extends MirrorRequest {
  readonly mode: 'gateway';
}

/** The mirror requests of one link, in the target snapshot's (sorted) order. */
export function selectMirrors(link: LinkSpec, fleet: FleetSpec, snapshot: FleetSnapshot, diagnostics: Diagnostics): ModedRequest[] {
  const target = fleet.clusters.find((c) => c.name === link.target) as ClusterSpec;
  const targetSnapshot = snapshot.targets[link.target];
  if (!targetSnapshot) {
    diagnostics.warn(`${link.source}: target "${link.target}" has never been observed successfully, so nothing from it is mirrored yet`);
    return [];
  }
  const query = selectorToQuery(link.selector);
  if (!targetSnapshot.selectors.includes(query)) {
    diagnostics.warn(`${link.source}: the lock holds no observation of "${link.target}" with selector "${query}" (the link changed since); run synth with cluster access to observe it`);
  }
  for (const missing of targetSnapshot.missingExplicitExports) {
    diagnostics.warn(`${link.source}: explicit export ${link.target}/${missing} does not exist in "${link.target}"; nothing mirrored for it`);
  }
  const requests: ModedRequest[] = [];
  for (const service of targetSnapshot.services) {
    if (!namespaceSelected(link.namespaces, service.namespace)) continue;
    if (service.explicit || selectorMatches(link.selector, service.labels)) {
      requests.push({ link, target, targetSnapshot, service, mode: 'gateway' });
    }
  }
  if (requests.some((r) => r.mode === 'gateway') && !targetSnapshot.gateway) {
    diagnostics.warn(`${link.source}: no gateway address is known for "${link.target}", so its gateway-mode mirrors are not compiled`);
  }
  return requests;
}
