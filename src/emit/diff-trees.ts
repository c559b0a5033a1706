/** What a run changes in each cluster folder, by object file. */
import { compareStrings } from '../util/order.js';
import type { FileTree } from './render-files.js';
import { appendAll } from '../util/append-all.js';
import YAML from 'yaml';

/** Added, changed and removed files of one cluster folder (paths relative to it). */
export interface ClusterChanges {
  readonly cluster: string;
  readonly added: string[];
  readonly changed: string[];
  readonly removed: string[];
}

/** Per-cluster changes between two whole output trees (`<cluster>/<path>` keys); clusters without changes are left out. */
export function diffTrees(before: FileTree, after: FileTree): ClusterChanges[] {
  const byCluster = new Map<string, ClusterChanges>();
  const entry = (path: string): { c: ClusterChanges; rel: string } => {
    const slash = path.indexOf('/');
    const cluster = slash < 0 ? '' : path.slice(0, slash);
    const rel = slash < 0 ? path : path.slice(slash + 1);
    let c = byCluster.get(cluster);
    if (!c) byCluster.set(cluster, (c = { cluster, added: [], changed: [], removed: [] }));
    return { c, rel };
  };
  for (const [path, content] of after) {
    const old = before.get(path);
    if (old === undefined) { const { c, rel } = entry(path); c.added.push(rel); }
    else if (old !== content) { const { c, rel } = entry(path); c.changed.push(rel); }
  }
  for (const path of before.keys()) {
    if (!after.has(path)) { const { c, rel } = entry(path); c.removed.push(rel); }
  }
  return [...byCluster.values()]
    .filter((c) => c.added.length + c.changed.length + c.removed.length > 0)
    .map((c) => ({ ...c, added: c.added.sort(compareStrings), changed: c.changed.sort(compareStrings), removed: c.removed.sort(compareStrings) }))
    .sort((a, b) => compareStrings(a.cluster, b.cluster));
}

/** Dotted paths of every value that differs between two parsed objects, with both values. */
export function changedFields(before: unknown, after: unknown, path = ''): string[] {
  const show = (v: unknown): string => (v === undefined ? '(none)' : JSON.stringify(v));
  if (Array.isArray(before) && Array.isArray(after)) {
    const out: string[] = [];
    for (let i = 0; i < Math.max(before.length, after.length); i++) appendAll(out, changedFields(before[i], after[i], `${path}[${i}]`));
    return out;
  }
  const isObj = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);
  if (isObj(before) && isObj(after)) {
    const keys = [...new Set([...Object.keys(before), ...Object.keys(after)])].sort(compareStrings);
    return keys.flatMap((k) => changedFields(before[k], after[k], path ? `${path}.${k}` : k));
  }
  return JSON.stringify(before) === JSON.stringify(after) ? [] : [`${path}: ${show(before)} → ${show(after)}`];
}

/**
 * The changed fields of a file from its old and new text: {@link changedFields} of its object, or
 * for a file of several documents (a mirror's Service, Endpoints and EndpointSlices) of each
 * object, named `<Kind>/<name>`, with an object added or removed as a whole. A text that does not
 * parse (a hand edit) is compared as no object.
 */
export function changedFileFields(before: string, after: string): string[] {
  const was = documentObjects(before);
  const now = documentObjects(after);
  if (was.length <= 1 && now.length <= 1) return changedFields(was[0]?.[1], now[0]?.[1]);
  const wasByKey = new Map(was);
  const nowByKey = new Map(now);
  const out: string[] = [];
  for (const [key, object] of now) {
    if (!wasByKey.has(key)) out.push(`${key}: added`);
    else appendAll(out, changedFields(wasByKey.get(key), object).map((field) => `${key} ${field}`));
  }
  for (const [key] of was) if (!nowByKey.has(key)) out.push(`${key}: removed`);
  return out;
}

/** The objects of a file's documents, each with its `<Kind>/<name>`; none when the text does not parse. */
function documentObjects(text: string): [string, unknown][] {
  try {
    const docs = YAML.parseAllDocuments(text);
    if (docs.some((doc) => doc.errors.length > 0)) return [];
    return docs.map((doc, i) => {
      const object = doc.toJS() as { kind?: unknown; metadata?: { name?: unknown } } | null;
      const key = typeof object?.kind === 'string' && typeof object.metadata?.name === 'string' ? `${object.kind}/${object.metadata.name}` : `document ${i + 1}`;
      return [key, object];
    });
  } catch {
    return [];
  }
}
