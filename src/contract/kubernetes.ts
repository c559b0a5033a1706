/** Kubernetes label and annotation keys the compiler writes or strips, each defined once. */

/** Ties an EndpointSlice to its Service. */
export const SERVICE_NAME_LABEL = 'kubernetes.io/service-name';
/** Which controller owns an EndpointSlice; the built-in controllers leave other values alone. */
export const ENDPOINTSLICE_MANAGED_BY_LABEL = 'endpointslice.kubernetes.io/managed-by';
/** On Endpoints: tells kube-controller-manager not to mirror them into EndpointSlices (we write our own). */
export const SKIP_MIRROR_LABEL = 'endpointslice.kubernetes.io/skip-mirror';
/** kubectl's client-side-apply record; never copied. */
export const KUBECTL_LAST_APPLIED_ANNOTATION = 'kubectl.kubernetes.io/last-applied-configuration';
/** Set by the API server on Services it validates; never copied. */
export const HEADLESS_SERVICE_LABEL = 'service.kubernetes.io/headless';
/** Set by the StatefulSet controller on each pod: the pod's name. Selects exactly one replica. */
export const STATEFULSET_POD_NAME_LABEL = 'statefulset.kubernetes.io/pod-name';

/** API version of the Multi-Cluster Services API objects mirrorc writes (KEP-1645; see docs/modes/mcs.md). */
export const MCS_API_VERSION = 'multicluster.x-k8s.io/v1alpha1';
/** On MCS EndpointSlices: the ServiceImport (the exported service's name) the slice belongs to. */
export const MCS_SERVICE_NAME_LABEL = 'multicluster.kubernetes.io/service-name';
/** On MCS EndpointSlices: the cluster that exported the endpoints. */
export const MCS_SOURCE_CLUSTER_LABEL = 'multicluster.kubernetes.io/source-cluster';
/** API group of the MCS API's `ServiceExport`, which observation lists in the targets of MCS links. */
export const MCS_API_GROUP = 'multicluster.x-k8s.io';
/** Version of `ServiceExport` observation lists (the one every MCS CRD release serves). */
export const MCS_SERVICE_EXPORT_VERSION = 'v1alpha1';
/** Resource (plural) of the MCS API's `ServiceExport`. */
export const MCS_SERVICE_EXPORTS_RESOURCE = 'serviceexports';
/** The MCS API's ServiceImport resource (plural), listed in the sources of MCS links. */
export const MCS_SERVICE_IMPORTS_RESOURCE = 'serviceimports';

/** The namespaces Kubernetes itself uses: never a mirror's origin or home unless a link opts in (`mirrorSystemNamespaces`). */
export const KUBERNETES_SYSTEM_NAMESPACES: readonly string[] = ['kube-node-lease', 'kube-public', 'kube-system'];
