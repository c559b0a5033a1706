/**
 * Label and annotation keys of Linkerd's multicluster service mirror, spelled exactly as
 * `pkg/k8s/labels.go` spells them (see docs/linkerd-mirror-contract.md §1).
 * Every key the compiler reads or writes is defined here once.
 */

/** Prefix of Linkerd's mirror keys; remote labels with this prefix are never copied to mirrors. */
export const SVC_MIRROR_PREFIX = 'mirror.linkerd.io';

/** Default export selector key: `=true` for gateway mode, `=remote-discovery` for flat mode. */
export const EXPORTED_LABEL = 'mirror.linkerd.io/exported';
/** Value of {@link EXPORTED_LABEL} that selects gateway (hierarchical) mode. */
export const EXPORTED_GATEWAY_VALUE = 'true';
/** Value of {@link EXPORTED_LABEL} that selects flat (remote-discovery) mode. */
export const EXPORTED_REMOTE_DISCOVERY_VALUE = 'remote-discovery';

/** Default federated selector key, value `member`. */
export const FEDERATED_LABEL = 'mirror.linkerd.io/federated';
/** Value of {@link FEDERATED_LABEL} that makes a service a federated member. */
export const FEDERATED_MEMBER_VALUE = 'member';
/** Suffix of federated Service names, `<svc>-federated`; hence no cluster may be named `federated`. */
export const FEDERATED_NAME_SUFFIX = 'federated';

/** Marks every mirror object; value `"true"`. */
export const MIRRORED_RESOURCE_LABEL = 'mirror.linkerd.io/mirrored-service';
/** The target cluster a mirror came from; read by the data plane for metrics. */
export const REMOTE_CLUSTER_NAME_LABEL = 'mirror.linkerd.io/cluster-name';
/** On per-pod (endpoint) mirrors: the name of their headless root mirror. */
export const HEADLESS_MIRROR_SVC_NAME_LABEL = 'mirror.linkerd.io/headless-mirror-svc-name';

/** `<svc>.<ns>.svc.<domain>` of the remote service; the proxy's authority override. */
export const REMOTE_SVC_FQ_NAME_ANNOTATION = 'mirror.linkerd.io/remote-svc-fq-name';
/** The TLS identity the proxy requires of the target's gateway. */
export const REMOTE_GATEWAY_IDENTITY_ANNOTATION = 'mirror.linkerd.io/remote-gateway-identity';
/** Remote resourceVersion; volatile, so the compiler never writes it (contract §5). */
export const REMOTE_RESOURCE_VERSION_ANNOTATION = 'mirror.linkerd.io/remote-resource-version';

/** On the target's gateway Service: the identity its proxies present. */
export const GATEWAY_IDENTITY_ANNOTATION = 'mirror.linkerd.io/gateway-identity';
/** Name of the gateway Service port that receives multicluster traffic. */
export const GATEWAY_PORT_NAME = 'mc-gateway';
/** Namespace of the gateway Service in a stock linkerd-multicluster install. */
export const DEFAULT_GATEWAY_NAMESPACE = 'linkerd-multicluster';
/** Name of the gateway Service in a stock linkerd-multicluster install. */
export const DEFAULT_GATEWAY_NAME = 'linkerd-gateway';

/** Copied even when a link excludes it: the proxy needs to know opaque ports of the remote service. */
export const OPAQUE_PORTS_ANNOTATION = 'config.linkerd.io/opaque-ports';

/** Flat mode: label naming the cluster whose API the destination controller reads. */
export const REMOTE_DISCOVERY_LABEL = 'multicluster.linkerd.io/remote-discovery';
/** Flat mode: label naming the remote service (same namespace). */
export const REMOTE_SERVICE_LABEL = 'multicluster.linkerd.io/remote-service';
/** Federated: annotation listing `svc@cluster` members. */
export const REMOTE_DISCOVERY_ANNOTATION = 'multicluster.linkerd.io/remote-discovery';
/** Federated: annotation naming the source cluster's own member service. */
export const LOCAL_DISCOVERY_ANNOTATION = 'multicluster.linkerd.io/local-discovery';

// The destination controller's ClusterStore Secret (contract §4.1): flat mode needs one per target in each source.

/** `type:` the destination requires exactly of credentials Secrets (`MirrorSecretType`). */
export const REMOTE_KUBECONFIG_SECRET_TYPE = 'mirror.linkerd.io/remote-kubeconfig';
/** Data key holding the kubeconfig in credentials Secrets (`ConfigKeyName`). */
export const KUBECONFIG_SECRET_KEY = 'kubeconfig';
/** Label on the ClusterStore Secret: the cluster named by {@link REMOTE_DISCOVERY_LABEL}. */
export const CLUSTER_STORE_CLUSTER_NAME_LABEL = 'multicluster.linkerd.io/cluster-name';
/** Annotation on the ClusterStore Secret: the remote cluster's trust domain (pod identities). */
export const CLUSTER_STORE_TRUST_DOMAIN_ANNOTATION = 'multicluster.linkerd.io/trust-domain';
/** Annotation on the ClusterStore Secret: the remote cluster's DNS domain (authority). */
export const CLUSTER_STORE_CLUSTER_DOMAIN_ANNOTATION = 'multicluster.linkerd.io/cluster-domain';
/** Default trust domain of a Linkerd install (the value of the trust-domain annotation unless the cluster says otherwise). */
export const DEFAULT_TRUST_DOMAIN = 'cluster.local';
/** Namespace of the Linkerd control plane, where the destination controller reads ClusterStore Secrets. */
export const LINKERD_CONTROL_PLANE_NAMESPACE = 'linkerd';
/** `cluster-credentials-<cluster>`: `link-gen`'s name for credentials Secrets (the destination ignores the name). */
export function credentialsSecretName(cluster: string): string {
  return `cluster-credentials-${cluster}`;
}

/** Name of the gateway Service port that answers Linkerd's gateway probe. */
export const PROBE_PORT_NAME = 'mc-probe';
/** On the target's gateway Service: the probe period, whole seconds (`3`) or a Go duration (`3s`). */
export const GATEWAY_PROBE_PERIOD_ANNOTATION = 'mirror.linkerd.io/probe-period';
/**
 * The gateway probe path of Linkerd's multicluster chart (its `mirror.linkerd.io/probe-path`
 * annotation default, the Link's `probeSpec.path`): the path synth probes unless the fleet file
 * names another (`gateway.probe.path`). Synth never reads the annotation: the target would choose
 * what synth requests.
 */
export const DEFAULT_GATEWAY_PROBE_PATH = '/ready';
/** Failed probes in a row after which Linkerd marks a gateway dead (its default failure threshold). */
export const GATEWAY_PROBE_FAILURE_THRESHOLD = 3;
/** Linkerd's default probe period, in seconds. */
export const DEFAULT_GATEWAY_PROBE_PERIOD_SECONDS = 3;
/** ConfigMap in the control plane namespace holding the PEM bundle of the cluster's identity trust roots (trust anchors). */
export const TRUST_ROOTS_CONFIGMAP = 'linkerd-identity-trust-roots';
/** Data key of {@link TRUST_ROOTS_CONFIGMAP} holding the PEM bundle. */
export const TRUST_ROOTS_BUNDLE_KEY = 'ca-bundle.crt';

/** The namespaces of Linkerd and its extensions' default installs: system namespaces for `mirrorSystemNamespaces`. */
export const LINKERD_SYSTEM_NAMESPACES: readonly string[] = ['linkerd', 'linkerd-cni', 'linkerd-jaeger', 'linkerd-multicluster', 'linkerd-smi', 'linkerd-viz'];
