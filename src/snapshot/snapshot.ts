/**
 * The observation snapshot: everything compile needs to know about the clusters, as plain,
 * sorted, JSON-serialisable data with no volatile field (no resourceVersion, uid or timestamp).
 * It is persisted as the lock file, so offline compiles reproduce a live run byte for byte.
 * Observe produces it, compile reads it: it lives here so that neither imports the other.
 */

/** First failed observation per cluster and role, as UTC timestamps (`2025-01-31T12:00:00Z`). */
export interface StaleSince {
  /** Target clusters whose exported services come from an older observation. */
  readonly targets?: Readonly<Record<string, string>>;
  /** Source clusters whose namespaces and Services come from an older observation. */
  readonly sources?: Readonly<Record<string, string>>;
}

/** Version of the snapshot format; bumped on incompatible changes. */
export const SNAPSHOT_FORMAT = 1;

/** A Service port as the target defines it. */
export interface ObservedPort {
  readonly name: string;
  readonly protocol: string;
  readonly port: number;
  /** Verbatim: a number or a named container port. */
  readonly targetPort?: number | string;
}

/** A port of a Service's endpoints: the container port the pods listen on. */
export interface ObservedEndpointPort {
  readonly name: string;
  readonly protocol: string;
  readonly port: number;
  readonly appProtocol?: string;
}

/** An exported Service of a target cluster. */
export interface ObservedService {
  readonly namespace: string;
  readonly name: string;
  /** Sorted by key. GitOps tracking keys are already stripped. */
  readonly labels: Readonly<Record<string, string>>;
  /** Sorted by key. GitOps tracking keys and kubectl's last-applied record are already stripped. */
  readonly annotations: Readonly<Record<string, string>>;
  /** `ClusterIP`, `NodePort`, `LoadBalancer` or `ExternalName`. */
  readonly type: string;
  /** `clusterIP: None`. */
  readonly headless: boolean;
  /** In the order the Service lists them (order is meaningful to users, names are unique). */
  readonly ports: readonly ObservedPort[];
  /** Exported by an ExplicitExport rather than by a label. */
  readonly explicit?: true;
  /** Named by a `ServiceExport` object of the MCS API (same namespace and name): exported to the target's MCS links whatever its labels. */
  readonly serviceExport?: true;
  /**
   * Headless services only: the hostnames of its endpoints (StatefulSet pods), sorted. Every
   * endpoint with a hostname counts, ready or not: the set follows the StatefulSet's pods, and
   * readiness churn stays out of git (liveness is the gateway's job).
   */
  readonly hostnames?: readonly string[];
  /** Headless services only: the ports of its endpoints (container ports), sorted by name and port. */
  readonly endpointPorts?: readonly ObservedEndpointPort[];
  /** The Service's pod selector, recorded only for a source's own `-global` members (sorted). */
  readonly selector?: Readonly<Record<string, string>>;
  /**
   * Whether any of its EndpointSlices has a ready endpoint: a boolean, never addresses, so pod churn
   * stays out of git. Written only as `false` (no ready endpoint); absent means ready, which is also
   * how locks from before this field read. A service with no EndpointSlice at all counts as ready.
   */
  readonly hasReadyEndpoints?: boolean;
  /**
   * Headless services only: the hostnames (of {@link hostnames}) whose endpoints are not ready, sorted.
   * Recorded only while a link to this target sets `followPodReadiness`, and absent when every pod is ready.
   */
  readonly notReadyHostnames?: readonly string[];
}

/** Where a target's gateway receives multicluster traffic. */
export interface ObservedGateway {
  /** IP addresses, host names already resolved, sorted. */
  readonly addresses: readonly string[];
  readonly port: number;
  /** TLS identity; absent when neither the Service nor the model gives one. */
  readonly identity?: string;
}

/** What synth's probe of a target's gateway found (see `gateway.probe` of the model). */
export interface ObservedGatewayProbe {
  /** `false` when every probe attempt failed (Linkerd's failure threshold reached). */
  readonly alive: boolean;
}

/**
 * One trust root (trust anchor) of a cluster's Linkerd identity, as read from its
 * `linkerd-identity-trust-roots` ConfigMap. Only these three facts are kept: never the certificate.
 */
export interface ObservedTrustRoot {
  /** SHA-256 of the certificate's DER encoding, as upper-case hex pairs joined by `:` (what `openssl x509 -fingerprint -sha256` prints). */
  readonly fingerprint: string;
  /** The subject's distinguished name, its parts joined by `, ` (e.g. `CN=root.linkerd.cluster.local`). */
  readonly subject: string;
  /** End of validity, ISO 8601 in UTC (`2027-01-31T12:00:00.000Z`). */
  readonly notAfter: string;
}

/** What was observed of a cluster in its role as a link target. */
export interface TargetSnapshot {
  /** The label selectors (query form, sorted) whose services this snapshot holds. */
  readonly selectors: readonly string[];
  /** Services exported by any selector, explicit export or (for MCS links) ServiceExport object, sorted by namespace and name. */
  readonly services: readonly ObservedService[];
  /** Explicit exports (`namespace/name`) that do not exist in the target, sorted. */
  readonly missingExplicitExports: readonly string[];
  /** The target's ServiceExport objects were listed (some MCS link reads them); absent in locks from before, or when no link does. */
  readonly serviceExportsListed?: true;
  /** The gateway, or absent when it has no usable address yet. */
  readonly gateway?: ObservedGateway;
  /** The gateway probe's verdict; recorded only when the target's `gateway.probe.mode` is `not-ready` and the probe failed. */
  readonly gatewayProbe?: ObservedGatewayProbe;
  /** The cluster's Linkerd trust roots, sorted by fingerprint; absent when not found (or in locks from before the trust-anchor check). */
  readonly trustRoots?: readonly ObservedTrustRoot[];
}

