/**
 * Name and value predicates of the Kubernetes API, in one neutral place: the lock schema, the
 * observation boundary, compile and emit all judge a name by the same rule. Each returns why a
 * value is unacceptable, in plain words that quote the value, or undefined when it is fine.
 */
import { isIP } from 'node:net';
import { targetText } from './printable-text.js';

const DNS_1123_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
const DNS_1035_LABEL = /^[a-z]([-a-z0-9]*[a-z0-9])?$/;
const DNS_1123_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
const QUALIFIED_NAME_PART = /^[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?$/;
const IANA_SERVICE_NAME = /^[a-z0-9]([a-z0-9-]*[a-z0-9])?$/;

/** The Service protocols Kubernetes accepts. */
export const SERVICE_PROTOCOLS: readonly string[] = ['TCP', 'UDP', 'SCTP'];
/** The Service types Kubernetes accepts. */
export const SERVICE_TYPES: readonly string[] = ['ClusterIP', 'NodePort', 'LoadBalancer', 'ExternalName'];

/**
 * A value quoted for a message: JSON, so a newline or a quote shows as an escape, cut when long; as
 * {@link targetText}, so no control, bidi or CI command of a name a target returned reaches a log.
 */
export function quote(value: unknown): string {
  const text = targetText(JSON.stringify(value) ?? String(value));
  return text.length > 80 ? `${text.slice(0, 77)}...` : text;
}

function isString(value: unknown): value is string {
  return typeof value === 'string';
}

/** Why `value` is not a DNS-1123 label (namespaces, cluster names, pod hostnames, file-name parts); `what` names it. */
export function dns1123LabelProblem(value: unknown, what = 'name'): string | undefined {
  if (isString(value) && value.length <= 63 && DNS_1123_LABEL.test(value)) return undefined;
  return `${quote(value)} is not a valid ${what} (a DNS-1123 label: at most 63 lower-case letters, digits and '-', starting and ending with a letter or digit)`;
}

/** Why `value` is not a DNS-1035 label (Service names); `what` names it. */
export function dns1035LabelProblem(value: unknown, what = 'Service name'): string | undefined {
  if (isString(value) && value.length <= 63 && DNS_1035_LABEL.test(value)) return undefined;
  return `${quote(value)} is not a valid ${what} (a DNS-1035 label: at most 63 lower-case letters, digits and '-', starting with a letter, ending with a letter or digit)`;
}

/** Why `value` is not a DNS-1123 subdomain (TLS identities, domains); `what` names it. */
export function dns1123SubdomainProblem(value: unknown, what = 'name'): string | undefined {
  if (isString(value) && value.length <= 253 && DNS_1123_SUBDOMAIN.test(value)) return undefined;
  return `${quote(value)} is not a valid ${what} (a DNS-1123 subdomain: at most 253 characters, dot-separated DNS labels)`;
}

/** Why `value` is not a namespace name. */
export function namespaceNameProblem(value: unknown): string | undefined {
  return dns1123LabelProblem(value, 'namespace name');
}

/** Why `value` is not a Service name. */
export function serviceNameProblem(value: unknown): string | undefined {
  return dns1035LabelProblem(value, 'Service name');
}

/** Why `value` is not a cluster name (the mirror-name suffix and the `dist/` folder). */
export function clusterNameProblem(value: unknown): string | undefined {
  return dns1123LabelProblem(value, 'cluster name');
}

/** Why `value` is not a port number (an integer 1-65535). */
export function portNumberProblem(value: unknown): string | undefined {
  if (typeof value === 'number' && Number.isInteger(value) && value >= 1 && value <= 65535) return undefined;
  return `${quote(value)} is not a port number (an integer from 1 to 65535)`;
}

/** Why `value` is not an IANA service name (a named port: at most 15 characters, a letter among them, no '--'). */
export function ianaServiceNameProblem(value: unknown): string | undefined {
  if (isString(value) && value.length <= 15 && IANA_SERVICE_NAME.test(value) && /[a-z]/.test(value) && !value.includes('--')) return undefined;
  return `${quote(value)} is not a port name (an IANA service name: at most 15 lower-case letters, digits and '-', with a letter, no '--')`;
}

/** Why `value` is not a Service port's targetPort (a port number or an IANA service name). */
export function targetPortProblem(value: unknown): string | undefined {
  if (typeof value === 'number') return portNumberProblem(value);
  if (isString(value)) return ianaServiceNameProblem(value) === undefined ? undefined : `${quote(value)} is not a targetPort (a port number 1-65535 or an IANA service name)`;
  return `${quote(value)} is not a targetPort (a port number 1-65535 or an IANA service name)`;
}

/** Why `value` is not the name of a Service or endpoint port (empty, or a DNS-1123 label). */
export function portNameProblem(value: unknown): string | undefined {
  if (value === '') return undefined;
  return dns1123LabelProblem(value, 'port name');
}

/** Why `value` is not a protocol Kubernetes accepts. */
export function protocolProblem(value: unknown): string | undefined {
  if (isString(value) && SERVICE_PROTOCOLS.includes(value)) return undefined;
  return `${quote(value)} is not a protocol (one of ${SERVICE_PROTOCOLS.join(', ')})`;
}

/** Why `value` is not a qualified name (`[prefix/]name`: label and annotation keys, appProtocol). */
export function qualifiedNameProblem(value: unknown, what = 'key'): string | undefined {
  // The message is built only for a bad value: label and annotation keys are checked by the hundred thousand.
  const bad = (): string => `${quote(value)} is not a valid ${what} (a qualified name: an optional DNS-subdomain prefix and '/', then at most 63 letters, digits, '-', '_' or '.', starting and ending with a letter or digit)`;
  if (!isString(value)) return bad();
  const slash = value.indexOf('/');
  const prefix = slash >= 0 ? value.slice(0, slash) : undefined;
  const name = slash >= 0 ? value.slice(slash + 1) : value;
  if (prefix !== undefined && (prefix.length === 0 || prefix.length > 253 || !DNS_1123_SUBDOMAIN.test(prefix))) return bad();
  if (name.length === 0 || name.length > 63 || !QUALIFIED_NAME_PART.test(name)) return bad();
  return undefined;
}

/** Why `value` is not a label key. */
export function labelKeySyntaxProblem(value: unknown): string | undefined {
  return qualifiedNameProblem(value, 'label key');
}

/** Why `value` is not an annotation key. */
export function annotationKeySyntaxProblem(value: unknown): string | undefined {
  return qualifiedNameProblem(value, 'annotation key');
}

/** Why `value` is not a label value (empty, or at most 63 letters, digits, '-', '_', '.'). */
export function labelValueSyntaxProblem(value: unknown): string | undefined {
  if (value === '') return undefined;
  if (isString(value) && value.length <= 63 && QUALIFIED_NAME_PART.test(value)) return undefined;
  return `${quote(value)} is not a valid label value (empty, or at most 63 letters, digits, '-', '_' or '.', starting and ending with a letter or digit)`;
}

/** Why `value` is not an IP address literal (IPv4 or IPv6, no zone, no host name). */
export function ipLiteralProblem(value: unknown): string | undefined {
  if (isString(value) && isIP(value) !== 0 && !value.includes('%')) return undefined;
  return `${quote(value)} is not an IP address`;
}

/** The most bytes of annotations (keys and values together) the Kubernetes API accepts on one object (apimachinery's TotalAnnotationSizeLimitB). */
export const KUBERNETES_ANNOTATIONS_LIMIT_BYTES = 256 * 1024;

/** Room left, of that limit, for the labels and annotations mirrorc adds to a mirror of an observed object. */
export const MIRROR_METADATA_RESERVE_BYTES = 8 * 1024;

/** The most bytes of labels and annotations together that an observed object may hold for its mirror to carry them. */
export const COPIED_METADATA_LIMIT_BYTES = KUBERNETES_ANNOTATIONS_LIMIT_BYTES - MIRROR_METADATA_RESERVE_BYTES;

/** Bytes of a label or annotation map as the API counts them: each key and value in UTF-8. */
export function metadataBytes(record: Readonly<Record<string, unknown>> | undefined): number {
  let bytes = 0;
  for (const [key, value] of Object.entries(record ?? {})) bytes += Buffer.byteLength(key) + (typeof value === 'string' ? Buffer.byteLength(value) : 0);
  return bytes;
}

/**
 * Why an observed object's labels and annotations cannot be carried onto a mirror: together more
 * than the API's 256 KiB annotation limit less the room mirrorc's own metadata needs, so the source
 * API server would refuse the mirror.
 */
export function copiedMetadataSizeProblem(labels: Readonly<Record<string, unknown>> | undefined, annotations: Readonly<Record<string, unknown>> | undefined): string | undefined {
  const bytes = metadataBytes(labels) + metadataBytes(annotations);
  const limit = COPIED_METADATA_LIMIT_BYTES;
  if (bytes <= limit) return undefined;
  return `labels and annotations together hold ${bytes} bytes, more than the ${limit} a mirror can carry (Kubernetes refuses more than ${KUBERNETES_ANNOTATIONS_LIMIT_BYTES} bytes of annotations on an object, and mirrorc adds its own)`;
}
