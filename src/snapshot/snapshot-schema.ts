/**
 * The observation snapshot's schema — the one description of the lock's observed part: every field,
 * its type, its meaning and, for names, the Kubernetes syntax (src/util/k8s-names.ts). The snapshot's
 * types are inferred from it (src/snapshot/snapshot.ts), the lock is validated by it
 * (src/observe/lock-schema.ts names its problems), and the lock's one-pass check is derived from it
 * (src/util/schema-acceptor.ts). Objects are strict: a field this version does not write is an error,
 * not silently dropped on the next write (see docs/safety/boundary-validation.md), so a hand-edited,
 * merged or hostile lock never reaches compile or emit. Observation validates what it reads with
 * these same schemas, so a snapshot it writes always reads back.
 */
import { z } from 'zod';
import { acceptsWhen, recordAcceptor, refinedBy } from '../util/schema-acceptor.js';
import {
  COPIED_METADATA_LIMIT_BYTES,
  SERVICE_TYPES,
  annotationKeySyntaxProblem,
  copiedMetadataSizeProblem,
  clusterNameProblem,
  dns1123LabelProblem,
  dns1123SubdomainProblem,
  ipLiteralProblem,
  labelKeySyntaxProblem,
  labelValueSyntaxProblem,
  namespaceNameProblem,
  portNameProblem,
  portNumberProblem,
  protocolProblem,
  qualifiedNameProblem,
  quote,
  serviceNameProblem,
  targetPortProblem,
} from '../util/k8s-names.js';

/** Version of the snapshot format; bumped on incompatible changes. */
export const SNAPSHOT_FORMAT = 1;

/** A value checked by one of the name predicates (which returns the problem, or undefined). */
function checked<T>(problem: (value: unknown) => string | undefined): z.ZodType<T> {
  const schema: z.ZodType<T> = z.custom<T>().superRefine((value, ctx) => {
    const p = problem(value);
    if (p !== undefined) ctx.addIssue({ code: 'custom', message: p });
  });
  return acceptsWhen(schema, problem);
}

/** Why `value` is not a string; `what` names what it should be. */
export const textProblem = (what: string) => (v: unknown): string | undefined => (typeof v === 'string' ? undefined : `${quote(v)} is not ${what} (a string)`);
/** Why `value` is not a pod hostname. */
export const hostnameProblem = (v: unknown): string | undefined => dns1123LabelProblem(v, 'pod hostname');
/** Why `value` is not a Service type. */
export const serviceTypeProblem = (v: unknown): string | undefined => (typeof v === 'string' && SERVICE_TYPES.includes(v) ? undefined : `${quote(v)} is not a Service type (one of ${SERVICE_TYPES.join(', ')})`);
/** Why `value` is not an endpoint port's appProtocol. */
export const appProtocolProblem = (v: unknown): string | undefined => qualifiedNameProblem(v, 'appProtocol');
/** Why `value` is not a gateway's TLS identity. */
export const gatewayIdentityProblem = (v: unknown): string | undefined => dns1123SubdomainProblem(v, 'gateway identity');
/** Why `value` is not the Linkerd cluster name of a foreign Service. */
export const linkerdClusterProblem = (v: unknown): string | undefined => dns1123LabelProblem(v, 'cluster name');
/** Why `value` is not a timestamp (RFC 3339, as the lock writes them). */
export const timestampProblem = (v: unknown): string | undefined => (typeof v === 'string' && /^\d{4}-\d{2}-\d{2}T/.test(v) && !Number.isNaN(Date.parse(v)) ? undefined : `${quote(v)} is not a timestamp such as 2025-01-31T12:00:00Z`);
/** Why `value` is not `namespace/name` of a Service. */
export const namespacedNameProblem = (v: unknown): string | undefined => {
  const parts = typeof v === 'string' ? v.split('/') : [];
  if (parts.length === 2 && namespaceNameProblem(parts[0]) === undefined && serviceNameProblem(parts[1]) === undefined) return undefined;
  return `${quote(v)} is not "namespace/name" of a Service`;
};
/** Why `value` is not a trust root's SHA-256 fingerprint. */
export const fingerprintProblem = (v: unknown): string | undefined => (typeof v === 'string' && /^[0-9A-F]{2}(:[0-9A-F]{2}){31}$/.test(v) ? undefined : `${quote(v)} is not a SHA-256 fingerprint (32 upper-case hex pairs joined by ":")`);
/** Why `value` is not a trust root's certificate subject. */
export const certificateSubjectProblem = (v: unknown): string | undefined => (typeof v === 'string' && v.length <= 1024 && !/[\u0000-\u001f]/.test(v) ? undefined : `${quote(v)} is not a certificate subject (one line, at most 1024 characters)`);

