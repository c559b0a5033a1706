/**
 * The Argo CD AppProject of the mirrors: only our repository, our clusters, the kinds we write and,
 * of the cluster-scoped kinds, only the names we write.
 */
import YAML from 'yaml';
import { ARGOCD_API_VERSION } from '../contract/argocd.js';
import { MANAGED_LABEL, MANAGED_VALUE, OBSERVER_NAME, OBSERVER_NAMESPACE } from '../contract/mirrorc.js';
import { isNamespaceFile, type FileTree } from '../emit/render-files.js';
import { argoCdClusterName, type ArgoCdDeliverySpec, type DeliverySpec } from '../model/gitops-delivery.js';
import { compareStrings } from '../util/order.js';

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

/** One `group`/`kind`/`name` entry of an AppProject cluster resource allow-list (Argo CD reads `name` since 3.x, see docs/argocd.md). */
export interface NamedGroupKind extends GroupKind {
  readonly name: string;
}

/**
 * The Namespaces the output creates (`createMissingNamespaces`): every `namespace-*.yaml` of the tree
 * that holds a Namespace, by name, sorted. The reader identity's namespace is not among them.
 */
export function namespacesInOutput(tree: FileTree): string[] {
  const names = new Set<string>();
  for (const [file, text] of tree) {
    if (!isNamespaceFile(file)) continue;
    const object = YAML.parse(text) as { kind?: unknown; metadata?: { name?: unknown } } | null;
    if (object?.kind === 'Namespace' && typeof object.metadata?.name === 'string') names.add(object.metadata.name);
  }
  return [...names].sort(compareStrings);
}

/**
 * The cluster-scoped objects the output may hold, by name: the reader identity's Namespace,
 * ClusterRole and ClusterRoleBinding, and the Namespaces created for mirrors.
 */
export function clusterScopedAllowList(createdNamespaces: readonly string[]): NamedGroupKind[] {
  const [namespace, clusterRole, clusterRoleBinding] = CLUSTER_SCOPED_KINDS as [GroupKind, GroupKind, GroupKind];
  return [
    ...[...new Set([OBSERVER_NAMESPACE, ...createdNamespaces])].sort(compareStrings).map((name) => ({ ...namespace, name })),
    { ...clusterRole, name: OBSERVER_NAME },
    { ...clusterRoleBinding, name: OBSERVER_NAME },
  ];
}

/**
 * The AppProject: the Applications of the ApplicationSet may deploy nothing else, anywhere else.
 * `createdNamespaces`: the Namespaces the output creates ({@link namespacesInOutput}).
 */
export function argoCdAppProject(delivery: DeliverySpec, argoCd: ArgoCdDeliverySpec, clusters: readonly string[], createdNamespaces: readonly string[] = []): object {
  return {
    apiVersion: ARGOCD_API_VERSION,
    kind: 'AppProject',
    metadata: { name: argoCd.project, namespace: argoCd.namespace, labels: { [MANAGED_LABEL]: MANAGED_VALUE } },
    spec: {
      description: 'Linkerd service mirrors compiled by mirrorc',
      sourceRepos: [delivery.repoUrl],
      destinations: clusters.map((cluster) => ({ name: argoCdClusterName(argoCd, cluster), namespace: '*' })),
      clusterResourceWhitelist: clusterScopedAllowList(createdNamespaces),
      namespaceResourceWhitelist: NAMESPACED_KINDS.map((k) => ({ ...k })),
    },
  };
}
