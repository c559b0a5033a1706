/**
 * Why a target service is, or is not, mirrored into a source: one stable code per reason that
 * `mirrorc explain` (and `plan`, for removals) can give. The codes are data, for `--json` and for
 * the diagnostics table; each carries the fact it stands for in its JSDoc.
 */
export const ExplainReason = {
  /** The service is mirrored into the source (in the mode given next to it). */
  MIRRORED: 'mirrored',
  /** No link has the service's cluster as its target. */
  NO_LINK: 'no-link',
  /** The target has never been observed successfully: nothing of it is in the lock. */
  TARGET_NOT_OBSERVED: 'target-not-observed',
  /** The target could not be observed lately: it is compiled from its last observation (stale but safe). */
  TARGET_STALE: 'target-stale',
  /** The lock lists no such service: none of the links' selectors matched it when the target was last observed (an export label missing or removed), or it does not exist. */
  NOT_EXPORTED: 'not-exported',
  /** An explicit export names a service that the target does not have. */
  EXPLICIT_EXPORT_MISSING: 'explicit-export-missing',
  /** The lock holds no observation with this link's selector (the link changed since the last live run). */
  SELECTOR_NOT_OBSERVED: 'selector-not-observed',
  /** The service is observed (another link's selector matched it), but none of this link's selectors do. */
  SELECTOR_NOT_MATCHED: 'selector-not-matched',
  /** The link's namespace filter (include / exclude) leaves the service's namespace out. */
  NAMESPACE_FILTERED: 'namespace-filtered',
  /** The service's namespace, or its mirror's, is a system namespace and the link does not set mirrorSystemNamespaces. */
  SYSTEM_NAMESPACE: 'system-namespace',
  /** The mirror's namespace does not exist in the source and the link does not set createMissingNamespaces. */
  SOURCE_NAMESPACE_MISSING: 'source-namespace-missing',
  /** The link's clusters share no Linkerd trust root: the whole link is left out. */
  TRUST_ANCHORS_DIFFER: 'trust-anchors-differ',
  /** No gateway address is known for the target, so its gateway-mode mirrors are not compiled. */
  NO_GATEWAY: 'no-gateway',
  /** The mirror's name would be longer than Kubernetes allows. */
  NAME_TOO_LONG: 'name-too-long',
  /** The mirror's name would not be a valid Service name. */
  NAME_INVALID: 'name-invalid',
  /** Another mirror claims the same name in the source. */
  NAME_CLASH: 'name-clash',
  /** A Service not written by mirrorc already has the mirror's name in the source. */
  NAME_TAKEN: 'name-taken',
  /** No pinned ClusterIP could be had for a per-pod mirror. */
  PINNED_IP_UNAVAILABLE: 'pinned-ip-unavailable',
  /** Compile skipped the service for another reason (its warning says which). */
  SKIPPED: 'skipped',
  /** The mirror takes over, in place, a Service that Linkerd's service-mirror controller wrote. */
  ADOPTED_FROM_LINKERD: 'adopted-from-linkerd',
  /** The target service has no ready endpoint: its mirror's endpoints are empty. */
  NOT_READY: 'not-ready',
  /** The target's gateway failed its probe (mode not-ready): its gateway-mode mirrors are written not ready. */
  GATEWAY_PROBE_FAILED: 'gateway-probe-failed',
  /** Some pods of a per-pod (StatefulSet) mirror are not ready and are left out. */
  PODS_NOT_READY: 'pods-not-ready',
  /** (plan and synth, for a removed file) The mirror is not removed: it moved to another unit folder of the source (its delivery unit changed). */
  MOVED: 'moved',
  /** The link mirrors the service into a federated Service `<svc>-federated`. */
  FEDERATED_MEMBER: 'federated-member',
} as const;

/** One reason code. */
export type ExplainReason = (typeof ExplainReason)[keyof typeof ExplainReason];
