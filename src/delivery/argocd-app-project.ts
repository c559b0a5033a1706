/** The Argo CD AppProject of the mirrors: only our repository, our clusters and the kinds we write. */
import { ARGOCD_API_VERSION } from '../contract/argocd.js';
import { MANAGED_LABEL, MANAGED_VALUE } from '../contract/mirrorc.js';
import type { ArgoCdDeliverySpec, DeliverySpec } from '../model/gitops-delivery.js';

/** One `group`/`kind` entry of an AppProject resource allow-list. */
export interface GroupKind {
  readonly group: string;
  readonly kind: string;
}

/** Cluster-scoped kinds found in `dist/`: mirror namespaces and the reader identity's RBAC. */
export const CLUSTER_SCOPED_KINDS: readonly GroupKind[] = [
  { group: '', kind: 'Namespace' },
  { group: 'rbac.authorization.k8s.io', kind: 'ClusterRole' },
  { group: 'rbac.authorization.k8s.io', kind: 'ClusterRoleBinding' },
];

/** Namespaced kinds found in `dist/`: mirrors and the reader identity's ServiceAccount. */
export const NAMESPACED_KINDS: readonly GroupKind[] = [
  { group: '', kind: 'Endpoints' },
  { group: '', kind: 'Service' },
  { group: '', kind: 'ServiceAccount' },
  { group: 'discovery.k8s.io', kind: 'EndpointSlice' },
  { group: 'multicluster.x-k8s.io', kind: 'ServiceImport' },
];

/** The AppProject: the Applications of the ApplicationSet may deploy nothing else, anywhere else. */
export function argoCdAppProject(delivery: DeliverySpec, argoCd: ArgoCdDeliverySpec, clusters: readonly string[]): object {
  return {
    apiVersion: ARGOCD_API_VERSION,
    kind: 'AppProject',
    metadata: { name: argoCd.project, namespace: argoCd.namespace, labels: { [MANAGED_LABEL]: MANAGED_VALUE } },
    spec: {
      description: 'Linkerd service mirrors compiled by mirrorc',
      sourceRepos: [delivery.repoUrl],
      destinations: clusters.map((name) => ({ name, namespace: '*' })),
      clusterResourceWhitelist: CLUSTER_SCOPED_KINDS.map((k) => ({ ...k })),
      namespaceResourceWhitelist: NAMESPACED_KINDS.map((k) => ({ ...k })),
    },
  };
}
