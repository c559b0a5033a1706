/**
 * The lock file's schema: every field of {@link FleetSnapshot}, its type and, for names, the
 * Kubernetes syntax (src/util/k8s-names.ts), so a hand-edited, merged or hostile lock never
 * reaches compile or emit. Objects are strict: a field this version does not write is an error,
 * not silently dropped on the next write (see docs/safety/boundary-validation.md).
 *
 * Observation validates what it reads with these same schemas, so a snapshot it writes always
 * reads back.
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
import {
  SNAPSHOT_FORMAT,
  type FleetSnapshot,
  type ForeignService,
  type ObservedEndpointPort,
  type ObservedGateway,
  type ObservedGatewayProbe,
  type ObservedPort,
  type ObservedService,
  type ObservedTrustRoot,
  type PinnedRangeService,
  type SourceSnapshot,
  type StaleSince,
  type TargetSnapshot,
} from '../snapshot/snapshot.js';

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

const observedPort = z.strictObject({
  name: checked<string>(portNameProblem),
  protocol,
  port,
  targetPort: checked<number | string>(targetPortProblem).optional(),
});

const observedEndpointPort = z.strictObject({
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

/** One observed Service, of a target or of a source (the same checks at the observation boundary). */
export const observedServiceSchema = refinedBy(z.strictObject({
  namespace,
  name: serviceName,
  labels,
  annotations,
  type: checked<string>(serviceTypeProblem),
  headless: z.boolean(),
  ports: z.array(observedPort),
  explicit: z.literal(true).optional(),
  serviceExport: z.literal(true).optional(),
  hostnames: z.array(hostname).optional(),
  endpointPorts: z.array(observedEndpointPort).optional(),
  selector: labels.optional(),
  hasReadyEndpoints: z.boolean().optional(),
  notReadyHostnames: z.array(hostname).optional(),
}).superRefine((svc, ctx) => {
  // What a source API server would refuse on the mirror never enters the lock or dist/.
  const p = copiedMetadataSizeProblem(svc.labels, svc.annotations);
  if (p !== undefined) ctx.addIssue({ code: 'custom', path: ['annotations'], message: p });
}), copiedMetadataFits);

/** A target's gateway: IP literals (host names are resolved before the lock), a port, an identity. */
export const observedGatewaySchema = z.strictObject({
  addresses: z.array(ip),
  port,
  identity: checked<string>(gatewayIdentityProblem).optional(),
});

/** The gateway probe's verdict. */
export const observedGatewayProbeSchema = z.strictObject({ alive: z.boolean() });
/** A trust root: a SHA-256 fingerprint, a subject and an expiry; nothing else of the certificate. */
export const observedTrustRootSchema = z.strictObject({
  fingerprint: checked<string>(fingerprintProblem),
  subject: checked<string>(certificateSubjectProblem),
  notAfter: timestamp,
});

export const targetSnapshotSchema = z.strictObject({
  selectors: z.array(text('a label selector')),
  services: z.array(observedServiceSchema),
  missingExplicitExports: z.array(namespacedName),
  serviceExportsListed: z.literal(true).optional(),
  gateway: observedGatewaySchema.optional(),
  gatewayProbe: observedGatewayProbeSchema.optional(),
  trustRoots: z.array(observedTrustRootSchema).optional(),
});

/** A Service of a source that a mirror's name could take. */
export const foreignServiceSchema = z.strictObject({ namespace, name: serviceName, linkerdCluster: checked<string>(linkerdClusterProblem).optional(), clusterIP: ip.optional(), linkerdFederated: z.literal(true).optional() });

/** A live Service of a source inside its pinned range. */
export const pinnedRangeServiceSchema = z.strictObject({ namespace, name: serviceName, ip, managed: z.boolean() });

export const sourceSnapshotSchema = z.strictObject({
  namespaces: z.array(namespace),
  foreignServices: z.array(foreignServiceSchema),
  foreignServiceImports: z.array(foreignServiceSchema).optional(),
  pinnedRangeServices: z.array(pinnedRangeServiceSchema).optional(),
  globalMembers: z.array(observedServiceSchema).optional(),
  federatedSelector: text('a label selector').optional(),
  federatedMembers: z.array(observedServiceSchema).optional(),
  managedNamespaces: z.array(namespace).optional(),
  kubernetesSlicedTargets: z.array(checked<string>(clusterNameProblem)).optional(),
  trustRoots: z.array(observedTrustRootSchema).optional(),
});

