/**
 * The search for the fewest targets to hold back (docs/safety/hold-back.md). Every try is a compile
 * of the fleet, so the search is ordered and bounded; it never depends on the targets' names.
 *
 * **Order.** Candidates are ranked by how much their own new observation removes: the mirrors it
 * removes (over every source folder), then the share of its own mirrors that is (a target dropping 3
 * of 3 before one dropping 3 of 30). Targets equal in both are a **tie group**: nothing in what they
 * remove tells them apart, so they are released or held together (see below), never one of them
 * picked by name. The search tries to release the groups from the least removing to the most.
 *
 * **Search.** Start with every candidate held back (one try; when even that does not pass, nothing
 * does: the caller stops the run). Then, from the least removing group on, find the longest run of
 * groups that can be released together with those released before it (galloping: release 1, 2, 4, 8
 * … groups, then bisect between the last that passed and the first that failed), release that run,
 * and decide the group after it, which cannot be released with them:
 * - a group of one target stays held back;
 * - in a tie group, each member is tried alone (the rest of the group held); the members that pass
 *   alone are released when they pass together (one such member: it passed alone); the members that
 *   pass alone but not together stay held back **together** (the guard stops them only as a group,
 *   and naming one would blame it by name); the members that do not pass alone stay held back.
 * Then go on after that group.
 *
 * **What it guarantees**, for the caller's `passes` (the removal guard finds no large removal):
 * 1. The result always passed: the held set returned is exactly one that was tried and passed
 *    (every release is made only after the try of the set it leads to passed).
 * 2. Assume *monotonicity*: holding back more targets never makes a run that passes fail (holding a
 *    target back puts its mirrors back as they were and touches no other target's mirrors, and every
 *    rule of the guard counts removed mirrors). Then a target held back for itself (not "together")
 *    cannot be released from the result: releasing it failed from a held set that contains the
 *    result's, and releasing from a subset of held targets fails too. Without ties the result is
 *    therefore minimal: no held target can be released alone.
 * 3. A group is released whenever holding back, instead of it, every group that removes more (and
 *    the less removing ones found necessary) passes: those are exactly the targets held in its try.
 *    So when several targets pass only together, the ones that remove more are held back, never the
 *    one whose name sorts later.
 * 4. With *additivity* as well (each source folder's count of removed mirrors is the sum of what each
 *    target removes from it, as it is for mirrors keyed per target): a target whose own removal the
 *    guard stops alone (all of its ≥ 2 mirrors in a folder, or more than the share rule allows in one
 *    folder) fails every try that releases it, so it is always held; and when holding back those
 *    targets alone passes, every other target is released (its try holds all of them). A target whose
 *    own removal is within the guard's limits is then never held back for another target's removal.
 *
 * **Cost.** Let n be the candidates and g ≤ n the groups. A run of L released groups followed by a
 * group that cannot be released costs at most 2⌊log₂ L⌋ + 2 tries (1 when L = 0), which is at most
 * 2L + 1; a blocking tie group of m targets adds at most m + 1. Summed: at most 1 + 2g + (the tie
 * groups' targets and count) ≤ **3n + 1 tries**; with k held-back targets and no ties, at most
 * 1 + (k + 1)(2⌊log₂ n⌋ + 2) — 29 for one held back among 100; 14 when it is the largest remover.
 */
import { compareStrings } from '../util/order.js';

/** What one candidate's new observation removes, summed over the source folders. */
export interface HoldBackCandidate {
  readonly target: string;
  /** Mirrors its new observation removes. */
  readonly removed: number;
  /** Its mirrors before, in the folders it removes from. */
  readonly before: number;
}

/** One try: whether holding back the given targets passes, and what the caller made of it. */
export interface HoldBackTry<A> {
  readonly passes: boolean;
  readonly attempt: A;
}

/** Why a target stays held back. */
export interface HeldReason<A> {
  /** The failing try that released it (with the groups released before it). */
  readonly failed: A;
  /** The other targets held back with it because the guard stops them only together (equal removers); empty when it is held for itself. */
  readonly together: readonly string[];
}

/** What {@link fewestToHoldBack} found. */
export interface HoldBackSearch<A> {
  /** The targets held back, sorted. */
  readonly held: readonly string[];
  /** The try of exactly `held` (it passed). */
  readonly best: A;
  /** Why each held target stays held. */
  readonly why: ReadonlyMap<string, HeldReason<A>>;
  /** Tries made (each a compile). */
  readonly tries: number;
}

