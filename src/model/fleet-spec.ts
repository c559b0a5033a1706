/**
 * The fleet model as plain, sorted data: what the constructs resolve to once defaults are applied.
 * Observation and compile read only this, never the constructs, so both stay easy to test.
 */
import type { DeliverySpec } from './gitops-delivery.js';
import type { LabelSelector } from './label-selector.js';
import type { ObservationBudgetSpec } from './observation-budget.js';
import type { StalenessLimitSpec } from './staleness-limit.js';

/** How observation reaches a cluster's API. Only references: never a token or key. */
export interface ClusterAccessSpec {
  /** Path of a kubeconfig file; undefined means `$KUBECONFIG` or `~/.kube/config`. */
  readonly kubeconfig?: string;
  /** Context within that kubeconfig. */
  readonly context: string;
}

/** Where a target's gateway is and what it is called, plus any fixed overrides. */
export interface GatewaySpec {
  /** Linkerd's gateway (absent: the default), or a generic one with a port per service. */
  readonly kind?: 'linkerd' | 'generic';
  /** Generic gateways: the gateway port of each exported service, keyed `namespace/name`; absent when none declared. */
  readonly servicePorts?: Readonly<Record<string, number>>;
  /** Namespace of the gateway Service. */
  readonly namespace: string;
  /** Name of the gateway Service. */
  readonly name: string;
  /** Fixed addresses (IPs or host names) instead of the Service's load-balancer ingress. */
  readonly addresses?: readonly string[];
  /** Fixed port instead of the Service's `mc-gateway` port. */
  readonly port?: number;
  /** Fixed TLS identity instead of the Service's `mirror.linkerd.io/gateway-identity` annotation. */
  readonly identity?: string;
  /** Probe the gateway during synth; absent means no probe. */
  readonly probe?: GatewayProbeSpec;
}

/** How synth probes a target's gateway (Linkerd's probe: `GET http://<gateway>:<mc-probe port><probe-path>` answers 200). */
export interface GatewayProbeSpec {
  /** `warn`: a failed probe only warns. `not-ready`: it also writes that target's gateway-mode mirrors not ready. */
  readonly mode: 'warn' | 'not-ready';
  /** `host:port` synth probes instead of each gateway address at the `mc-probe` port; absent when none. */
  readonly address?: string;
  /** The HTTP path probed (`/ready` unless the fleet file names another). */
  readonly path: string;
  /** CIDR blocks in which a gateway address that is not public may be probed; absent when none. */
  readonly allowedCidrs?: readonly string[];
}

/** One cluster of the fleet. */
export interface ClusterSpec {
  /** DNS-label name; the mirror-name suffix and the `dist/` folder. */
  readonly name: string;
  /** Construct path, for messages. */
  readonly path: string;
  readonly access: ClusterAccessSpec;
  /** Cluster DNS domain, used in `remote-svc-fq-name`. */
  readonly clusterDomain: string;
  /** Linkerd trust domain; the `multicluster.linkerd.io/trust-domain` of flat-mode credentials Secrets. */
  readonly trustDomain: string;
  /** Selects this cluster's own Services that join its federated Services (`local-discovery`), when it is a link source. */
  readonly localFederatedSelector: LabelSelector;
  readonly gateway: GatewaySpec;
  /** CIDR block (as declared) where per-pod mirror Services of this source get pinned ClusterIPs; absent when none. */
  readonly pinnedServiceIPRange?: string;
  /** Further CIDR blocks for pinned ClusterIPs (as declared), each at the bottom of another Service CIDR; absent when none. */
  readonly additionalPinnedServiceIPRanges?: readonly string[];
  /** Declared Service CIDRs; absent when none declared. Gateway addresses of linked targets must lie outside them. */
  readonly serviceCidrs?: readonly string[];
  /** Declared pod CIDRs; absent when none declared. Gateway addresses of linked targets must lie outside them. */
  readonly podCidrs?: readonly string[];
  /** Namespace of the Linkerd control plane: where the trust roots ConfigMap is read. */
  readonly controlPlaneNamespace: string;
  /** A trust root of this cluster expiring within this many days is a warning. */
  readonly trustRootExpiryWarningDays: number;
  /** How much and how long observing this cluster may take (defaults applied). */
  readonly observationBudget: ObservationBudgetSpec;
}

