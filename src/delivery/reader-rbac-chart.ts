/**
 * The synth identity of one cluster: a ServiceAccount bound to a ClusterRole holding exactly the
 * rules observation uses there ({@link observationRules}, the single definition). Written into
 * `dist/<cluster>/`, so the GitOps tool that syncs the mirrors also grants the read access.
 */
import { Chart } from 'cdk8s';
import { k8s } from 'cdk8s-plus-28';
import type { Construct } from 'constructs';
import { MANAGED_LABEL, MANAGED_VALUE, OBSERVER_NAME, OBSERVER_NAMESPACE } from '../contract/mirrorc.js';
import { observationRules } from '../observe/observation-rbac.js';
import type { ObservedCluster } from './observed-clusters.js';

const LABELS = { [MANAGED_LABEL]: MANAGED_VALUE };

/** RBAC of the synth identity in one observed cluster; render it into the cluster's folder. */
export class ReaderRbacChart extends Chart {
  /** The cluster (and `dist/` folder) this chart belongs to. */
  public readonly cluster: string;

  constructor(scope: Construct, cluster: ObservedCluster) {
    super(scope, `reader-rbac-${cluster.name}`, { disableResourceNameHashes: true });
    this.cluster = cluster.name;
    new k8s.KubeNamespace(this, 'namespace', { metadata: { name: OBSERVER_NAMESPACE, labels: LABELS } });
    new k8s.KubeServiceAccount(this, 'service-account', {
      metadata: { name: OBSERVER_NAME, namespace: OBSERVER_NAMESPACE, labels: LABELS },
      // The identity authenticates with tokens minted on demand (TokenRequest), never a mounted one.
      automountServiceAccountToken: false,
    });
    new k8s.KubeClusterRole(this, 'cluster-role', {
      metadata: { name: OBSERVER_NAME, labels: LABELS },
      rules: observationRules({ source: cluster.source, target: cluster.target, mcsTarget: cluster.mcsTarget, mcsSource: cluster.mcsSource, fluxSource: cluster.fluxSource }).map((r) => ({
        apiGroups: [...r.apiGroups],
        resources: [...r.resources],
        ...(r.resourceNames ? { resourceNames: [...r.resourceNames] } : {}),
        verbs: [...r.verbs],
      })),
    });
    new k8s.KubeClusterRoleBinding(this, 'cluster-role-binding', {
      metadata: { name: OBSERVER_NAME, labels: LABELS },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: OBSERVER_NAME },
      subjects: [{ kind: 'ServiceAccount', name: OBSERVER_NAME, namespace: OBSERVER_NAMESPACE }],
    });
  }
}
