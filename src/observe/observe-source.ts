/**
 * Observes one cluster in its role as a link source: what compile must check mirrors against, its
 * own federated members, and its own StatefulSets that join `-global`.
 */
import { isIP } from 'node:net';
import { FEDERATED_NAME_SUFFIX, HEADLESS_MIRROR_SVC_NAME_LABEL, MIRRORED_RESOURCE_LABEL, REMOTE_CLUSTER_NAME_LABEL } from '../contract/linkerd.js';
import { ENDPOINT_SLICES_LABEL, GLOBAL_LABEL, GLOBAL_VALUE, KUBERNETES_SLICES_VALUE, MANAGED_LABEL, MANAGED_VALUE } from '../contract/mirrorc.js';
import { selectorMatches, selectorToQuery, type LabelSelector } from '../model/label-selector.js';
import { canonicalIp, parseIpRange, rangeContains } from '../util/ip-range.js';
import { dns1123LabelProblem } from '../util/k8s-names.js';
import { compareBy, sortedUnique } from '../util/order.js';
import type { ClusterClient } from './cluster-client.js';
import type { ForeignService, ObservedService, PinnedRangeService, SourceSnapshot } from '../snapshot/snapshot.js';
import { validForeignServices, validNamespaces, validPinnedRangeServices, validServices } from './observed-checks.js';
import { observePodEndpoints, serviceClusterIPs, serviceSelector, toObservedService } from './to-plain.js';

/** What a source's observation looks for besides namespaces. */
export interface SourceObservationProps {
  /** Names of the link targets: Services named `*-<target>` could collide with a mirror. */
  readonly targetNames: readonly string[];
  /** Suffixes of aggregated Services (`-global`, `-federated`) that could collide too. @default none */
  readonly aggregateSuffixes?: readonly string[];
  /** Selects the cluster's own federated members. */
  readonly localFederatedSelector: LabelSelector;
  /** The cluster's pinned blocks (`pinnedServiceIPRange`, then `additionalPinnedServiceIPRanges`): live Services holding one of their IPs are recorded. @default none */
  readonly pinnedServiceIPRanges?: readonly string[];
  /** Some MCS link mirrors into the cluster: its ServiceImports are listed, and those of another controller recorded. @default false */
  readonly mcsSource?: boolean;
  /** Receives one warning per object left out because the apiserver returned an invalid name or field. @default dropped */
  readonly onSkipped?: (warning: string) => void;
}

/**
 * What marks `svc` as a mirror Linkerd's service-mirror controller wrote (contract §2.2, §2.5): the
 * labels `mirrored-service=true` and `cluster-name=<target>`; with its ClusterIP (absent for a
 * headless one), which an adopted per-pod mirror must keep. Nothing for any other Service.
 */
function linkerdMirrorOf(svc: { metadata?: { name?: string; labels?: Record<string, string> }; spec?: { clusterIP?: string } }): { linkerdCluster?: string; clusterIP?: string; linkerdFederated?: true } {
  const labels = svc.metadata?.labels ?? {};
  const cluster = labels[REMOTE_CLUSTER_NAME_LABEL];
  // Linkerd's federated Service: mirrored-service without a cluster (getFederatedServiceLabels), named `<svc>-federated`.
  if (labels[MIRRORED_RESOURCE_LABEL] === 'true' && cluster === undefined && (svc.metadata?.name ?? '').endsWith(`-${FEDERATED_NAME_SUFFIX}`)) return { linkerdFederated: true };
  // A label value that is no cluster name cannot name a link target: the Service stays a plain foreign one.
  if (labels[MIRRORED_RESOURCE_LABEL] !== 'true' || cluster === undefined || dns1123LabelProblem(cluster, 'cluster name') !== undefined) return {};
  const ip = svc.spec?.clusterIP;
  return { linkerdCluster: cluster, ...(typeof ip === 'string' && isIP(ip) !== 0 ? { clusterIP: canonicalIp(ip) } : {}) };
}

/**
 * The target of one of our mirrors in Linkerd's endpoint form (`mirrorc.io/endpoint-slices=kubernetes`,
 * its target in `mirror.linkerd.io/cluster-name`); undefined for any other Service or a value that is no cluster name.
 */
function kubernetesSlicedTarget(labels: Record<string, string>): string | undefined {
  const target = labels[REMOTE_CLUSTER_NAME_LABEL];
  if (labels[ENDPOINT_SLICES_LABEL] !== KUBERNETES_SLICES_VALUE || target === undefined) return undefined;
  return dns1123LabelProblem(target, 'cluster name') === undefined ? target : undefined;
}

/**
 * Lists the source's namespaces and Services once. From that one list (both views of the same
 * moment, no extra request) it keeps: the Services not written by this compiler whose names a mirror
 * could take; the source's own federated members; the live Services inside the pinned IP range; and
 * the source's own headless services that opt into `-global` (plus their pods' hostnames).
 * @throws ObservationError when the cluster cannot be listed
 */
