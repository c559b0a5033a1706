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

/** What one object adds to its unit's inventory: the record field, its `namespace/name` key and the origin. */
export type InventoryEntry = readonly [field: 'mirrors' | 'podMirrors' | 'imports', key: string, origin: string];

/** The inventory entry of `object`, or undefined when it is none (not a mirror Service, not an MCS EndpointSlice). */
export function inventoryEntry(object: unknown): InventoryEntry | undefined {
  const o = object as ObjectLike | null;
  const metadata = o?.metadata;
  if (!metadata || typeof metadata.name !== 'string' || typeof metadata.namespace !== 'string') return undefined;
  const key = `${metadata.namespace}/${metadata.name}`;
  if (o.kind === 'Service') {
    const target = metadata.labels?.[REMOTE_CLUSTER_NAME_LABEL];
    if (typeof target !== 'string' || clusterNameProblem(target)) return undefined;
    const from = mirrorOrigin(o) ?? target;
    return [metadata.labels?.[HEADLESS_MIRROR_SVC_NAME_LABEL] !== undefined ? 'podMirrors' : 'mirrors', key, from];
  }
  if (o.kind === 'EndpointSlice') {
    const cluster = metadata.labels?.[MCS_SOURCE_CLUSTER_LABEL];
    const service = metadata.labels?.[MCS_SERVICE_NAME_LABEL];
    const m = MCS_SLICE_NAME.exec(metadata.name);
    if (typeof cluster !== 'string' || typeof service !== 'string' || !m || clusterNameProblem(cluster) || dns1123LabelProblem(service)) return undefined;
    return ['imports', `${metadata.namespace}/${m[1]}`, `${cluster}/${metadata.namespace}/${service}`];
  }
  return undefined;
}

/** The mirror part of a unit record (mirrors, per-pod mirrors, MCS imports) from its objects' {@link inventoryEntry} entries. */
export function inventoryOf(entries: Iterable<InventoryEntry | undefined>): Pick<UnitRecord, 'mirrors' | 'podMirrors' | 'imports'> {
  const fields = { mirrors: {} as Record<string, string>, podMirrors: {} as Record<string, string>, imports: {} as Record<string, string> };
  for (const entry of entries) if (entry) fields[entry[0]][entry[1]] = entry[2];
  const { mirrors, podMirrors, imports } = fields;
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

/** How many parts a unit's files are hashed in (its record's `parts`): a changed unit is read and compared only in the parts whose digest changed. */
export const UNIT_PARTS = 16;
/** Hex digits of one part's digest in a record's `parts` (the first 64 bits of its SHA-256). */
export const PART_DIGEST_LENGTH = 16;

/** The file name of a mirror (`service-<name>.yaml`, its Service, Endpoints and EndpointSlices; src/emit/render-units.ts): the Service's name. */
export const MIRROR_FILE = /^service-(.+)\.yaml$/;

/** The part (0 to {@link UNIT_PARTS} - 1) of the file at `path` in a unit folder: an FNV-1a hash of its path (a mirror's objects share a file, so a part). */
export function filePart(path: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < path.length; i++) h = Math.imul(h ^ path.charCodeAt(i), 0x01000193);
  return (h >>> 0) % UNIT_PARTS;
}

/** The digests of a unit folder's object files as rendered: the whole (`content`) and per part (`parts`). */
export interface UnitContent {
  /** SHA-256 over the digests of every part: two folders with the same one hold the same object files with the same texts. */
  readonly content: string;
  /** Per part ({@link filePart}), the first {@link PART_DIGEST_LENGTH} hex digits of the SHA-256 of its files, concatenated. */
  readonly parts: string;
}

/** The SHA-256 (hex) of one file's text: what {@link unitContent} digests of it. */
export function textDigest(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

/**
 * The content digests of a unit folder's object files (its record's `content` and `parts`; the
 * folder's kustomization.yaml, which lists them, follows from their paths): per part, SHA-256 over
 * its files' paths (relative to the unit folder), sorted, each with its size in bytes and the
 * SHA-256 of its text ({@link textDigest}: a file shared by several sources is digested once);
 * `content` is the SHA-256 of those digests, in part order.
 */
export function unitContent(files: readonly (readonly [path: string, bytes: number, digest: string])[]): UnitContent {
  const sortedFiles = [...files].sort(([a], [b]) => compareStrings(a, b));
  const lines = new Array<string>(UNIT_PARTS).fill('');
  for (const [path, bytes, digest] of sortedFiles) lines[filePart(path)] += `${path}\0${bytes}\0${digest}\n`;
  const digests = lines.map((l) => createHash('sha256').update(l).digest('hex'));
  return { content: createHash('sha256').update(digests.join('')).digest('hex'), parts: digests.map((d) => d.slice(0, PART_DIGEST_LENGTH)).join('') };
}

/** The parts whose digests differ between two records' `parts`. */
export function differingParts(before: string, after: string): Set<number> {
  const out = new Set<number>();
  for (let i = 0; i < UNIT_PARTS; i++) {
    const at = i * PART_DIGEST_LENGTH;
    if (before.slice(at, at + PART_DIGEST_LENGTH) !== after.slice(at, at + PART_DIGEST_LENGTH)) out.add(i);
  }
  return out;
}

function sorted(record: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(record).sort(([a], [b]) => compareStrings(a, b)));
}