const text = (what: string): z.ZodType<string> => checked<string>(textProblem(what));
export const namespace = checked<string>(namespaceNameProblem);
const serviceName = checked<string>(serviceNameProblem);
const hostname = checked<string>(hostnameProblem);
const port = checked<number>(portNumberProblem);
const protocol = checked<string>(protocolProblem);
export const ip = checked<string>(ipLiteralProblem);
export const timestamp = checked<string>(timestampProblem);
export const namespacedName = checked<string>(namespacedNameProblem);

/** A record whose keys pass `keyProblem` and whose values pass `value`. */
export function recordOf<V extends z.ZodType>(keyProblem: (key: string) => string | undefined, value: V) {
  // zod's record leaves a `__proto__` key out of what it checks, but JSON.parse makes it an own key
  // of the object the lock is read into: it is checked here, on the input, like every other key.
  const schema = z
    .unknown()
    .superRefine((raw, ctx) => {
      if (typeof raw === 'object' && raw !== null && Object.hasOwn(raw, '__proto__')) {
        ctx.addIssue({ code: 'custom', path: ['__proto__'], message: `key ${keyProblem('__proto__') ?? 'is not allowed'}` });
      }
    })
    .pipe(
      z.record(z.string(), value).superRefine((record, ctx) => {
        for (const key of Object.keys(record)) {
          const p = keyProblem(key);
          if (p !== undefined) ctx.addIssue({ code: 'custom', path: [key], message: `key ${p}` });
        }
      }),
    );
  return recordAcceptor(schema, keyProblem, value);
}

const labels = recordOf(labelKeySyntaxProblem, checked<string>(labelValueSyntaxProblem));
const annotations = recordOf(annotationKeySyntaxProblem, text('an annotation value'));

/** A Service port as the target defines it. */
export const observedPortSchema = z.strictObject({
  name: checked<string>(portNameProblem),
  protocol,
  port,
  /** Verbatim: a number or a named container port. */
  targetPort: checked<number | string>(targetPortProblem).optional(),
});

/** A port of a Service's endpoints: the container port the pods listen on. */
export const observedEndpointPortSchema = z.strictObject({
  name: checked<string>(portNameProblem),
  protocol,
  port,
  appProtocol: checked<string>(appProtocolProblem).optional(),
});

/**
 * UTF-8 takes at most 3 bytes per UTF-16 code unit (a surrogate pair is 4 bytes for 2 units), so
 * labels and annotations of at most this many code units certainly fit; more are counted in bytes
 * by copiedMetadataSizeProblem itself.
 */
const COPIED_METADATA_LIMIT_UNITS = Math.floor(COPIED_METADATA_LIMIT_BYTES / 3);

/** Whether a Service's labels and annotations certainly fit on its mirror (the schema's refinement; the bound spares counting bytes). */
function copiedMetadataFits(svc: { readonly labels: Readonly<Record<string, string>>; readonly annotations: Readonly<Record<string, string>> }): boolean {
  let units = 0;
  for (const record of [svc.labels, svc.annotations]) for (const key of Object.keys(record)) units += key.length + record[key]!.length;
  return units <= COPIED_METADATA_LIMIT_UNITS || copiedMetadataSizeProblem(svc.labels, svc.annotations) === undefined;
}