/** A Service of a source cluster that is not ours and whose name a mirror could take. */
export interface ForeignService {
  readonly namespace: string;
  readonly name: string;
  /**
   * Written by Linkerd's service-mirror controller: the value of its `mirror.linkerd.io/cluster-name`
   * label, on a Service also labelled `mirror.linkerd.io/mirrored-service=true`. A link to that
   * target with `adoptLinkerdMirrors` takes the Service over instead of refusing its name.
   * Absent for any other Service.
   */
  readonly linkerdCluster?: string;
  /** Its ClusterIP, when it has one (not `None`) and {@link linkerdCluster} is set: an adopted per-pod mirror keeps it. */
  readonly clusterIP?: string;
  /**
   * Written by Linkerd's service-mirror controller as a federated Service (`<svc>-federated`:
   * `mirror.linkerd.io/mirrored-service=true` and no `cluster-name`, since it spans targets). A
   * federated Service of the same name takes it over when a link of one of its members has
   * `adoptLinkerdMirrors`. Absent for any other Service.
   */
  readonly linkerdFederated?: true;
}

/** A live Service of a source whose ClusterIP lies in one of the source's pinned blocks (`pinnedServiceIPRange`, `additionalPinnedServiceIPRanges`). */
export interface PinnedRangeService {
  readonly namespace: string;
  readonly name: string;
  readonly ip: string;
  /** Written by this compiler (a per-pod mirror of an earlier run). */
  readonly managed: boolean;
}

/** What was observed of a cluster in its role as a link source. */
export interface SourceSnapshot {
  /** All namespace names, sorted. */
  readonly namespaces: readonly string[];
  /** Services not written by this compiler whose names end in `-<target>` of a link or in `-federated`, sorted. */
  readonly foreignServices: readonly ForeignService[];
  /** MCS ServiceImports not written by this compiler (another controller owns them), sorted; absent when none, or when no MCS link mirrors into the cluster. */
  readonly foreignServiceImports?: readonly ForeignService[];
  /**
   * Live Services holding an IP of the cluster's pinned blocks (`pinnedServiceIPRange`, `additionalPinnedServiceIPRanges`), and this compiler's per-pod
   * mirrors wherever their IP lies (one adopted from Linkerd's controller keeps the IP the source gave
   * it), sorted by IP text; absent when no range is declared.
   */
  readonly pinnedRangeServices?: readonly PinnedRangeService[];
  /** The source's own headless services labelled `mirrorc.io/global=true`, with hostnames and selector; absent when none. */
  readonly globalMembers?: readonly ObservedService[];
  /** The cluster's `localFederatedSelector` (query form) that {@link federatedMembers} was listed with; absent in locks from before federated mode. */
  readonly federatedSelector?: string;
  /** The cluster's own Services matching {@link federatedSelector}: local members of its federated Services, sorted by namespace and name. */
  readonly federatedMembers?: readonly ObservedService[];
  /**
   * Namespaces labelled `mirrorc.io/managed=true`: created by this compiler for a link with
   * `createMissingNamespaces`. They stay in the output while any mirror lives in them, so they never
   * flap (created, then pruned because they now exist). Sorted; absent when none.
   */
  readonly managedNamespaces?: readonly string[];
  /**
   * Targets of which this cluster holds a mirror of ours in Linkerd's endpoint form (labelled
   * `mirrorc.io/endpoint-slices=kubernetes`): their links stay in that form, since leaving it would
   * delete the slice Linkerd's destination reads (src/compile/mirror-slices.ts). Sorted; absent when none.
   */
  readonly kubernetesSlicedTargets?: readonly string[];
  /** The cluster's Linkerd trust roots, sorted by fingerprint; absent when not found (or in locks from before the trust-anchor check). */
  readonly trustRoots?: readonly ObservedTrustRoot[];
}

/** The whole observation; maps are sorted by cluster name. */
export interface FleetSnapshot {
  /** The lock format's version. */
  readonly format: typeof SNAPSHOT_FORMAT;
  /** What each target cluster exports, by cluster name. */
  readonly targets: Readonly<Record<string, TargetSnapshot>>;
  /** What each source cluster holds that compile checks against, by cluster name. */
  readonly sources: Readonly<Record<string, SourceSnapshot>>;
  /**
   * Not an observation but compile's memory: the ClusterIP pinned for each per-pod Service, per
   * source cluster, keyed `namespace/name`. Kept in the lock so an IP never moves between runs.
   */
  readonly pinnedServiceIPs?: Readonly<Record<string, Readonly<Record<string, string>>>>;
  /** When clusters that could not be observed were first found so; absent while every cluster answers. Compile ignores it. */
  readonly staleSince?: StaleSince;
}

/** An empty snapshot: nothing known yet. */
export function emptySnapshot(): FleetSnapshot {
  return { format: SNAPSHOT_FORMAT, targets: {}, sources: {} };
}
