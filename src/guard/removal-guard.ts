/**
 * The removal guard: compares the units the lock records (what `dist/` holds) with the units a run
 * would write, both as inventories (src/state/lock-document.ts), and names
 * every source folder that would lose more mirrors than ordinary export changes do. Argo CD and
 * Flux sync `dist/` with prune on, so a removal here is a deletion in a live cluster.
 */
import type { UnitRecord, UnitRecords } from '../state/lock-document.js';
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
 * Visits the mirrors one unit record holds, as the guard keys them. A Linkerd mirror is its Service,
 * keyed `<source>/<ns>/service-<name>.yaml` whichever unit holds it (a mirror that moves to another
 * unit is the same mirror); an MCS import of one exporting cluster (its slices, whatever their
 * address families and chunks) counts once, keyed `mcs:<source>/<ns>/<svc>-<cluster>`. A per-pod
 * mirror is visited with no target: it keeps a Service name taken but is not counted (a
 * StatefulSet's pods come and go with its replicas).
 */
function visitMirrors(source: string, record: UnitRecord, visit: (key: string, target: string | undefined) => void): void {
  for (const [name, origin] of Object.entries(record.mirrors ?? {})) visit(serviceKey(source, name), targetOf(origin));
  for (const name of Object.keys(record.podMirrors ?? {})) visit(serviceKey(source, name), undefined);
  for (const [name, origin] of Object.entries(record.imports ?? {})) visit(`mcs:${source}/${name}`, targetOf(origin));
}

/**
 * Mirrors per source folder and target: `source → target → keys` (the counted ones), and every key
 * (per-pod mirrors too), from the unit records; keys as {@link visitMirrors} makes them.
 */
function mirrorServices(units: UnitRecords): { counted: Map<string, Map<string, Set<string>>>; all: Set<string> } {
  const counted = new Map<string, Map<string, Set<string>>>();
  const all = new Set<string>();
  for (const [source, byUnit] of Object.entries(units)) {
    let byTarget: Map<string, Set<string>> | undefined;
    const visit = (key: string, target: string | undefined): void => {
      all.add(key);
      if (target === undefined) return;
      if (!byTarget) counted.set(source, (byTarget = new Map()));
      let keys = byTarget.get(target);
      if (!keys) byTarget.set(target, (keys = new Set()));
      keys.add(key);
    };
    for (const record of Object.values(byUnit)) visitMirrors(source, record, visit);
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
 * `before` and `after` restricted to the sources that may lose a mirror, each with all its records
 * (so every count of a source kept here is what it is over the whole records). A source left out
 * loses no mirror, and a source that loses no mirror has no removal: every key carries its source,
 * so whether a mirror of source S is lost (its key among S's counted keys before and among none of
 * S's keys after) depends on S's records alone; and a source losing none has `removed` 0 for every
 * target, which {@link removalsByTarget} does not list and {@link largeRemovals} does not stop
 * (WHOLE_TARGET_MINIMUM and SOURCE_SHARE_MINIMUM are at least 1).
 *
 * A source is left out when:
 * - its records are one and the same object in both (a source synth did not plan keeps the lock's
 *   records as they are), or
 * - every counted key of its units whose record differs (a unit whose record is not the very same
 *   object in both, or that is in one of them only) is a key of its after-units whose record differs.
 *   Proof: take a counted key k of S before, held by unit u. If u's record is the same object after,
 *   k is a key of that record after, so kept. Otherwise u differs and k is among the differing
 *   after-units' keys, so kept. (A mirror moving between units keeps its key: the unit is no part of it.)
 *
 * Why this is cheap: a partially planned source keeps the lock's record objects for the families it
 * did not plan and for planned families found unchanged (compileFleetTree in
 * src/pipeline/synth-fleet.ts), so only the re-rendered family's units are compared, not every
 * mirror of the source. Equal but distinct record objects only cost comparing their keys.
 */
function losingSources(before: UnitRecords, after: UnitRecords): [UnitRecords, UnitRecords] {
  const b: Record<string, UnitRecords[string]> = {};
  const a: Record<string, UnitRecords[string]> = {};
  for (const [source, byUnit] of Object.entries(before)) {
    const afterUnits = after[source];
    if (afterUnits === byUnit || !mayLoseMirror(source, byUnit, afterUnits ?? {})) continue;
    b[source] = byUnit;
    if (afterUnits !== undefined) a[source] = afterUnits;
  }
  return [b, a];
}

/** Whether a counted key of the units of `before` whose records differ from `after`'s is no key of the differing units of `after` (see {@link losingSources}). */
function mayLoseMirror(source: string, before: UnitRecords[string], after: UnitRecords[string]): boolean {
  const gone: string[] = [];
  const addCounted = (key: string, target: string | undefined): void => {
    if (target !== undefined) gone.push(key);
  };
  for (const [unit, record] of Object.entries(before)) if (after[unit] !== record) visitMirrors(source, record, addCounted);
  if (gone.length === 0) return false;
  const kept = new Set<string>();
  const addAny = (key: string): void => {
    kept.add(key);
  };
  for (const [unit, record] of Object.entries(after)) if (before[unit] !== record) visitMirrors(source, record, addAny);
  return gone.some((key) => !kept.has(key));
}

/** Every (source, target) pair that loses at least one mirror going from `before` to `after`, sorted by source and target. */
export function removalsByTarget(allBefore: UnitRecords, allAfter: UnitRecords): TargetRemoval[] {
  const [before, after] = losingSources(allBefore, allAfter);
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
  const [before, after] = losingSources(allBefore, allAfter);
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