/** An exported Service of a target cluster (or a source's own member Service): the same checks at the observation boundary. */
export const observedServiceSchema = refinedBy(z.strictObject({
  namespace,
  name: serviceName,
  /** Sorted by key. GitOps tracking keys are already stripped. */
  labels,
  /** Sorted by key. GitOps tracking keys and kubectl's last-applied record are already stripped. */
  annotations,
  /** `ClusterIP`, `NodePort`, `LoadBalancer` or `ExternalName`. */
  type: checked<string>(serviceTypeProblem),
  /** `clusterIP: None`. */
  headless: z.boolean(),
  /** In the order the Service lists them (order is meaningful to users, names are unique). */
  ports: z.array(observedPortSchema),
  /** Exported by an ExplicitExport rather than by a label. */
  explicit: z.literal(true).optional(),
  /** Named by a `ServiceExport` object of the MCS API (same namespace and name): exported to the target's MCS links whatever its labels. */
  serviceExport: z.literal(true).optional(),
  /**
   * Headless services only: the hostnames of its endpoints (StatefulSet pods), sorted. Every
   * endpoint with a hostname counts, ready or not: the set follows the StatefulSet's pods, and
   * readiness churn stays out of git (liveness is the gateway's job).
   */
  hostnames: z.array(hostname).optional(),
  /** Headless services only: the ports of its endpoints (container ports), sorted by name and port. */
  endpointPorts: z.array(observedEndpointPortSchema).optional(),
  /** The Service's pod selector, recorded only for a source's own `-global` members (sorted). */
  selector: labels.optional(),
  /**
   * Whether any of its EndpointSlices has a ready endpoint: a boolean, never addresses, so pod churn
   * stays out of git. Written only as `false` (no ready endpoint); absent means ready, which is also
   * how locks from before this field read. A service with no EndpointSlice at all counts as ready.
   */
  hasReadyEndpoints: z.boolean().optional(),
  /**
   * Headless services only: the hostnames (of `hostnames`) whose endpoints are not ready, sorted.
   * Recorded only while a link to this target sets `followPodReadiness`, and absent when every pod is ready.
   */
  notReadyHostnames: z.array(hostname).optional(),
}).superRefine((svc, ctx) => {
  // What a source API server would refuse on the mirror never enters the lock or dist/.
  const p = copiedMetadataSizeProblem(svc.labels, svc.annotations);
  if (p !== undefined) ctx.addIssue({ code: 'custom', path: ['annotations'], message: p });
}), copiedMetadataFits);

/** Where a target's gateway receives multicluster traffic: IP literals (host names are resolved before the lock), a port, an identity. */
export const observedGatewaySchema = z.strictObject({
  /** IP addresses, host names already resolved, sorted. */
  addresses: z.array(ip),
  port,
  /** TLS identity; absent when neither the Service nor the model gives one. */
  identity: checked<string>(gatewayIdentityProblem).optional(),
});

/** What synth's probe of a target's gateway found (see `gateway.probe` of the model). */
export const observedGatewayProbeSchema = z.strictObject({
  /** `false` when every probe attempt failed (Linkerd's failure threshold reached). */
  alive: z.boolean(),
});

/**
 * One trust root (trust anchor) of a cluster's Linkerd identity, as read from its
 * `linkerd-identity-trust-roots` ConfigMap. Only these three facts are kept: never the certificate.
 */
export const observedTrustRootSchema = z.strictObject({
  /** SHA-256 of the certificate's DER encoding, as upper-case hex pairs joined by `:` (what `openssl x509 -fingerprint -sha256` prints). */
  fingerprint: checked<string>(fingerprintProblem),
  /** The subject's distinguished name, its parts joined by `, ` (e.g. `CN=root.linkerd.cluster.local`). */
  subject: checked<string>(certificateSubjectProblem),
  /** End of validity, ISO 8601 in UTC (`2027-01-31T12:00:00.000Z`). */
  notAfter: timestamp,
});

/** What was observed of a cluster in its role as a link target. */
export const targetSnapshotSchema = z.strictObject({
  /** The label selectors (query form, sorted) whose services this snapshot holds. */
  selectors: z.array(text('a label selector')),
  /** Services exported by any selector, explicit export or (for MCS links) ServiceExport object, sorted by namespace and name. */
  services: z.array(observedServiceSchema),
  /** Explicit exports (`namespace/name`) that do not exist in the target, sorted. */
  missingExplicitExports: z.array(namespacedName),
  /** The target's ServiceExport objects were listed (some MCS link reads them); absent in locks from before, or when no link does. */
  serviceExportsListed: z.literal(true).optional(),
  /** The gateway, or absent when it has no usable address yet. */
  gateway: observedGatewaySchema.optional(),
  /** The gateway probe's verdict; recorded only when the target's `gateway.probe.mode` is `not-ready` and the probe failed. */
  gatewayProbe: observedGatewayProbeSchema.optional(),
  /** The cluster's Linkerd trust roots, sorted by fingerprint; absent when not found (or in locks from before the trust-anchor check). */
  trustRoots: z.array(observedTrustRootSchema).optional(),
});

/** A Service of a source cluster that is not ours and whose name a mirror could take. */
export const foreignServiceSchema = z.strictObject({
  namespace,
  name: serviceName,
  /**
   * Written by Linkerd's service-mirror controller: the value of its `mirror.linkerd.io/cluster-name`
   * label, on a Service also labelled `mirror.linkerd.io/mirrored-service=true`. A link to that
   * target with `adoptLinkerdMirrors` takes the Service over instead of refusing its name.
   * Absent for any other Service.
   */
  linkerdCluster: checked<string>(linkerdClusterProblem).optional(),
  /** Its ClusterIP, when it has one (not `None`) and `linkerdCluster` is set: an adopted per-pod mirror keeps it. */
  clusterIP: ip.optional(),
  /**
   * Written by Linkerd's service-mirror controller as a federated Service (`<svc>-federated`:
   * `mirror.linkerd.io/mirrored-service=true` and no `cluster-name`, since it spans targets). A
   * federated Service of the same name takes it over when a link of one of its members has
   * `adoptLinkerdMirrors`. Absent for any other Service.
   */
  linkerdFederated: z.literal(true).optional(),
});

