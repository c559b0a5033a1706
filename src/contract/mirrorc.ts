/** Keys and names of this compiler itself. */

/** The compiler's name, as written into `endpointslice.kubernetes.io/managed-by`. */
export const COMPILER_NAME = 'mirrorc.io';
/** Label on every object the compiler writes; lets observation tell our objects from the user's. */
export const MANAGED_LABEL = 'mirrorc.io/managed';
/** Value of {@link MANAGED_LABEL}. */
export const MANAGED_VALUE = 'true';

/**
 * On a Service (in a target, or in a source for its own pods): add this headless (StatefulSet)
 * service's pods to the `<svc>-global` Service of every source that mirrors it per pod. Value `"true"`.
 */
export const GLOBAL_LABEL = 'mirrorc.io/global';
/** Value of {@link GLOBAL_LABEL} that opts a service in. */
export const GLOBAL_VALUE = 'true';
/** On the `-global` Service, its EndpointSlices and the source's own per-pod Services: the `<svc>-global` they belong to. */
export const GLOBAL_SERVICE_LABEL = 'mirrorc.io/global-service';
/** On a `-global` EndpointSlice: the cluster whose pods it lists. */
export const GLOBAL_CLUSTER_LABEL = 'mirrorc.io/global-cluster';
/** Suffix of the aggregated StatefulSet Service `<svc>-global`; no cluster may carry this name. */
export const GLOBAL_SERVICE_SUFFIX = 'global';
/** Name of the ServiceAccount, ClusterRole and ClusterRoleBinding of the synth identity in every observed cluster. */
export const OBSERVER_NAME = 'mirrorc-observer';
/** Namespace of the synth identity's ServiceAccount (written as a Namespace object too). */
export const OBSERVER_NAMESPACE = 'mirrorc-system';
/**
 * On an exported Service of a target whose gateway is generic (not Linkerd's): the gateway port
 * reserved for this service, e.g. `"31001"`; its mirror's endpoints point at the gateway on that port.
 */
export const GATEWAY_PORT_ANNOTATION = 'mirrorc.io/gateway-port';
/**
 * The `kubernetes.io/service-name` of a **retired** EndpointSlice: a slice mirrorc wrote before, kept
 * under its name but tied to no Service (a Service name cannot contain a `.`). Linkerd's destination
 * dispatches a slice's update and deletion by this label (`endpoints_watcher.go`, `updateEndpointSlice`,
 * `deleteEndpointSlice`), so the update that retires a slice and its later deletion never touch the
 * address set of the mirror it served, where Kubernetes' slice of the same addresses stays
 * (docs/migrate-from-linkerd-controller.md).
 */
export const RETIRED_SERVICE_NAME = 'retired.mirrorc.io';
/**
 * On a mirror (Service, Endpoints) whose EndpointSlices Kubernetes makes from its Endpoints (Linkerd's
 * form): value {@link KUBERNETES_SLICES_VALUE}. Observation reads it back from the source, so that a
 * link's mirrors stay in that form once they are in it (src/compile/mirror-slices.ts).
 */
export const ENDPOINT_SLICES_LABEL = 'mirrorc.io/endpoint-slices';
/** Value of {@link ENDPOINT_SLICES_LABEL}: Kubernetes' EndpointSlice mirroring controller makes the slices. */
export const KUBERNETES_SLICES_VALUE = 'kubernetes';
/** On a retired EndpointSlice: the mirror Service it served (its name is that mirror's slice name). */
export const RETIRED_FROM_LABEL = 'mirrorc.io/retired-from';