/** Namespace filter of a link; names may use `*` as a wildcard. */
export interface NamespaceFilterSpec {
  /** Only these namespaces are mirrored; empty means all. */
  readonly include: readonly string[];
  /** These namespaces are never mirrored; wins over `include`. */
  readonly exclude: readonly string[];
}

/** Declared provenance of the flat-mode credentials Secret (contract §4.1); mirrorc never writes it. */
export interface RemoteDiscoveryCredentialsSpec {
  /** Who puts the Secret into the source cluster: always something outside mirrorc. */
  readonly provided: 'external';
  /** Name of the Secret in the source's `linkerd` namespace. */
  readonly secretName: string;
}

/** A link: `source` mirrors services exported by `target`. */
export interface LinkSpec {
  readonly source: string;
  readonly target: string;
  /** Construct path, for messages. */
  readonly path: string;
  /** Selects target services mirrored in gateway mode; null: none (a flat-only link). */
  readonly selector: LabelSelector | null;
  /** Selects target services mirrored in flat (remote-discovery) mode; wins over `selector`; null: none. */
  readonly remoteDiscoverySelector: LabelSelector | null;
  /** Selects target services that join the source's federated Services `<svc>-federated`; null: none. */
  readonly federatedServiceSelector: LabelSelector | null;
  /** How the source gets the target's credentials Secret for flat mode and federated members; absent when not declared. */
  readonly remoteDiscoveryCredentials?: RemoteDiscoveryCredentialsSpec;
  /** Label keys never copied; `x/*` excludes every key starting with `x`. */
  readonly excludedLabels: readonly string[];
  /** Annotation keys never copied; same glob rule. */
  readonly excludedAnnotations: readonly string[];
  /** When present, only these label keys (`x/*`: every key with prefix `x`) are copied; the metadata policy still applies. */
  readonly allowedLabels?: readonly string[];
  /** When present, only these annotation keys are copied (opaque ports always are); same pattern rule. */
  readonly allowedAnnotations?: readonly string[];
  readonly namespaces: NamespaceFilterSpec;
  /** Emit a Namespace object when a mirrored namespace is missing in the source. */
  readonly createMissingNamespaces: boolean;
  /** Every service this link mirrors per pod joins the source's `<svc>-global` Service. */
  readonly globalServices: boolean;
  /** `false`: gateway-mode mirrors keep the gateway address when their target service has no ready endpoint; absent means `true`. */
  readonly followServiceReadiness?: boolean;
  /** `true`: not-ready StatefulSet pods are left out of per-pod mirrors and `-global`; absent means `false`. */
  readonly followPodReadiness?: boolean;
  /** Target namespace → source namespace of its gateway-mode mirrors; absent when none. */
  readonly namespaceMap?: Readonly<Record<string, string>>;
  /** Gateway-mode services become MCS ServiceImports and EndpointSlices instead of Linkerd mirrors; absent: false. */
  readonly mcs?: true;
  /** Services of system namespaces (kube-system, linkerd, ...) are mirrored, and mirrors may land in the source's; absent: false, they are skipped with a warning. */
  readonly mirrorSystemNamespaces?: true;
  /** With `mcs`: `false` reads no ServiceExports; `true` asks for them (a target without the CRD is warned about); absent: read, silently none without the CRD. */
  readonly serviceExports?: boolean;
  /** Take over the mirrors Linkerd's controller wrote for this link, in place; absent: false (they are refused as not written by mirrorc). */
  readonly adoptLinkerdMirrors?: true;
}

/** A target service exported by name, for services that cannot carry the export label. */
export interface ExplicitExportSpec {
  readonly cluster: string;
  readonly namespace: string;
  readonly name: string;
  /** Construct path, for messages. */
  readonly path: string;
  /** Mirror name (before `-<target>`) and/or namespace in the sources; absent: the service's own. */
  readonly mirrorAs?: { readonly name?: string; readonly namespace?: string };
}

/** The whole fleet, each list sorted. */
export interface FleetSpec {
  readonly clusters: readonly ClusterSpec[];
  readonly links: readonly LinkSpec[];
  readonly explicitExports: readonly ExplicitExportSpec[];
  /** GitOps delivery manifests to write beside `dist/`; absent when the fleet has no `GitOpsDelivery`. */
  readonly delivery?: DeliverySpec;
  /** The fleet's default staleness limit; absent when the fleet has no `StalenessLimit`. */
  readonly stalenessLimit?: StalenessLimitSpec;
}
