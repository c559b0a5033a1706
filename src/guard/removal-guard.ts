/**
 * The removal guard: compares the units the lock records (what `dist/` holds) with the units a run
 * would write, both as inventories (src/state/lock-document.ts), and names
 * every source folder that would lose more mirrors than ordinary export changes do. Argo CD and
 * Flux sync `dist/` with prune on, so a removal here is a deletion in a live cluster.
 */
import type { UnitRecords } from '../state/lock-document.js';
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

/**
 * Mirrors per source folder and target: `source → target → keys`, from the unit records. A Linkerd
 * mirror is its Service, keyed `<source>/<ns>/service-<name>.yaml` whichever unit holds it (a mirror
 * that moves to another unit is the same mirror); an MCS import of one exporting cluster (its
 * slices, whatever their address families and chunks) counts once, keyed `mcs:<source>/<ns>/<svc>-<cluster>`.
 * Per-pod mirrors are not counted: a StatefulSet's pods come and go with its replicas.
 */
function mirrorServices(units: UnitRecords): { counted: Map<string, Map<string, Set<string>>>; all: Set<string> } {
  const counted = new Map<string, Map<string, Set<string>>>();
  const all = new Set<string>();
  const add = (source: string, target: string, key: string): void => {
    let byTarget = counted.get(source);
    if (!byTarget) counted.set(source, (byTarget = new Map()));
    let keys = byTarget.get(target);
    if (!keys) byTarget.set(target, (keys = new Set()));
    keys.add(key);
  };
  for (const [source, byUnit] of Object.entries(units)) {
    for (const record of Object.values(byUnit)) {
      for (const [name, origin] of Object.entries(record.mirrors ?? {})) {
        const key = serviceKey(source, name);
        all.add(key);
        add(source, targetOf(origin), key);
      }
      for (const name of Object.keys(record.podMirrors ?? {})) all.add(serviceKey(source, name));
      for (const [name, origin] of Object.entries(record.imports ?? {})) {
        const key = `mcs:${source}/${name}`;
        all.add(key);
        add(source, targetOf(origin), key);
      }
    }
  }
  return { counted, all };
}

function serviceKey(source: string, namespacedName: string): string {
  const slash = namespacedName.indexOf('/');
  return `${source}/${namespacedName.slice(0, slash)}/service-${namespacedName.slice(slash + 1)}.yaml`;
}

function targetOf(origin: string): string {
  const slash = origin.indexOf('/');
  return slash < 0 ? origin : origin.slice(0, slash);
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

/**
 * `before` and `after` without the sources whose records are one and the same object in both (a
 * source synth did not plan keeps the lock's records as they are): every count of the guard is per
 * source (keys carry their source), so such a source can lose nothing and need not be counted.
 */
function changedSources(before: UnitRecords, after: UnitRecords): [UnitRecords, UnitRecords] {
  const b: Record<string, UnitRecords[string]> = {};
  const a: Record<string, UnitRecords[string]> = {};
  for (const [source, byUnit] of Object.entries(before)) if (after[source] !== byUnit) b[source] = byUnit;
  for (const [source, byUnit] of Object.entries(after)) if (before[source] !== byUnit) a[source] = byUnit;
  return [b, a];
}

/** Every (source, target) pair that loses at least one mirror going from `before` to `after`, sorted by source and target. */
export function removalsByTarget(allBefore: UnitRecords, allAfter: UnitRecords): TargetRemoval[] {
  const [before, after] = changedSources(allBefore, allAfter);
  const found: TargetRemoval[] = [];
  const { counted: afterMirrors, all: afterKeys } = mirrorServices(after);
  for (const [source, byTarget] of [...mirrorServices(before).counted].sort(([a], [b]) => compareStrings(a, b))) {
    for (const [target, paths] of [...byTarget].sort(([a], [b]) => compareStrings(a, b))) {
      const kept = afterMirrors.get(source)?.get(target);
      const removed = [...paths].filter((p) => !afterKeys.has(p) && !kept?.has(p)).length;
      if (removed > 0) found.push({ source, target, removed, before: paths.size });
    }
  }
  return found;
}

/** The large removals going from `before` to `after`, by source and target. */
export function largeRemovals(allBefore: UnitRecords, allAfter: UnitRecords): LargeRemoval[] {
  const [before, after] = changedSources(allBefore, allAfter);
  const found: LargeRemoval[] = [];
  const { counted: afterMirrors, all: afterKeys } = mirrorServices(after);
  for (const [source, byTarget] of [...mirrorServices(before).counted].sort(([a], [b]) => compareStrings(a, b))) {
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