export async function observeSource(client: ClusterClient, props: SourceObservationProps): Promise<SourceSnapshot> {
  const skipped: string[] = [];
  const cluster = client.cluster;
  const namespaceObjects = await client.listNamespaces();
  const namespaces = validNamespaces(cluster, sortedUnique(namespaceObjects.map((n) => n.metadata?.name ?? '').filter((n) => n !== '')), skipped);
  // Namespaces this compiler created (createMissingNamespaces): they stay in the output while a mirror needs them.
  const managedNamespaces = sortedUnique(
    namespaceObjects.filter((n) => n.metadata?.labels?.[MANAGED_LABEL] === MANAGED_VALUE).map((n) => n.metadata?.name ?? '').filter((n) => n !== ''),
  ).filter((n) => namespaces.includes(n));
  const suffixes = [...props.targetNames, ...(props.aggregateSuffixes ?? [])].map((t) => `-${t}`);
  const ranges = (props.pinnedServiceIPRanges ?? []).map(parseIpRange);
  const range = ranges.length > 0 ? ranges : undefined;
  const foreign: ForeignService[] = [];
  const members: ObservedService[] = [];
  const inRange: PinnedRangeService[] = [];
  const globalMembers: ObservedService[] = [];
  const kubernetesSliced = new Set<string>();
  for (const svc of await client.listServices()) {
    const name = svc.metadata?.name ?? '';
    const namespace = svc.metadata?.namespace ?? '';
    const ours = svc.metadata?.labels?.[MANAGED_LABEL] === MANAGED_VALUE;
    if (range) {
      // Our per-pod mirrors count wherever their IP lies: one adopted from Linkerd's controller keeps the IP the source gave it, outside the range too.
      const ourPerPod = ours && svc.metadata?.labels?.[HEADLESS_MIRROR_SVC_NAME_LABEL] !== undefined;
      for (const ip of serviceClusterIPs(svc)) {
        if (ourPerPod || range.some((r) => rangeContains(r, ip))) inRange.push({ namespace, name, ip: canonicalIp(ip), managed: ours });
      }
    }
    // Our own objects are never members, and never foreign: a custom selector on a copied label could match them.
    if (ours) {
      const target = kubernetesSlicedTarget(svc.metadata?.labels ?? {});
      if (target !== undefined) kubernetesSliced.add(target);
      continue;
    }
    if (selectorMatches(props.localFederatedSelector, svc.metadata?.labels ?? {})) members.push(toObservedService(svc));
    if (suffixes.some((s) => name.endsWith(s))) foreign.push({ namespace, name, ...linkerdMirrorOf(svc) });
    if (svc.metadata?.labels?.[GLOBAL_LABEL] === GLOBAL_VALUE && svc.spec?.clusterIP === 'None' && validServices(cluster, [toObservedService(svc)], []).length === 1) {
      const pods = await observePodEndpoints(client, namespace, name);
      globalMembers.push({ ...toObservedService(svc), ...pods, selector: serviceSelector(svc) });
    }
  }
  const byNamespaceAndName = compareBy<{ namespace: string; name: string }>((s) => s.namespace, (s) => s.name);
  // ServiceImports of another controller: server-side apply would take them over and a later prune delete them.
  const imports = props.mcsSource ? await client.listServiceImports() : undefined;
  const foreignImports = (imports ?? []).filter((i) => i.labels[MANAGED_LABEL] !== MANAGED_VALUE).map(({ namespace, name }) => ({ namespace, name }));
  const validForeignImports = validForeignServices(cluster, foreignImports, skipped).sort(byNamespaceAndName);
  // The boundary check: every object kept passes the lock's schema (see observed-checks.ts).
  const validGlobal = validServices(cluster, globalMembers, skipped);
  const snapshot: SourceSnapshot = {
    namespaces,
    foreignServices: validForeignServices(cluster, foreign, skipped).sort(byNamespaceAndName),
    federatedSelector: selectorToQuery(props.localFederatedSelector),
    federatedMembers: validServices(cluster, members, skipped).sort(byNamespaceAndName),
    ...(range ? { pinnedRangeServices: validPinnedRangeServices(cluster, inRange, skipped).sort(compareBy((s) => s.ip, (s) => s.namespace, (s) => s.name)) } : {}),
    ...(validGlobal.length > 0 ? { globalMembers: validGlobal.sort(byNamespaceAndName) } : {}),
    ...(managedNamespaces.length > 0 ? { managedNamespaces } : {}),
    ...(kubernetesSliced.size > 0 ? { kubernetesSlicedTargets: sortedUnique([...kubernetesSliced]) } : {}),
    ...(validForeignImports.length > 0 ? { foreignServiceImports: validForeignImports } : {}),
  };
  for (const warning of sortedUnique(skipped)) props.onSkipped?.(warning);
  return snapshot;
}
