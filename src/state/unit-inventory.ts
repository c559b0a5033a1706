/**
 * A delivery unit's inventory: the mirrors it holds, taken from its objects when they are rendered
 * (never read back from `dist/`), and the digest of its files that the integrity check compares.
 */
import { HEADLESS_MIRROR_SVC_NAME_LABEL, REMOTE_CLUSTER_NAME_LABEL, REMOTE_SVC_FQ_NAME_ANNOTATION } from '../contract/linkerd.js';
import { MCS_SERVICE_NAME_LABEL, MCS_SOURCE_CLUSTER_LABEL } from '../contract/kubernetes.js';
import { clusterNameProblem, dns1123LabelProblem } from '../util/k8s-names.js';
import { createHash } from 'node:crypto';
import { compareStrings } from '../util/order.js';
import { folderFilesRecord } from '../emit/folder-files.js';
import type { UnitFiles, UnitRecord } from './lock-document.js';

interface ObjectLike {
  readonly kind?: unknown;
  readonly metadata?: { readonly name?: unknown; readonly namespace?: unknown; readonly labels?: Record<string, unknown>; readonly annotations?: Record<string, unknown> };
}

/** The origin `target/namespace/service` of a mirror Service object, or undefined when it is not one. */
export function mirrorOrigin(object: unknown): string | undefined {
  const metadata = (object as ObjectLike | null)?.metadata;
  if ((object as ObjectLike | null)?.kind !== 'Service' || !metadata) return undefined;
  const target = metadata.labels?.[REMOTE_CLUSTER_NAME_LABEL];
  const fqName = metadata.annotations?.[REMOTE_SVC_FQ_NAME_ANNOTATION];
  if (typeof target !== 'string' || typeof fqName !== 'string' || clusterNameProblem(target)) return undefined;
  // `<svc>.<ns>.svc.<domain>`, or `<pod>.<svc>.<ns>.svc.<domain>` for a per-pod mirror.
  const head = fqName.split('.svc.')[0]?.split('.') ?? [];
  const [service, namespace] = head.slice(-2);
  if (head.length < 2 || dns1123LabelProblem(service) || dns1123LabelProblem(namespace)) return undefined;
  return `${target}/${namespace}/${service}`;
}

const MCS_SLICE_NAME = /^(.+)-mcs-ipv[46](?:-\d+)?$/;

/** The mirror part of a unit record (mirrors, per-pod mirrors, MCS imports) of `objects`. */
export function objectInventory(objects: Iterable<unknown>): Pick<UnitRecord, 'mirrors' | 'podMirrors' | 'imports'> {
  const mirrors: Record<string, string> = {};
  const podMirrors: Record<string, string> = {};
  const imports: Record<string, string> = {};
  for (const object of objects) {
    const o = object as ObjectLike | null;
    const metadata = o?.metadata;
    if (!metadata || typeof metadata.name !== 'string' || typeof metadata.namespace !== 'string') continue;
    const key = `${metadata.namespace}/${metadata.name}`;
    if (o.kind === 'Service') {
      const target = metadata.labels?.[REMOTE_CLUSTER_NAME_LABEL];
      if (typeof target !== 'string' || clusterNameProblem(target)) continue;
      const from = mirrorOrigin(o) ?? target;
      if (metadata.labels?.[HEADLESS_MIRROR_SVC_NAME_LABEL] !== undefined) podMirrors[key] = from;
      else mirrors[key] = from;
    } else if (o.kind === 'EndpointSlice') {
      const cluster = metadata.labels?.[MCS_SOURCE_CLUSTER_LABEL];
      const service = metadata.labels?.[MCS_SERVICE_NAME_LABEL];
      const m = MCS_SLICE_NAME.exec(metadata.name);
      if (typeof cluster !== 'string' || typeof service !== 'string' || !m || clusterNameProblem(cluster) || dns1123LabelProblem(service)) continue;
      imports[`${metadata.namespace}/${m[1]}`] = `${cluster}/${metadata.namespace}/${service}`;
    }
  }
  return {
    ...(Object.keys(mirrors).length > 0 ? { mirrors: sorted(mirrors) } : {}),
    ...(Object.keys(podMirrors).length > 0 ? { podMirrors: sorted(podMirrors) } : {}),
    ...(Object.keys(imports).length > 0 ? { imports: sorted(imports) } : {}),
  };
}

/** The files record of a unit folder from its files' paths (relative to the unit folder) and byte sizes. */
export function filesRecord(sizes: Iterable<readonly [string, number]>): UnitFiles {
  return folderFilesRecord(sizes);
}

/**
 * The content digest of a unit folder (its record's `content`): SHA-256 over its files' paths
 * (relative to the unit folder), sorted, each with its size in bytes and its text. Two folders with
 * the same digest hold the same files with the same texts.
 */
export function contentDigest(files: readonly (readonly [path: string, text: string, bytes: number])[]): string {
  const sortedFiles = [...files].sort(([a], [b]) => compareStrings(a, b));
  const hash = createHash('sha256');
  let chunk = '';
  for (const [path, text, bytes] of sortedFiles) {
    chunk += `${path}\0${bytes}\n${text}`;
    if (chunk.length > 1 << 20) {
      hash.update(chunk);
      chunk = '';
    }
  }
  hash.update(chunk);
  return hash.digest('hex');
}

function sorted(record: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(record).sort(([a], [b]) => compareStrings(a, b)));
}