/** The candidates in tie groups, the least removing group first; names sorted within a group (for output only: a group is decided as a whole). */
export function blameGroups(candidates: readonly HoldBackCandidate[]): string[][] {
  // More removed, then a larger share of its own mirrors (compared without division), is more blame.
  const blame = (a: HoldBackCandidate, b: HoldBackCandidate): number => a.removed - b.removed || a.removed * b.before - b.removed * a.before;
  const sorted = [...candidates].sort((a, b) => blame(a, b) || compareStrings(a.target, b.target));
  const groups: string[][] = [];
  let last: HoldBackCandidate | undefined;
  for (const c of sorted) {
    if (last !== undefined && blame(last, c) === 0) groups[groups.length - 1]!.push(c.target);
    else groups.push([c.target]);
    last = c;
  }
  return groups;
}

/**
 * The fewest targets to hold back, by the ordered search above; undefined when holding back every
 * candidate does not pass either. `tryHolding` is called with the set of targets held back.
 */
export function fewestToHoldBack<A>(groups: readonly (readonly string[])[], tryHolding: (held: ReadonlySet<string>) => HoldBackTry<A>): HoldBackSearch<A> | undefined {
  let tries = 0;
  const attempt = (held: ReadonlySet<string>): HoldBackTry<A> => {
    tries++;
    return tryHolding(held);
  };
  let held = new Set(groups.flat());
  const all = attempt(held);
  if (!all.passes) return undefined;
  let best = all.attempt;
  const why = new Map<string, HeldReason<A>>();
  const without = (names: readonly string[]): Set<string> => {
    const next = new Set(held);
    for (const n of names) next.delete(n);
    return next;
  };
  for (let i = 0; i < groups.length; ) {
    const run = longestReleasableRun(groups, i, (names) => attempt(without(names)));
    if (run.passed !== undefined) best = run.passed;
    held = without(groups.slice(i, i + run.length).flat());
    i += run.length;
    if (run.failed === undefined) break;
    const decided = decideBlockingGroup(groups[i]!, run.failed, (names) => attempt(without(names)));
    if (decided.passed !== undefined) best = decided.passed;
    held = without(decided.released);
    for (const [target, reason] of decided.why) why.set(target, reason);
    i++;
  }
  return { held: [...held].sort(compareStrings), best, why, tries };
}

/** A run of groups released at once: how many, the try of releasing them (if any passed) and the first try that failed (none: every remaining group was released). */
interface ReleasedRun<A> {
  readonly length: number;
  readonly passed?: A;
  readonly failed?: A;
}

/**
 * The largest L such that releasing groups `from` … `from + L - 1` (with the held set as it is)
 * passes: gallop over L = 1, 2, 4, … then bisect. By monotonicity, L + 1 fails whenever a larger
 * count fails, so the bisection finds the first group that cannot be released.
 */
function longestReleasableRun<A>(groups: readonly (readonly string[])[], from: number, release: (names: readonly string[]) => HoldBackTry<A>): ReleasedRun<A> {
  const remaining = groups.length - from;
  const releasing = (count: number): HoldBackTry<A> => release(groups.slice(from, from + count).flat());
  let ok = 0;
  let passed: A | undefined;
  let bad: number | undefined;
  let failed: A | undefined;
  while (bad === undefined && ok < remaining) {
    const count = Math.min(ok === 0 ? 1 : ok * 2, remaining);
    const t = releasing(count);
    if (t.passes) [ok, passed] = [count, t.attempt];
    else [bad, failed] = [count, t.attempt];
  }
  while (bad !== undefined && bad - ok > 1) {
    const count = ok + Math.floor((bad - ok) / 2);
    const t = releasing(count);
    if (t.passes) [ok, passed] = [count, t.attempt];
    else [bad, failed] = [count, t.attempt];
  }
  return { length: ok, ...(passed !== undefined ? { passed } : {}), ...(failed !== undefined ? { failed } : {}) };
}

/** How the group that cannot be released with the run before it is decided (see the module's comment). */
function decideBlockingGroup<A>(group: readonly string[], failed: A, release: (names: readonly string[]) => HoldBackTry<A>): { released: readonly string[]; passed?: A; why: Map<string, HeldReason<A>> } {
  const why = new Map<string, HeldReason<A>>();
  if (group.length === 1) {
    why.set(group[0]!, { failed, together: [] });
    return { released: [], why };
  }
  const alone: [string, A][] = [];
  for (const target of group) {
    const t = release([target]);
    if (t.passes) alone.push([target, t.attempt]);
    else why.set(target, { failed: t.attempt, together: [] });
  }
  if (alone.length === 1) return { released: [alone[0]![0]], passed: alone[0]![1], why };
  const names = alone.map(([target]) => target);
  // Every member passed alone: releasing them all is the group's own try, which failed.
  const together = alone.length === group.length ? { passes: false, attempt: failed } : alone.length > 1 ? release(names) : undefined;
  if (together?.passes) return { released: names, passed: together.attempt, why };
  for (const target of names) why.set(target, { failed: together!.attempt, together: names.filter((n) => n !== target) });
  return { released: [], why };
}
