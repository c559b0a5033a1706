/**
 * System namespaces: where Kubernetes, Linkerd and its extensions live. A target's services there
 * (its DNS, its control plane, its gateway) are not another team's exports, and a mirror landing in
 * a source's system namespace sits next to that source's own control plane. So neither is mirrored
 * unless the link opts in with `mirrorSystemNamespaces`; a skipped service is named in a warning.
 */
import { KUBERNETES_SYSTEM_NAMESPACES } from '../contract/kubernetes.js';
import { LINKERD_SYSTEM_NAMESPACES } from '../contract/linkerd.js';
import type { ClusterSpec } from '../model/fleet-spec.js';

/** Whether `namespace` is a system namespace of `cluster`: Kubernetes', Linkerd's defaults, or the cluster's own control-plane and gateway namespaces. */
export function isSystemNamespace(cluster: ClusterSpec, namespace: string): boolean {
  return (
    KUBERNETES_SYSTEM_NAMESPACES.includes(namespace) ||
    LINKERD_SYSTEM_NAMESPACES.includes(namespace) ||
    namespace === cluster.controlPlaneNamespace ||
    namespace === cluster.gateway.namespace
  );
}
