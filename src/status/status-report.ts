/**
 * What `mirrorc status` reports, as data (`--output json`): per source cluster its mirrors in the
 * lock against what the cluster holds live, per target what the lock says of its last observation,
 * and what status could not see. Versioned by {@link STATUS_FORMAT}; the format is documented in
 * docs/status.md.
 */

/** Version of the status document; bumped on incompatible changes (a field removed or changing meaning). */
export const STATUS_FORMAT = 1;

/** The classes of problem status tells apart, each with its exit code (src/errors/exit-codes.ts). */
export type StatusProblemClass = 'mirrors-differ' | 'no-ready-endpoints' | 'gitops-behind' | 'stale' | 'not-visible' | 'gateway-down';

/** One problem found, for people and for alerts (the class decides the exit code). */
export interface StatusProblem {
  readonly class: StatusProblemClass;
  /** The cluster it is about. */
  readonly cluster: string;
  /** `namespace/name` of the mirror it is about, when it is about one. */
  readonly mirror?: string;
  /** What is wrong, in plain words (credentials and API server addresses redacted). */
  readonly message: string;
}

/** How a mirror of the lock compares with the source cluster. */
export type MirrorState = 'ok' | 'missing' | 'unexpected' | 'differs';

/** One mirror Service of a source cluster. */
export interface MirrorStatus {
  /** `namespace/name` of the mirror Service. */
  readonly mirror: string;
  /** `target/namespace/service` it mirrors, from the lock; null for an unexpected one. */
  readonly origin: string | null;
  readonly state: MirrorState;
  /** The data-plane fields that differ from dist/ (`ports`, `clusterIP`, `endpoints`), sorted. */
  readonly differs: readonly string[];
  /** Ready endpoint addresses live (over its EndpointSlices); null when missing. */
  readonly readyEndpoints: number | null;
}

/** A source cluster: its mirrors, when status could read them. */
export interface SourceStatus {
  readonly cluster: string;
  /** Whether status could read the cluster's mirrors with the reader identity. */
  readonly visible: boolean;
  /** Why not, when not visible (redacted). */
  readonly error: string | null;
  /** When the lock says this source could not be observed since (its last synth), or null. */
  readonly staleSince: string | null;
  /** Mirrors of the lock, and unexpected managed ones live, by `namespace/name`; empty when not visible. */
  readonly mirrors: readonly MirrorStatus[];
  /** The GitOps side, when the fleet delivers with Flux; null otherwise. */
  readonly gitops: GitOpsStatus | null;
}

/** One Flux Kustomization that syncs part of the cluster's folder. */
export interface KustomizationStatus {
  readonly name: string;
  /** `Ready` condition's status (`True`, `False`, `Unknown`), or null when it has none yet. */
  readonly ready: string | null;
  /** Its `status.lastAppliedRevision` (`<branch>@sha1:<commit>`), or null. */
  readonly lastAppliedRevision: string | null;
  /** The Ready condition's message when it is not True (the last error), or null. */
  readonly lastError: string | null;
}

/** The GitOps tool's side of a source cluster. */
export interface GitOpsStatus {
  readonly tool: 'flux';
  /** Whether status could read the Kustomizations (false: no access, or no Flux CRD). */
  readonly visible: boolean;
  /** Why not, when not visible. */
  readonly error: string | null;
  /** The commit that last changed the lock (git), or null outside a git work tree. */
  readonly lockCommit: string | null;
  /** The cluster's mirrorc Kustomizations, by name. */
  readonly kustomizations: readonly KustomizationStatus[];
}

/** A link target, as the lock records its last observation, and whether status reaches it now. */
export interface TargetStatus {
  readonly cluster: string;
  /** Whether the lock holds an observation of it. */
  readonly observed: boolean;
  /** When the lock says it could not be observed (or was held back) since, or null: its observation is current. */
  readonly staleSince: string | null;
  /** Seconds from `staleSince` to now, or null. */
  readonly staleSeconds: number | null;
  /** Whether status reached its API server with the reader identity now (null: not tried, it has no observation). */
  readonly reachableNow: boolean | null;
  /** Why it is not reachable now (redacted), or null. */
  readonly error: string | null;
  /** The gateway probe's verdict at the last observation (null: no probe configured or never observed). */
  readonly gatewayAlive: boolean | null;
  /** Exported services in its last observation. */
  readonly exportedServices: number;
  /** The gateway probed now from where status runs (only when the fleet asks for a probe: `gateway.probe`), or null. */
  readonly gatewayNow: GatewayNow | null;
}

/** A gateway probe made by status. */
export interface GatewayNow {
  /** Whether it answered 200; null when it could not be probed (`why` says why). */
  readonly alive: boolean | null;
  /** Milliseconds of the answering request (of the last one when not alive); null when not probed. */
  readonly latencyMs: number | null;
  /** Why it is not alive, or not probed; null when alive. */
  readonly why: string | null;
}

/** The whole status document. */
export interface StatusDocument {
  readonly statusFormat: typeof STATUS_FORMAT;
  /** mirrorc's version. */
  readonly mirrorcVersion: string;
  /** The exit code (docs/status.md): the first problem class found, in the documented order. */
  readonly exitCode: number;
  readonly sources: readonly SourceStatus[];
  readonly targets: readonly TargetStatus[];
  /** Every problem found, sorted by class, cluster and mirror. */
  readonly problems: readonly StatusProblem[];
}
