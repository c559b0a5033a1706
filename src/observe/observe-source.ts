/** Observes one cluster in its role as a link source: what compile must check mirrors against. */
import { MANAGED_LABEL, MANAGED_VALUE } from '../contract/mirrorc.js';
import { compareBy, sortedUnique } from '../util/order.js';
import type { ClusterClient } from './cluster-client.js';
import type { ForeignService, SourceSnapshot } from './snapshot.js';

/**
 * Lists the source's namespaces, and the Services not written by this compiler whose names end
 * in `-<target>` for one of `targetNames` (only those can collide with a mirror).
 * @throws ObservationError when the cluster cannot be listed
 */
export async function observeSource(client: ClusterClient, targetNames: readonly string[]): Promise<SourceSnapshot> {
  const namespaces = sortedUnique(await client.listNamespaces());
  const suffixes = targetNames.map((t) => `-${t}`);
  const foreign: ForeignService[] = [];
  for (const svc of await client.listServices()) {
    const name = svc.metadata?.name ?? '';
    if (svc.metadata?.labels?.[MANAGED_LABEL] === MANAGED_VALUE) continue;
    if (!suffixes.some((s) => name.endsWith(s))) continue;
    foreign.push({ namespace: svc.metadata?.namespace ?? '', name });
  }
  return { namespaces, foreignServices: foreign.sort(compareBy((s) => s.namespace, (s) => s.name)) };
}
