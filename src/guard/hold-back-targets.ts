/**
 * One target's change stays that target's: when the removal guard would stop the run, the targets
 * whose new observation causes the large removal are held back instead. A held-back target keeps
 * its last observation in the lock and its mirrors in `dist/` (stale but safe, with a warning that
 * names it and what its observation would have removed), and every other cluster's changes go
 * through. Whether a target causes the removal is decided by compiling again with its last
 * observation: a removal that remains although every changed target is put back (a link or
 * cluster retired in the fleet file, a source's own change, a restored lock) was not caused by a
 * target, and still stops the run until the user confirms it.
 */
import type { UnitRecords } from '../state/lock-document.js';
import type { FleetSnapshot, TargetSnapshot } from '../snapshot/snapshot.js';
import { canonicalJson } from '../util/canonical-json.js';
import { compareStrings } from '../util/order.js';
import { largeRemovals, removalsByTarget, type LargeRemoval, type TargetRemoval } from './removal-guard.js';

/** A compile of a snapshot: the unit records it would write, and its warnings. */
export interface CompiledSnapshot {
  readonly units: UnitRecords;
  readonly warnings: readonly string[];
}

/** What {@link holdBackRemovingTargets} decided. */
export interface HoldBackOutcome<C extends CompiledSnapshot> {
  /** The observation to compile and lock: held-back targets put back to their last observation. */
  readonly snapshot: FleetSnapshot;
  /** The compile of `snapshot`. */
  readonly compiled: C;
  /** The large removals that still stop the run (none when holding back resolved them). */
  readonly removals: readonly LargeRemoval[];
  /** One warning per held-back target. */
  readonly warnings: readonly string[];
  /** The held-back targets, sorted. */
  readonly held: readonly string[];
}

/** Above this many candidate targets, all of them are held back at once (no search for the fewest): each try is a compile of the fleet. */
const MAX_CANDIDATES_TO_MINIMISE = 8;

/**
 * Holds back the targets whose new observation makes `compiled` a large removal, fewest first
 * (each candidate is released again when the removal stays away without holding it back).
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
  const unchanged: HoldBackOutcome<C> = { snapshot, compiled: input.compiled, removals, warnings: [], held: [] };
  if (removals.length === 0) return unchanged;
  const losing = removalsByTarget(before, input.compiled.units);
  const candidates = [...new Set(losing.map((r) => r.target))]
    .filter((t) => changed(previous.targets[t], snapshot.targets[t]))
    .sort(compareStrings);
  if (candidates.length === 0) return unchanged;
  const attempt = (held: readonly string[]): { snapshot: FleetSnapshot; compiled: C; removals: LargeRemoval[] } => {
    const targets: Record<string, TargetSnapshot> = { ...snapshot.targets };
    for (const t of held) targets[t] = previous.targets[t]!;
    const next = { ...snapshot, targets };
    const compiled = compile(next);
    return { snapshot: next, compiled, removals: largeRemovals(before, compiled.units) };
  };
  let held = candidates;
  let best = attempt(held);
  if (best.removals.length > 0) return unchanged;
  if (candidates.length <= MAX_CANDIDATES_TO_MINIMISE) {
    for (const t of candidates) {
      const fewer = held.filter((h) => h !== t);
      const tried = attempt(fewer);
      if (tried.removals.length === 0) {
        held = fewer;
        best = tried;
      }
    }
  }
  const finalWarnings = new Set(best.compiled.warnings);
  const caused = input.compiled.warnings.filter((w) => !finalWarnings.has(w));
  const warnings = held.map((t) => heldBackWarning(t, losing.filter((r) => r.target === t), caused.filter((w) => w.includes(`"${t}"`) || w.includes(` ${t}/`))));
  return { snapshot: best.snapshot, compiled: best.compiled, removals: [], warnings, held };
}

/** Whether a target's observation differs from its last one (a target never observed before cannot be held back). */
function changed(last: TargetSnapshot | undefined, now: TargetSnapshot | undefined): boolean {
  return last !== undefined && now !== undefined && last !== now && canonicalJson(last) !== canonicalJson(now);
}

/** The warning for a held-back target: what its observation would remove, why, and how to accept it. */
export function heldBackWarning(target: string, removals: readonly TargetRemoval[], causes: readonly string[]): string {
  const what = removals.map((r) => `${r.removed} of its ${r.before} mirrors in "${r.source}"`).join(', ');
  const why = causes.length > 0 ? `; what its new observation causes: ${causes.join(' / ')}` : '';
  return (
    `cluster "${target}" is HELD BACK: its new observation would remove ${what}, more than the removal guard allows${why}; ` +
    `its mirrors and its lock entry are kept as last observed (stale), and every other cluster is updated. ` +
    `If "${target}" really changed this way on purpose, run again with --confirm-removals`
  );
}
