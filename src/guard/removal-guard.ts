/**
 * The removal guard: compares the output on disk with the output a run would write, and names
 * every source folder that would lose more mirrors than ordinary export changes do. Argo CD and
 * Flux sync `dist/` with prune on, so a removal here is a deletion in a live cluster.
 */
import type { FileTree } from '../emit/render-files.js';
import { HEADLESS_MIRROR_SVC_NAME_LABEL, REMOTE_CLUSTER_NAME_LABEL } from '../contract/linkerd.js';
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

/** A Service file: `<source>/[<unit>/]<namespace>/service-<name>.yaml` (no unit folder before delivery units). */
const SERVICE_FILE = /^([^/]+)\/(?:[^/]+\/){0,2}service-[^/]+\.yaml$/;
/** A label value that names a cluster: a DNS label, possibly quoted. */
const CLUSTER_VALUE = /^"?([a-z0-9-]+)"?$/;

const PER_POD_LINE = `    ${HEADLESS_MIRROR_SVC_NAME_LABEL}:`;
const CLUSTER_NAME_LINE = `    ${REMOTE_CLUSTER_NAME_LABEL}: `;

/**
 * The lines of `metadata.labels` of a generated file, read from its text without parsing it (the
 * writer puts `labels:` at a two-space indent and its keys at four).
 */
function labelLines(text: string): string[] {
  const start = text.indexOf('\n  labels:\n');
  if (start < 0) return [];
  const lines: string[] = [];
  for (const line of text.slice(start + 11).split('\n')) {
    if (!line.startsWith('    ')) break;
    lines.push(line);
  }
  return lines;
}

/** The cluster named by the label line starting with `prefix` (`    <key>: `), or undefined. */
function clusterLabel(lines: readonly string[], prefix: string): string | undefined {
  const line = lines.find((l) => l.startsWith(prefix));
  return line === undefined ? undefined : CLUSTER_VALUE.exec(line.slice(prefix.length))?.[1];
}

/**
 * The target an exported service's mirror came from: its `mirror.linkerd.io/cluster-name` label.
 * Undefined for other Services, and for per-pod mirrors: a StatefulSet's pods come and go with its
 * replicas, so the guard counts exported services, each once.
 */
export function mirrorTargetOf(text: string): string | undefined {
  const lines = labelLines(text);
  return lines.some((l) => l.startsWith(PER_POD_LINE)) ? undefined : clusterLabel(lines, CLUSTER_NAME_LINE);
}

/** An MCS import's EndpointSlice of one exporting cluster: `<source>/[<unit>/]<ns>/endpointslice-<svc>-<cluster>-mcs-ipv4[-n].yaml`. */
const MCS_SLICE_FILE = /^([^/]+)\/(?:[^/]+\/)?([^/]+)\/endpointslice-(.+)-mcs-ipv[46](?:-\d+)?\.yaml$/;
const MCS_SOURCE_CLUSTER_LINE = `    ${MCS_SOURCE_CLUSTER_LABEL}: `;

/** The exporting cluster of an MCS EndpointSlice: its `multicluster.kubernetes.io/source-cluster` label. */
function mcsSourceClusterOf(text: string): string | undefined {
  return clusterLabel(labelLines(text), MCS_SOURCE_CLUSTER_LINE);
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
    // A mirror that moves to another unit folder is the same mirror: keyed without the unit.
    let key = unitFreeKey(path);
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

/** Mirrors of one target that one source folder would lose. */
export interface TargetRemoval {
  readonly source: string;
  readonly target: string;
  /** Mirrors that would be removed. */
  readonly removed: number;
  /** Mirrors of that target the folder has now. */
  readonly before: number;
}

/** Every (source, target) pair that loses at least one mirror going from `before` to `after`, sorted by source and target. */
export function removalsByTarget(before: FileTree, after: FileTree): TargetRemoval[] {
  const found: TargetRemoval[] = [];
  const afterMirrors = mirrorServices(after);
  const afterKeys = new Set([...after.keys()].map(unitFreeKey));
  for (const [source, byTarget] of [...mirrorServices(before)].sort(([a], [b]) => compareStrings(a, b))) {
    for (const [target, paths] of [...byTarget].sort(([a], [b]) => compareStrings(a, b))) {
      const kept = afterMirrors.get(source)?.get(target);
      const removed = [...paths].filter((p) => !afterKeys.has(p) && !kept?.has(p)).length;
      if (removed > 0) found.push({ source, target, removed, before: paths.size });
    }
  }
  return found;
}

/** `<source>/<namespace>/<file>` of a namespaced object's path, whichever unit folder (if any) holds it. */
function unitFreeKey(path: string): string {
  const parts = path.split('/');
  return parts.length <= 3 ? path : `${parts[0]}/${parts[parts.length - 2]}/${parts[parts.length - 1]}`;
}

/** The large removals going from `before` to `after`, by source and target. */
export function largeRemovals(before: FileTree, after: FileTree): LargeRemoval[] {
  const found: LargeRemoval[] = [];
  const afterMirrors = mirrorServices(after);
  const afterKeys = new Set([...after.keys()].map(unitFreeKey));
  for (const [source, byTarget] of [...mirrorServices(before)].sort(([a], [b]) => compareStrings(a, b))) {
    let total = 0;
    let removedTotal = 0;
    for (const [target, paths] of [...byTarget].sort(([a], [b]) => compareStrings(a, b))) {
      const kept = afterMirrors.get(source)?.get(target);
      const removed = [...paths].filter((p) => !afterKeys.has(p) && !kept?.has(p)).length;
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

/**
 * The error of a run stopped by the guard: what would go, what caused it, why it is stopped, how to confirm.
 * @param causes why the mirrors of a removal go (the link or selector change, the export labels gone), one line each @default none named
 */
export function largeRemovalMessage(removals: readonly LargeRemoval[], causes: (removal: LargeRemoval) => readonly string[] = () => []): string {
  const lines = removals.map((r) =>
    (r.target !== undefined
      ? `${r.source}: all ${r.removed} mirror Services of "${r.target}" would be removed`
      : `${r.source}: ${r.removed} of its ${r.before} mirror Services would be removed (more than ${Math.round(SOURCE_SHARE_LIMIT * 100)} %)`) +
    causes(r).map((c) => `\n      because: ${c}`).join(''),
  );
  return (
    `the run would remove more mirrors than the removal guard allows; nothing was written:\n${lines.map((l) => `  - ${l}`).join('\n')}\n` +
    `  Argo CD or Flux would delete them in the source clusters. Check the plan (mirrorc plan); if the removal is intended ` +
    `(a link or cluster retired, a target that really stopped exporting), run again with --confirm-removals`
  );
}
