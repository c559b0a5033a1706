/**
 * Who owns each mirror Service in the current output (`dist/`), read from the mirror Service files
 * themselves: the `mirror.linkerd.io/cluster-name` label names the target and the
 * `mirror.linkerd.io/remote-svc-fq-name` annotation the remote service. Compile takes this as data
 * (it stays pure), so that in a name clash between two target services the existing mirror keeps
 * its name and a newcomer cannot take it over.
 */
import YAML from 'yaml';
import { REMOTE_CLUSTER_NAME_LABEL, REMOTE_SVC_FQ_NAME_ANNOTATION } from '../contract/linkerd.js';
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
