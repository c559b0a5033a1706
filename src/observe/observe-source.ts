/** Observes one cluster in its role as a link source: what compile must check mirrors against, and its own federated members. */
import { FEDERATED_NAME_SUFFIX } from '../contract/linkerd.js';
import { MANAGED_LABEL, MANAGED_VALUE } from '../contract/mirrorc.js';
import { selectorMatches, selectorToQuery, type LabelSelector } from '../model/label-selector.js';
import { compareBy, sortedUnique } from '../util/order.js';
import type { ClusterClient } from './cluster-client.js';
import type { ForeignService, ObservedService, SourceSnapshot } from './snapshot.js';
import { toObservedService } from './to-plain.js';

/**
 * Lists the source's namespaces and Services once. From that list it keeps the Services not
 * written by this compiler whose names end in `-<target>` for one of `targetNames` or in
 * `-federated` (only those can collide with a mirror or a federated Service), and the Services
 * matching `localFederatedSelector` (the source's own federated members). Filtering the one list
 * instead of listing again keeps both views of the same moment and costs no extra request.
 * @throws ObservationError when the cluster cannot be listed
 */
export async function observeSource(client: ClusterClient, targetNames: readonly string[], localFederatedSelector: LabelSelector): Promise<SourceSnapshot> {
  const namespaces = sortedUnique(await client.listNamespaces());
  const suffixes = [...targetNames, FEDERATED_NAME_SUFFIX].map((t) => `-${t}`);
  const foreign: ForeignService[] = [];
  const members: ObservedService[] = [];
  for (const svc of await client.listServices()) {
    const name = svc.metadata?.name ?? '';
    const ours = svc.metadata?.labels?.[MANAGED_LABEL] === MANAGED_VALUE;
    // Our own federated Services never match the default selector (mirror.linkerd.io/* labels are
    // not copied), but a custom selector on a copied label could match them: never count them.
    if (!ours && selectorMatches(localFederatedSelector, svc.metadata?.labels ?? {})) members.push(toObservedService(svc));
    if (ours || !suffixes.some((s) => name.endsWith(s))) continue;
    foreign.push({ namespace: svc.metadata?.namespace ?? '', name });
  }
  const byNamespaceAndName = compareBy<{ namespace: string; name: string }>((s) => s.namespace, (s) => s.name);
  return {
    namespaces,
    foreignServices: foreign.sort(byNamespaceAndName),
    federatedSelector: selectorToQuery(localFederatedSelector),
    federatedMembers: members.sort(byNamespaceAndName),
  };
}
