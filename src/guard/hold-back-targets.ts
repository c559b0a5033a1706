/**
 * One target's change stays that target's: when the removal guard would stop the run, the targets
 * whose new observation causes the large removal are held back instead. A held-back target keeps
 * its last observation in the lock and its mirrors in `dist/`, and is **stale** like an unreachable
 * target (its `staleSince` runs, the report and job summary say `held back` and why, `--strict` and
 * the staleness limit count it), and every other cluster's changes go through. Whether a target
 * causes the removal is decided by compiling again with its last observation: a removal that
 * remains although every changed target is put back (a link or cluster retired in the fleet file, a
 * source's own change, a restored lock) was not caused by a target, and still stops the run until
 * the user confirms it. Which targets are held back is the ordered search of hold-back-search.ts
 * (fewest, by how much each removes, never by name; at most 3n + 1 compiles for n candidates).
 * docs/safety/hold-back.md describes it.
 */
import type { Diagnostic } from '../diagnostics/diagnostic.js';
import type { UnitRecords } from '../state/lock-document.js';
import type { FleetSnapshot, TargetSnapshot } from '../snapshot/snapshot.js';
import { canonicalJson } from '../util/canonical-json.js';
import { compareStrings } from '../util/order.js';
import { blameGroups, fewestToHoldBack, type HoldBackCandidate } from './hold-back-search.js';
import { largeRemovals, removalsByTarget, type LargeRemoval, type TargetRemoval } from './removal-guard.js';
import { SOURCE_SHARE_LIMIT } from './removal-policy.js';

/** A compile of a snapshot: the unit records it would write, and its findings. */
export interface CompiledSnapshot {
  readonly units: UnitRecords;
  readonly diagnostics: readonly Diagnostic[];
}

/** A target held back this run, and why, as data. */
export interface HeldBackTarget {
  readonly target: string;
  /** What its new observation would remove, per source folder. */
  readonly removals: readonly TargetRemoval[];
  /** The large removals the run would make if it were let through (with the targets that go through). */
  readonly wouldMake: readonly LargeRemoval[];
  /** Targets held back with it because the guard stops them only together and they remove exactly as much (none: held for itself). */
  readonly together: readonly string[];
  /** Findings of the compile its new observation caused (gone once it is held back), e.g. a trust root its source does not share. */
  readonly causes: readonly Diagnostic[];
}

/** What {@link holdBackRemovingTargets} decided. */
export interface HoldBackOutcome<C extends CompiledSnapshot> {
  /** The observation to compile and lock: held-back targets put back to their last observation. */
  readonly snapshot: FleetSnapshot;
  /** The compile of `snapshot`. */
  readonly compiled: C;
  /** The large removals that still stop the run (none when holding back resolved them). */
  readonly removals: readonly LargeRemoval[];
  /** The held-back targets, by name. */
  readonly held: readonly HeldBackTarget[];
  /** Compiles made by the search (0 when there was nothing to hold back). */
  readonly compiles: number;
}

/**
 * Holds back the fewest targets whose new observation makes `compiled` a large removal (see
 * hold-back-search.ts for the order, what it guarantees and the bound on compiles).
 */
