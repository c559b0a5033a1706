/** What a run changes in each cluster folder, by object file. */
import { compareStrings } from '../util/order.js';
import type { FileTree } from './render-files.js';

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
