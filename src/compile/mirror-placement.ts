/**
 * Renamed and relocated exports: an `ExplicitExport`'s `mirrorAs` or a link's `namespaceMap` moves a
 * gateway-mode mirror to another name and/or source namespace. Only where it lives changes:
 * `remote-svc-fq-name` and every data-plane field still name the original service. The final name
 * keeps the `-<target>` suffix, so observation still sees any Service it could take.
 */
import type { LinkSpec } from '../model/fleet-spec.js';
import type { ObservedService } from '../snapshot/snapshot.js';
import type { Diagnostics } from './diagnostics.js';
import type { MirrorPlacement } from './mirror-unit.js';
import { mirrorServiceName } from './names.js';
import type { PlanMemo } from './plan-memo.js';
import { Diag } from '../diagnostics/diagnostic-codes.js';

/** A selected service of a link's target, in the mode selection decided. */
export interface PlacementQuery {
  readonly link: LinkSpec;
  readonly service: ObservedService;
  readonly mode: string;
}

/**
 * Where `service` of `link`'s target is mirrored, when renamed or relocated; undefined for the default place.
 * @param memo finds the explicit export by index
 */
export function mirrorPlacement(query: PlacementQuery, diagnostics: Diagnostics, memo: PlanMemo): MirrorPlacement | undefined {
  const { link, service, mode } = query;
  const exp = memo.explicitExport(link.target, service.namespace, service.name);
  // An own property only: a namespace called "constructor" must not find Object.prototype's.
  const mapped = link.namespaceMap !== undefined && Object.hasOwn(link.namespaceMap, service.namespace) ? link.namespaceMap[service.namespace] : undefined;
  const namespace = exp?.mirrorAs?.namespace ?? mapped;
  const name = exp?.mirrorAs?.name;
  if (namespace === undefined && name === undefined) return undefined;
  const origin = `${link.target}/${service.namespace}/${service.name}`;
  if (link.mcs === true) {
    // A ServiceImport is found by the exported service's own name and namespace (clusterset.local).
    diagnostics.warn(Diag.RENAME_NOT_APPLIED, `${link.source}: ${origin} is imported through the MCS API, whose ServiceImport keeps the exported service's name and namespace, so its rename or relocation (${exp?.mirrorAs ? `mirrorAs of ${exp.path}` : `namespaceMap of link ${link.path}`}) is not applied`, { cluster: link.source, target: link.target, namespace: service.namespace, service: service.name });
    return undefined;
  }
  if (mode !== 'gateway') {
    // Flat and per-pod mirrors are resolved by the original name in the same namespace (Linkerd's remote-service label, pod names).
    diagnostics.warn(Diag.RENAME_NOT_APPLIED, `${link.source}: ${origin} is mirrored in ${mode} mode, which Linkerd resolves by the service's own name and namespace, so its rename or relocation (${exp?.mirrorAs ? `mirrorAs of ${exp.path}` : `namespaceMap of link ${link.path}`}) is not applied`, { cluster: link.source, target: link.target, namespace: service.namespace, service: service.name });
    return undefined;
  }
  const placement = { namespace: namespace ?? service.namespace, name: mirrorServiceName(name ?? service.name, link.target) };
  diagnostics.note(`renamed export: ${link.source} ← ${origin} as ${placement.namespace}/${placement.name} (remote-svc-fq-name still ${service.name}.${service.namespace})`);
  return placement;
}