export function holdBackRemovingTargets<C extends CompiledSnapshot>(input: {
  readonly previous: FleetSnapshot;
  readonly snapshot: FleetSnapshot;
  readonly before: UnitRecords;
  readonly compiled: C;
  readonly compile: (snapshot: FleetSnapshot) => C;
}): HoldBackOutcome<C> {
  const { previous, snapshot, before, compile } = input;
  const removals = largeRemovals(before, input.compiled.units);
  const unchanged: HoldBackOutcome<C> = { snapshot, compiled: input.compiled, removals, held: [], compiles: 0 };
  if (removals.length === 0) return unchanged;
  const losing = removalsByTarget(before, input.compiled.units);
  const candidates = new Map<string, HoldBackCandidate>();
  for (const r of losing) {
    if (!changed(previous.targets[r.target], snapshot.targets[r.target])) continue;
    const c = candidates.get(r.target);
    candidates.set(r.target, { target: r.target, removed: (c?.removed ?? 0) + r.removed, before: (c?.before ?? 0) + r.before });
  }
  if (candidates.size === 0) return unchanged;
  type Attempt = { snapshot: FleetSnapshot; compiled: C; removals: LargeRemoval[] };
  const search = fewestToHoldBack<Attempt>(blameGroups([...candidates.values()]), (held) => {
    const targets: Record<string, TargetSnapshot> = { ...snapshot.targets };
    for (const t of held) targets[t] = previous.targets[t]!;
    const next = { ...snapshot, targets };
    const compiled = compile(next);
    const left = largeRemovals(before, compiled.units);
    return { passes: left.length === 0, attempt: { snapshot: next, compiled, removals: left } };
  });
  if (search === undefined) return { ...unchanged, compiles: 1 };
  const kept = new Set(search.best.compiled.diagnostics.map(findingKey));
  const caused = input.compiled.diagnostics.filter((d) => !kept.has(findingKey(d)));
  const held = search.held.map((target): HeldBackTarget => ({
    target,
    removals: losing.filter((r) => r.target === target),
    wouldMake: search.why.get(target)?.failed.removals ?? [],
    together: search.why.get(target)?.together ?? [],
    causes: caused.filter((d) => (d.target ?? d.cluster) === target),
  }));
  return { snapshot: search.best.snapshot, compiled: search.best.compiled, removals: [], held, compiles: search.tries };
}

/** A finding's identity across two compiles. */
function findingKey(d: Diagnostic): string {
  return `${d.code}\u0000${d.message}`;
}

/** Whether a target's observation differs from its last one (a target never observed before cannot be held back). */
function changed(last: TargetSnapshot | undefined, now: TargetSnapshot | undefined): boolean {
  return last !== undefined && now !== undefined && last !== now && canonicalJson(last) !== canonicalJson(now);
}

/** One large removal, in words. */
function removalText(r: LargeRemoval): string {
  return r.target !== undefined
    ? `all ${r.removed} mirror Services of "${r.target}" in "${r.source}"`
    : `${r.removed} of the ${r.before} mirror Services in "${r.source}" (more than ${Math.round(SOURCE_SHARE_LIMIT * 100)} %)`;
}

/** Why a target is held back, in one line (the report's `heldBack`, the job summary's and the summary's cell). */
export function heldBackReason(h: HeldBackTarget): string {
  const what = h.removals.map((r) => `${r.removed} of its ${r.before} mirrors in "${r.source}"`).join(', ');
  const stopped = h.wouldMake.length > 0 ? `; letting it through would remove ${h.wouldMake.map(removalText).join(', ')}` : '';
  const together = h.together.length > 0
    ? `; held back together with ${h.together.map((t) => `"${t}"`).join(', ')}, which remove${h.together.length === 1 ? 's' : ''} exactly as much: the guard stops them only together, and nothing but their names would tell them apart`
    : '';
  return `its new observation would remove ${what}${stopped}, more than the removal guard allows${together}`;
}

/** The warning for a held-back target: what its observation would remove, why, that it is stale now, and how to accept it. */
export function heldBackWarning(h: HeldBackTarget): string {
  const why = h.causes.length > 0 ? `; what its new observation causes: ${h.causes.map((d) => d.message).join(' / ')}` : '';
  return (
    `cluster "${h.target}" is HELD BACK: ${heldBackReason(h)}${why}; ` +
    `its mirrors and its lock entry are kept as last observed, it is stale until it is let through (staleSince, --strict and --max-stale count it), and every other cluster is updated. ` +
    `If "${h.target}" really changed this way on purpose, run again with --confirm-removals`
  );
}

/** The held-back targets' names, sorted. */
export function heldBackNames(held: readonly HeldBackTarget[]): string[] {
  return held.map((h) => h.target).sort(compareStrings);
}
