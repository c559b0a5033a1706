/**
 * Sharding: compiling only some source clusters. Each source's output depends only on the lock
 * entries of its links' targets and of itself, so shards compiled from the same lock never
 * disagree, and a shard must leave every other folder of the output tree exactly as it was.
 */
import type { FleetSpec } from '../model/fleet-spec.js';
import type { FileTree } from '../emit/render-files.js';
import { compareStrings, sortedUnique } from '../util/order.js';

/** Why `shard` cannot be compiled from `fleet`, or undefined when every name is a source cluster. */
export function shardProblem(fleet: FleetSpec, shard: readonly string[]): string | undefined {
  const sources = sortedUnique(fleet.links.map((l) => l.source));
  const unknown = shard.filter((s) => !sources.includes(s));
  if (unknown.length === 0) return undefined;
  return `--source ${unknown.map((s) => `"${s}"`).join(', ')}: not a source cluster of any link; the source clusters are: ${sources.join(', ') || '(none)'}`;
}

/** The top-level folder of an output path (`london/default/x.yaml` → `london`). */
function topFolder(path: string): string {
  const slash = path.indexOf('/');
  return slash < 0 ? '' : path.slice(0, slash);
}

/** The whole output tree after compiling `shard`: its folders as compiled, every other path as it was. */
export function mergeShardTree(before: FileTree, compiled: FileTree, shard: ReadonlySet<string>): FileTree {
  const merged: FileTree = new Map();
  for (const [path, content] of before) if (!shard.has(topFolder(path))) merged.set(path, content);
  for (const [path, content] of compiled) if (shard.has(topFolder(path))) merged.set(path, content);
  return new Map([...merged].sort(([a], [b]) => compareStrings(a, b)));
}
