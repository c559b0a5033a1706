/** Names of mirror objects, exactly as Linkerd derives them (contract §3). */
import { FEDERATED_NAME_SUFFIX } from '../contract/linkerd.js';

import { GLOBAL_SERVICE_SUFFIX } from '../contract/mirrorc.js';

/** Longest Service name Kubernetes accepts (DNS-1035 label). */
export const MAX_SERVICE_NAME_LENGTH = 63;

/** `<svc>-<target>`: the mirror of a target service. Never truncated or hashed: Linkerd does not either. */
export function mirrorServiceName(remoteName: string, targetCluster: string): string {
  return `${remoteName}-${targetCluster}`;
}

/** `<svc>-federated`: the federated Service that unites the members named `svc` of one namespace. */
export function federatedServiceName(memberName: string): string {
  return `${memberName}-${FEDERATED_NAME_SUFFIX}`;
}

/** `<svc>.<ns>.svc.<domain>`: the remote service's fully qualified name, the proxy's authority. */
export function remoteFqName(remoteName: string, namespace: string, clusterDomain: string): string {
  return `${remoteName}.${namespace}.svc.${clusterDomain}`;
}

/** Name of the EndpointSlice of a mirror for one address family. */
export function endpointSliceName(mirrorName: string, addressType: 'IPv4' | 'IPv6'): string {
  return `${mirrorName}-${addressType.toLowerCase()}`;
}

/** `<hostname>-<cluster>`: the per-pod mirror of one StatefulSet pod, and its hostname under `-global`. */
export function perPodServiceName(hostname: string, cluster: string): string {
  return `${hostname}-${cluster}`;
}

/** `<host>.<svc>.<ns>.svc.<domain>`: one pod of a remote headless service, the per-pod mirror's authority. */
export function remotePodFqName(hostname: string, remoteName: string, namespace: string, clusterDomain: string): string {
  return `${hostname}.${remoteFqName(remoteName, namespace, clusterDomain)}`;
}

/** `<svc>-global`: the headless Service aggregating one StatefulSet's pods across clusters. */
export function globalServiceName(serviceName: string): string {
  return `${serviceName}-${GLOBAL_SERVICE_SUFFIX}`;
}
