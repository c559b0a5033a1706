/**
 * Who owns each mirror Service in the current output (`dist/`), read from the mirror Service files
 * themselves: the `mirror.linkerd.io/cluster-name` label names the target and the
 * `mirror.linkerd.io/remote-svc-fq-name` annotation the remote service. Compile takes this as data
 * (it stays pure), so that in a name clash between two target services the existing mirror keeps
 * its name and a newcomer cannot take it over.
 */
import YAML from 'yaml';
import { REMOTE_CLUSTER_NAME_LABEL, REMOTE_SVC_FQ_NAME_ANNOTATION } from '../contract/linkerd.js';
import { MCS_SERVICE_NAME_LABEL, MCS_SOURCE_CLUSTER_LABEL } from '../contract/kubernetes.js';
import { clusterNameProblem, dns1123LabelProblem } from '../util/k8s-names.js';

/** The origin `target/namespace/service` of a mirror Service object, or undefined when it is not one. */
export function mirrorOrigin(object: unknown): string | undefined {
  const metadata = (object as { kind?: unknown; metadata?: { labels?: Record<string, unknown>; annotations?: Record<string, unknown> } } | null)?.metadata;
  if ((object as { kind?: unknown } | null)?.kind !== 'Service' || !metadata) return undefined;
  const target = metadata.labels?.[REMOTE_CLUSTER_NAME_LABEL];
  const fqName = metadata.annotations?.[REMOTE_SVC_FQ_NAME_ANNOTATION];
  if (typeof target !== 'string' || typeof fqName !== 'string' || clusterNameProblem(target)) return undefined;
  // `<svc>.<ns>.svc.<domain>`, or `<pod>.<svc>.<ns>.svc.<domain>` for a per-pod mirror.
  const head = fqName.split('.svc.')[0]?.split('.') ?? [];
  const [service, namespace] = head.slice(-2);
  if (head.length < 2 || dns1123LabelProblem(service) || dns1123LabelProblem(namespace)) return undefined;
  return `${target}/${namespace}/${service}`;
}

/**
 * A lookup of the owner of one mirror Service in `tree` that parses only the file it is asked about:
 * compile asks only when two services claim one name, so a large output is not parsed for nothing.
 */
export function previousOwnerLookup(tree: ReadonlyMap<string, string>): (source: string, key: string) => string | undefined {
  let index: Map<string, string> | undefined;
  return (source, key) => {
    const [namespace, name] = key.split('/');
    // The file may sit in any unit folder (or directly in the cluster folder, before units): indexed once, on the first clash.
    index ??= serviceFileIndex(tree);
    const path = index.get(`${source}/${namespace}/service-${name}.yaml`);
    const text = path === undefined ? undefined : tree.get(path);
    if (text === undefined) return undefined;
    let object: unknown;
    try {
      object = YAML.parse(text);
    } catch {
      return undefined;
    }
    return (object as { metadata?: { name?: unknown } } | null)?.metadata?.name === name ? mirrorOrigin(object) : undefined;
  };
}

/** The value of the metadata line `    <key>: <value>` of a generated file (the writer's fixed indent), unquoted, or undefined. */
function metadataValue(text: string, key: string): string | undefined {
  const at = text.indexOf(`\n    ${key}: `);
  if (at < 0) return undefined;
  const start = at + key.length + 7;
  const end = text.indexOf('\n', start);
  const raw = text.slice(start, end < 0 ? undefined : end).trim();
  return raw.startsWith('"') && raw.endsWith('"') && raw.length >= 2 ? raw.slice(1, -1) : raw;
}

const MCS_SLICE_FILE = /^[^/]+\/(?:[^/]+\/)?([^/]+)\/endpointslice-.+-mcs-ipv[46](?:-\d+)?\.yaml$/;
const SERVICE_FILE = /^[^/]+\/(?:[^/]+\/){0,2}service-[^/]+\.yaml$/;

/**
 * A lookup of whether the current output holds a mirror of `target/namespace/service` in any source
 * (a Linkerd mirror Service, or an MCS import's EndpointSlices of that cluster). It scans the files'
 * label lines on the first question only: compile asks only when two services claim one generic
 * gateway port, and the established one keeps it.
 */
export function previousMirrorLookup(tree: ReadonlyMap<string, string>): (origin: string) => boolean {
  let origins: Set<string> | undefined;
  return (origin) => {
    if (!origins) {
      origins = new Set();
      for (const [path, text] of tree) {
        if (SERVICE_FILE.test(path)) {
          const target = metadataValue(text, REMOTE_CLUSTER_NAME_LABEL);
          const fqName = metadataValue(text, REMOTE_SVC_FQ_NAME_ANNOTATION);
          const [service, namespace] = fqName?.split('.svc.')[0]?.split('.').slice(-2) ?? [];
          if (target && service && namespace) origins.add(`${target}/${namespace}/${service}`);
          continue;
        }
        const slice = MCS_SLICE_FILE.exec(path);
        if (!slice) continue;
        const cluster = metadataValue(text, MCS_SOURCE_CLUSTER_LABEL);
        const service = metadataValue(text, MCS_SERVICE_NAME_LABEL);
        if (cluster && service) origins.add(`${cluster}/${slice[1]}/${service}`);
      }
    }
    return origins.has(origin);
  };
}

/** `<source>/<namespace>/service-<name>.yaml` → the file's path in `tree` (`<source>/<unit>/<namespace>/…` or the older `<source>/<namespace>/…`). */
function serviceFileIndex(tree: ReadonlyMap<string, string>): Map<string, string> {
  const index = new Map<string, string>();
  for (const path of tree.keys()) {
    const parts = path.split('/');
    if (parts.length < 3 || !parts[parts.length - 1]!.startsWith('service-')) continue;
    index.set(`${parts[0]}/${parts[parts.length - 2]}/${parts[parts.length - 1]}`, path);
  }
  return index;
}
