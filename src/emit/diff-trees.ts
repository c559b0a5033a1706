/** What a run changes in each cluster folder, by object file. */
import { compareStrings } from '../util/order.js';
import type { FileTree } from './render-files.js';
import { appendAll } from '../util/append-all.js';

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