/** The whole lock file. */
export const fleetSnapshotSchema = z.strictObject({
  format: z.literal(SNAPSHOT_FORMAT),
  targets: recordOf(clusterNameProblem, targetSnapshotSchema),
  sources: recordOf(clusterNameProblem, sourceSnapshotSchema),
  pinnedServiceIPs: recordOf(clusterNameProblem, recordOf(namespacedNameProblem, ip)).optional(),
  staleSince: z.strictObject({ targets: recordOf(clusterNameProblem, timestamp).optional(), sources: recordOf(clusterNameProblem, timestamp).optional() }).optional(),
});

/** At most this many problems are listed; the rest are counted. */
export const MAX_LISTED_PROBLEMS = 20;

/** `$.targets.paris.services[3].namespace`: where in the lock a problem is. */
export function jsonPath(path: readonly PropertyKey[]): string {
  let out = '$';
  for (const part of path) {
    if (typeof part === 'number') out += `[${part}]`;
    else if (typeof part === 'string' && /^[A-Za-z_][A-Za-z0-9_-]*$/.test(part)) out += `.${part}`;
    else out += `[${JSON.stringify(String(part))}]`;
  }
  return out;
}

/** One issue as a plain line: its JSON path and what is wrong. */
function issueLine(issue: z.core.$ZodIssue, prefix: readonly PropertyKey[]): string {
  const where = jsonPath([...prefix, ...issue.path]);
  switch (issue.code) {
    case 'invalid_type':
      return `${where}: ${issue.input === undefined ? 'is missing' : `${quote(issue.input)} is not ${article(issue.expected)}`}`;
    case 'unrecognized_keys':
      return `${where}: unknown field${issue.keys.length === 1 ? '' : 's'} ${issue.keys.map((k) => quote(k)).join(', ')} (this version of mirrorc never writes ${issue.keys.length === 1 ? 'it' : 'them'}; remove ${issue.keys.length === 1 ? 'it' : 'them'})`;
    case 'invalid_value':
      return `${where}: ${quote(issue.input)} is not ${issue.values.map((v) => quote(v)).join(' or ')}`;
    default:
      return `${where}: ${issue.message}`;
  }
}

function article(expected: string): string {
  return /^[aeiou]/.test(expected) ? `an ${expected}` : `a ${expected}`;
}

/** Every problem of `value` against `schema`, one line each with its JSON path (below `prefix`), at most {@link MAX_LISTED_PROBLEMS} plus a count. */
export function schemaProblems(schema: z.ZodType, value: unknown, prefix: readonly PropertyKey[] = []): string[] {
  const result = schema.safeParse(value, { reportInput: true });
  if (result.success) return [];
  const lines = result.error.issues.map((issue) => issueLine(issue, prefix));
  if (lines.length <= MAX_LISTED_PROBLEMS) return lines;
  return [...lines.slice(0, MAX_LISTED_PROBLEMS), `... and ${lines.length - MAX_LISTED_PROBLEMS} more`];
}

// Compile-time guard: a field added to the snapshot types but not to this schema fails `tsc`
// (the strict schema would otherwise reject every lock that carries it).
type SameKeys<A, B> = [Exclude<keyof A, keyof B>, Exclude<keyof B, keyof A>] extends [never, never] ? true : false;
type Element<T> = T extends readonly (infer E)[] ? E : never;
type Target = z.infer<typeof targetSnapshotSchema>;
type Source = z.infer<typeof sourceSnapshotSchema>;
const schemaCoversSnapshot: [
  SameKeys<FleetSnapshot, z.infer<typeof fleetSnapshotSchema>>,
  SameKeys<TargetSnapshot, Target>,
  SameKeys<SourceSnapshot, Source>,
  SameKeys<ObservedService, z.infer<typeof observedServiceSchema>>,
  SameKeys<ObservedGateway, z.infer<typeof observedGatewaySchema>>,
  SameKeys<ObservedGatewayProbe, z.infer<typeof observedGatewayProbeSchema>>,
  SameKeys<ObservedPort, Element<ObservedService['ports']>>,
  SameKeys<ObservedPort, Element<z.infer<typeof observedServiceSchema>['ports']>>,
  SameKeys<ObservedEndpointPort, Element<NonNullable<z.infer<typeof observedServiceSchema>['endpointPorts']>>>,
  SameKeys<ForeignService, z.infer<typeof foreignServiceSchema>>,
  SameKeys<PinnedRangeService, z.infer<typeof pinnedRangeServiceSchema>>,
  SameKeys<ObservedTrustRoot, z.infer<typeof observedTrustRootSchema>>,
  SameKeys<StaleSince, NonNullable<z.infer<typeof fleetSnapshotSchema>['staleSince']>>,
] = [true, true, true, true, true, true, true, true, true, true, true, true, true];
void schemaCoversSnapshot;
