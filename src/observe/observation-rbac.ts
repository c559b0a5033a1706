/**
 * Exactly what observation asks of each cluster's API, as RBAC rules. Observation never uses a
 * verb or resource outside this list, so an identity bound to these rules is sufficient; and it
 * uses every one of them (test/integration/reader-rbac.test.ts drops each verb in turn).
 */
import { TRUST_ROOTS_CONFIGMAP } from '../contract/linkerd.js';
import { MCS_API_GROUP, MCS_SERVICE_EXPORTS_RESOURCE, MCS_SERVICE_IMPORTS_RESOURCE } from '../contract/kubernetes.js';
import { FLUX_KUSTOMIZATIONS_RESOURCE, FLUX_KUSTOMIZE_API_GROUP } from '../contract/flux.js';
import { compareStrings } from '../util/order.js';

/** One RBAC policy rule, in the shape of `rbac.authorization.k8s.io/v1` PolicyRule. */
export interface ObservationRule {
  /** API groups; `''` is the core group. */
  readonly apiGroups: readonly string[];
  /** Resources within those groups. */
  readonly resources: readonly string[];
  /** Verbs allowed. */
  readonly verbs: readonly string[];
  /** When present, the rule holds only for objects of these names. */
  readonly resourceNames?: readonly string[];
}

/**
 * What observing any linked cluster, in either role, needs for the shared trust-anchor check: `get`
 * of the ConfigMap holding Linkerd's trust roots, by name only (no other ConfigMap is readable, and
 * its content is public certificates). A ClusterRole rule, not a Role in the control plane
 * namespace: a Role in `dist/` would make every sync fail where that namespace does not exist yet.
 */
export const TRUST_ROOTS_RULE: ObservationRule = { apiGroups: [''], resources: ['configmaps'], resourceNames: [TRUST_ROOTS_CONFIGMAP], verbs: ['get'] };

/**
 * What observing a cluster as a link *target* needs: list its exported Services, get the gateway
 * Service and explicitly exported Services by name, and list the EndpointSlices of exported Services:
 * whether any endpoint is ready (Linkerd's empty mirrors; not needed when every link sets
 * `followServiceReadiness: false`) and, for headless Services, their pods' hostnames (per-pod
 * mirrors). Only `list` in one namespace with a `kubernetes.io/service-name` selector: no watch, no
 * get. The gateway probe is plain HTTP to the gateway and needs no API permission.
 */
export const TARGET_OBSERVATION_RULES: readonly ObservationRule[] = [
  TRUST_ROOTS_RULE,
  { apiGroups: [''], resources: ['services'], verbs: ['get', 'list'] },
  { apiGroups: ['discovery.k8s.io'], resources: ['endpointslices'], verbs: ['list'] },
];

/**
 * What observing the target of an MCS link (one that reads ServiceExports, see `serviceExports`)
 * adds: `list` of the MCS API's ServiceExport objects in all namespaces. The Services they name are
 * read with the target rules' `get services`. No other cluster's role holds this rule.
 */
export const SERVICE_EXPORTS_RULE: ObservationRule = { apiGroups: [MCS_API_GROUP], resources: [MCS_SERVICE_EXPORTS_RESOURCE], verbs: ['list'] };

/**
 * What observing a cluster as a link *source* needs: its namespaces and Services (collisions, pinned
 * IPs, its own federated members), and the EndpointSlices of its own StatefulSets that join `-global`.
 */
export const SOURCE_OBSERVATION_RULES: readonly ObservationRule[] = [
  TRUST_ROOTS_RULE,
  { apiGroups: [''], resources: ['namespaces'], verbs: ['list'] },
  { apiGroups: [''], resources: ['services'], verbs: ['list'] },
  // The EndpointSlices of the source's own StatefulSets that join `-global` (their pod hostnames).
  { apiGroups: ['discovery.k8s.io'], resources: ['endpointslices'], verbs: ['list'] },
];

/**
 * What observing the source of an MCS link adds: `list` of the MCS API's ServiceImport objects in
 * all namespaces, so that one another controller owns is never taken over (and later pruned).
 */
export const SERVICE_IMPORTS_RULE: ObservationRule = { apiGroups: [MCS_API_GROUP], resources: [MCS_SERVICE_IMPORTS_RESOURCE], verbs: ['list'] };

/**
 * What `mirrorc status` adds in a source of a fleet delivered by Flux (`GitOpsDelivery` with
 * `flux`): `list` of Flux's Kustomizations, to compare the revision each applied with the lock's
 * commit (src/status/flux-status.ts). Synth never uses it. A ClusterRole rule: a Role in Flux's
 * namespace would make every sync fail where that namespace does not exist yet.
 */
export const FLUX_STATUS_RULE: ObservationRule = { apiGroups: [FLUX_KUSTOMIZE_API_GROUP], resources: [FLUX_KUSTOMIZATIONS_RESOURCE], verbs: ['list'] };

/**
 * The union, for a cluster that is both a source and a target; `mcsTarget`: a target of a link that
 * reads ServiceExports; `mcsSource`: a source of an MCS link; `fluxSource`: a source of a fleet delivered by Flux
 * ({@link FLUX_STATUS_RULE}, for `mirrorc status`).
 */
export function observationRules(roles: { readonly source: boolean; readonly target: boolean; readonly mcsTarget?: boolean; readonly mcsSource?: boolean; readonly fluxSource?: boolean }): ObservationRule[] {
  const byKey = new Map<string, ObservationRule>();
  const rules = [
    ...(roles.target ? TARGET_OBSERVATION_RULES : []),
    ...(roles.target && roles.mcsTarget === true ? [SERVICE_EXPORTS_RULE] : []),
    ...(roles.source ? SOURCE_OBSERVATION_RULES : []),
    ...(roles.source && roles.mcsSource === true ? [SERVICE_IMPORTS_RULE] : []),
    ...(roles.source && roles.fluxSource === true ? [FLUX_STATUS_RULE] : []),
  ];
  for (const rule of rules) {
    for (const group of rule.apiGroups) {
      for (const resource of rule.resources) {
        // A resource used in both roles gets the union of both roles' verbs, sorted.
        const verbs = new Set([...(byKey.get(`${group}/${resource}`)?.verbs ?? []), ...rule.verbs]);
        byKey.set(`${group}/${resource}`, { apiGroups: [group], resources: [resource], ...(rule.resourceNames ? { resourceNames: [...rule.resourceNames] } : {}), verbs: [...verbs].sort() });
      }
    }
  }
  return [...byKey.entries()].sort(([a], [b]) => compareStrings(a, b)).map(([, r]) => r);
}