/** A live Service of a source whose ClusterIP lies in one of the source's pinned blocks (`pinnedServiceIPRange`, `additionalPinnedServiceIPRanges`). */
export const pinnedRangeServiceSchema = z.strictObject({
  namespace,
  name: serviceName,
  ip,
  /** Written by this compiler (a per-pod mirror of an earlier run). */
  managed: z.boolean(),
});

/** What was observed of a cluster in its role as a link source. */
export const sourceSnapshotSchema = z.strictObject({
  /** All namespace names, sorted. */
  namespaces: z.array(namespace),
  /** Services not written by this compiler whose names end in `-<target>` of a link or in `-federated`, sorted. */
  foreignServices: z.array(foreignServiceSchema),
  /** MCS ServiceImports not written by this compiler (another controller owns them), sorted; absent when none, or when no MCS link mirrors into the cluster. */
  foreignServiceImports: z.array(foreignServiceSchema).optional(),
  /**
   * Live Services holding an IP of the cluster's pinned blocks (`pinnedServiceIPRange`, `additionalPinnedServiceIPRanges`), and this compiler's per-pod
   * mirrors wherever their IP lies (one adopted from Linkerd's controller keeps the IP the source gave
   * it), sorted by IP text; absent when no range is declared.
   */
  pinnedRangeServices: z.array(pinnedRangeServiceSchema).optional(),
  /** The source's own headless services labelled `mirrorc.io/global=true`, with hostnames and selector; absent when none. */
  globalMembers: z.array(observedServiceSchema).optional(),
  /** The cluster's `localFederatedSelector` (query form) that `federatedMembers` was listed with; absent in locks from before federated mode. */
  federatedSelector: text('a label selector').optional(),
  /** The cluster's own Services matching `federatedSelector`: local members of its federated Services, sorted by namespace and name. */
  federatedMembers: z.array(observedServiceSchema).optional(),
  /**
   * Namespaces labelled `mirrorc.io/managed=true`: created by this compiler for a link with
   * `createMissingNamespaces`. They stay in the output while any mirror lives in them, so they never
   * flap (created, then pruned because they now exist). Sorted; absent when none.
   */
  managedNamespaces: z.array(namespace).optional(),
  /**
   * Targets of which this cluster holds a mirror of ours in Linkerd's endpoint form (labelled
   * `mirrorc.io/endpoint-slices=kubernetes`): their links stay in that form, since leaving it would
   * delete the slice Linkerd's destination reads (src/compile/mirror-slices.ts). Sorted; absent when none.
   */
  kubernetesSlicedTargets: z.array(checked<string>(clusterNameProblem)).optional(),
  /** The cluster's Linkerd trust roots, sorted by fingerprint; absent when not found (or in locks from before the trust-anchor check). */
  trustRoots: z.array(observedTrustRootSchema).optional(),
});

/** First failed observation per cluster and role, as UTC timestamps (`2025-01-31T12:00:00Z`). */
export const staleSinceSchema = z.strictObject({
  /** Target clusters whose exported services come from an older observation. */
  targets: recordOf(clusterNameProblem, timestamp).optional(),
  /** Source clusters whose namespaces and Services come from an older observation. */
  sources: recordOf(clusterNameProblem, timestamp).optional(),
});

/** The whole observation (format 1's lock file); maps are sorted by cluster name. */
export const fleetSnapshotSchema = z.strictObject({
  /** The lock format's version. */
  format: z.literal(SNAPSHOT_FORMAT),
  /** What each target cluster exports, by cluster name. */
  targets: recordOf(clusterNameProblem, targetSnapshotSchema),
  /** What each source cluster holds that compile checks against, by cluster name. */
  sources: recordOf(clusterNameProblem, sourceSnapshotSchema),
  /**
   * Not an observation but compile's memory: the ClusterIP pinned for each per-pod Service, per
   * source cluster, keyed `namespace/name`. Kept in the lock so an IP never moves between runs.
   */
  pinnedServiceIPs: recordOf(clusterNameProblem, recordOf(namespacedNameProblem, ip)).optional(),
  /** When clusters that could not be observed were first found so; absent while every cluster answers. Compile ignores it. */
  staleSince: staleSinceSchema.optional(),
});
