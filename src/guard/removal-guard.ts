/**
 * The removal guard: compares the output on disk with the output a run would write, and names
 * every source folder that would lose more mirrors than ordinary export changes do. Argo CD and
 * Flux sync `dist/` with prune on, so a removal here is a deletion in a live cluster.
 */
import type { FileTree } from '../emit/render-files.js';
import { HEADLESS_MIRROR_SVC_NAME_LABEL } from '../contract/linkerd.js';
import { MCS_SOURCE_CLUSTER_LABEL } from '../contract/kubernetes.js';
import { compareStrings } from '../util/order.js';
import { SOURCE_SHARE_LIMIT, SOURCE_SHARE_MINIMUM, WHOLE_TARGET_MINIMUM } from './removal-policy.js';

/** A large removal the guard stops. */
export interface LargeRemoval {
  readonly source: string;
  /** The target whose every mirror would go, or undefined for a share of the whole folder. */
  readonly target?: string;
  /** Mirror Services that would be removed. */
  readonly removed: number;
  /** Mirror Services the folder (or the target within it) has now. */
  readonly before: number;
}

const CLUSTER_NAME_LINE = /^ {4}mirror\.linkerd\.io\/cluster-name: "?([a-z0-9-]+)"?$/;
const SERVICE_FILE = /^([^/]+)\/(?:[^/]+\/)?service-[^/]+\.yaml$/;

const PER_POD_LINE = `    ${HEADLESS_MIRROR_SVC_NAME_LABEL}:`;

/**
 * The target an exported service's mirror came from: its `mirror.linkerd.io/cluster-name` label,
 * read from the file text without parsing every file (the writer puts `metadata.labels` at a
 * two-space indent and its keys at four; cluster names are DNS labels, possibly quoted). Undefined
 * for other Services, and for per-pod mirrors: a StatefulSet's pods come and go with its replicas,
 * so the guard counts exported services, each once.
 */
export function mirrorTargetOf(text: string): string | undefined {
  const start = text.indexOf('\n  labels:\n');
  if (start < 0) return undefined;
  let target: string | undefined;
  for (const line of text.slice(start + 11).split('\n')) {
    if (!line.startsWith('    ')) break;
    if (line.startsWith(PER_POD_LINE)) return undefined;
    target ??= CLUSTER_NAME_LINE.exec(line)?.[1];
  }
  return target;
}

/** An MCS import's EndpointSlice of one exporting cluster: `<source>/<ns>/endpointslice-<svc>-<cluster>-mcs-ipv4[-n].yaml`. */
const MCS_SLICE_FILE = /^([^/]+)\/([^/]+)\/endpointslice-(.+)-mcs-ipv[46](?:-\d+)?\.yaml$/;
const MCS_SOURCE_CLUSTER_LINE = `    ${MCS_SOURCE_CLUSTER_LABEL}: `;

/** The exporting cluster of an MCS EndpointSlice, from its `multicluster.kubernetes.io/source-cluster` label (as {@link mirrorTargetOf} reads labels). */
function mcsSourceClusterOf(text: string): string | undefined {
  const start = text.indexOf('\n  labels:\n');
  if (start < 0) return undefined;
  for (const line of text.slice(start + 11).split('\n')) {
    if (!line.startsWith('    ')) break;
    if (line.startsWith(MCS_SOURCE_CLUSTER_LINE)) return /^"?([a-z0-9-]+)"?$/.exec(line.slice(MCS_SOURCE_CLUSTER_LINE.length))?.[1];
  }
  return undefined;
}

/**
 * Mirrors per source folder and target: `source → target → keys`. A Linkerd mirror is its Service
 * file; an MCS import of one exporting cluster (its slices, whatever their address families and
 * chunks) counts once, keyed `mcs:<source>/<ns>/<svc>-<cluster>`, so MCS output is guarded too.
 */
function mirrorServices(tree: FileTree): Map<string, Map<string, Set<string>>> {
  const out = new Map<string, Map<string, Set<string>>>();
  for (const [path, text] of tree) {
    let target: string | undefined;
    let key = path;
    let source: string;
    const file = SERVICE_FILE.exec(path);
    if (file) {
      target = mirrorTargetOf(text);
      source = file[1]!;
    } else {
      const slice = MCS_SLICE_FILE.exec(path);
      if (!slice) continue;
      target = mcsSourceClusterOf(text);
      source = slice[1]!;
      key = `mcs:${source}/${slice[2]}/${slice[3]}`;
    }
    if (target === undefined) continue;
    let byTarget = out.get(source);
    if (!byTarget) out.set(source, (byTarget = new Map()));
    let paths = byTarget.get(target);
    if (!paths) byTarget.set(target, (paths = new Set()));
    paths.add(key);
  }
  return out;
}

/** The large removals going from `before` to `after`, by source and target. */
export function largeRemovals(before: FileTree, after: FileTree): LargeRemoval[] {
  const found: LargeRemoval[] = [];
  const afterMirrors = mirrorServices(after);
  for (const [source, byTarget] of [...mirrorServices(before)].sort(([a], [b]) => compareStrings(a, b))) {
    let total = 0;
    let removedTotal = 0;
    for (const [target, paths] of [...byTarget].sort(([a], [b]) => compareStrings(a, b))) {
      const kept = afterMirrors.get(source)?.get(target);
      const removed = [...paths].filter((p) => !after.has(p) && !kept?.has(p)).length;
      const remaining = kept?.size ?? 0;
      total += paths.size;
      removedTotal += removed;
      if (remaining === 0 && removed >= WHOLE_TARGET_MINIMUM) found.push({ source, target, removed, before: paths.size });
    }
    const wholeTargets = found.filter((f) => f.source === source).length;
    if (wholeTargets === 0 && removedTotal >= SOURCE_SHARE_MINIMUM && removedTotal > total * SOURCE_SHARE_LIMIT) {
      found.push({ source, removed: removedTotal, before: total });
    }
  }
  return found;
}

/** The error of a run stopped by the guard: what would go, why it is stopped, how to confirm. */
export function largeRemovalMessage(removals: readonly LargeRemoval[]): string {
  const lines = removals.map((r) =>
    r.target !== undefined
      ? `${r.source}: all ${r.removed} mirror Services of "${r.target}" would be removed`
      : `${r.source}: ${r.removed} of its ${r.before} mirror Services would be removed (more than ${Math.round(SOURCE_SHARE_LIMIT * 100)} %)`,
  );
  return (
    `the run would remove more mirrors than the removal guard allows; nothing was written:\n${lines.map((l) => `  - ${l}`).join('\n')}\n` +
    `  Argo CD or Flux would delete them in the source clusters. Check the plan (mirrorc plan); if the removal is intended ` +
    `(a link or cluster retired, a target that really stopped exporting), run again with --confirm-removals`
  );
}
