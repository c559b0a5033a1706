/**
 * The observation snapshot: everything compile needs to know about the clusters, as plain,
 * sorted, JSON-serialisable data with no volatile field (no resourceVersion, uid or timestamp).
 * It is persisted as the lock file, so offline compiles reproduce a live run byte for byte.
 */
import type { StaleSince } from './stale-since.js';

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
}

/** Where a target's gateway receives multicluster traffic. */
export interface ObservedGateway {
  /** IP addresses, host names already resolved, sorted. */
  readonly addresses: readonly string[];
  readonly port: number;
  /** TLS identity; absent when neither the Service nor the model gives one. */
  readonly identity?: string;
}

/** What was observed of a cluster in its role as a link target. */
export interface TargetSnapshot {
  /** The label selectors (query form, sorted) whose services this snapshot holds. */
  readonly selectors: readonly string[];
  /** Services exported by any selector or explicit export, sorted by namespace and name. */
  readonly services: readonly ObservedService[];
  /** Explicit exports (`namespace/name`) that do not exist in the target, sorted. */
  readonly missingExplicitExports: readonly string[];
  /** The gateway, or absent when it has no usable address yet. */
  readonly gateway?: ObservedGateway;
}

/** A Service of a source cluster that is not ours and whose name a mirror could take. */
export interface ForeignService {
  readonly namespace: string;
  readonly name: string;
}

/** What was observed of a cluster in its role as a link source. */
export interface SourceSnapshot {
  /** All namespace names, sorted. */
  readonly namespaces: readonly string[];
  /** Services not written by this compiler whose names end in `-<target>` of a link, sorted. */
  readonly foreignServices: readonly ForeignService[];
}

/** The whole observation; maps are sorted by cluster name. */
export interface FleetSnapshot {
  readonly format: typeof SNAPSHOT_FORMAT;
  readonly targets: Readonly<Record<string, TargetSnapshot>>;
  readonly sources: Readonly<Record<string, SourceSnapshot>>;
  /** When clusters that could not be observed were first found so; absent while every cluster answers. Compile ignores it. */
  readonly staleSince?: StaleSince;
}

/** An empty snapshot: nothing known yet. */
export function emptySnapshot(): FleetSnapshot {
  return { format: SNAPSHOT_FORMAT, targets: {}, sources: {} };
}
