/**
 * Name isolation of one source's mirrors: name length and validity, names of foreign Services, and
 * names two units claim. The same checks for every mode (see {@link isolateNames}).
 */
import { Diag, type DiagnosticDefinition } from '../diagnostics/diagnostic-codes.js';
import type { ForeignService } from '../snapshot/snapshot.js';
import { foreignNameVerdict } from './adopt-linkerd-mirrors.js';
import type { Diagnostics } from './diagnostics.js';
import type { MirrorUnit } from './mirror-unit.js';
import { MAX_SERVICE_NAME_LENGTH } from './names.js';
import type { PlanMemo } from './plan-memo.js';

/** What name isolation needs to know of a source. */
export interface Isolation {
  readonly source: string;
  /** Services of the source not written by mirrorc whose names a mirror could take. */
  readonly foreign: readonly { namespace: string; name: string }[];
  /** `namespace/name` → origin of the mirror that owns that Service in the current output. */
  readonly owners: (key: string) => string | undefined;
  readonly strict: boolean;
  /** `namespace/name` of the foreign Services taken over from Linkerd's controller (filled by isolateNames). */
  readonly adopted: Set<string>;
  /** The planning run's memo (name checks). */
  readonly memo: PlanMemo;
}

/** Reports a problem of one unit: an error with strict, otherwise a warning that `outcome` happens while the other mirrors are updated. */
type Skip = (code: DiagnosticDefinition, unit: MirrorUnit, message: string, outcome: string) => void;

/**
 * Name length and collisions, the same checks for every mode. A unit with an over-long name, a
 * name of a foreign Service, or a name another unit also claims is skipped with a warning (in a
 * clash, the unit that owns the name in the current output keeps it; when none does, every
 * claimant is skipped, so no team can take another's mirror name). With `strict`, each is an error.
 * Returns the units kept, in their order. The first `checked` units passed these checks already (in
 * this order, among themselves): only their claims are counted again.
 */
export function isolateNames(isolation: Isolation, units: readonly MirrorUnit[], diagnostics: Diagnostics, checked = 0): MirrorUnit[] {
  const { source, strict } = isolation;
  const skip: Skip = (code, unit, message, outcome) => {
    const subject = { cluster: source, namespace: unit.namespace, service: unit.serviceNames[0] };
    if (strict) diagnostics.error(code, message, subject);
    else diagnostics.warn(code, `${message}; ${outcome}, the other mirrors are updated (--strict makes this an error)`, subject);
  };
  const dropped = new Set<MirrorUnit>();
  checkEachName(isolation, units.slice(checked), skip, dropped);
  settleClashes(isolation, { units, dropped, diagnostics }, skip);
  if (dropped.size === 0) return [...units];
  return units.filter((u) => !dropped.has(u));
}

/** Adds to `dropped` each of `units` with an invalid name or the name of a foreign Service it may not adopt. */
function checkEachName(isolation: Isolation, units: readonly MirrorUnit[], skip: Skip, dropped: Set<MirrorUnit>): void {
  const { source } = isolation;
  const foreignByKey = new Map<string, ForeignService>(isolation.foreign.map((s) => [`${s.namespace}/${s.name}`, s]));
  for (const unit of units) {
    for (const name of unit.serviceNames) {
      if (name.length > MAX_SERVICE_NAME_LENGTH) {
        skip(Diag.MIRROR_NAME_INVALID, unit, `${source}: the ${unit.mode}-mode mirror of ${unit.origin} would be named "${name}" (${name.length} characters), but Kubernetes allows at most ${MAX_SERVICE_NAME_LENGTH}; shorten the service or cluster name, or exclude the service from the link`, `${unit.origin} is skipped`);
        dropped.add(unit);
      } else {
        const problem = isolation.memo.serviceNameProblem(name);
        if (problem !== undefined) {
          // E.g. a per-pod mirror of a pod whose hostname starts with a digit: the API server would refuse it.
          skip(Diag.MIRROR_NAME_INVALID, unit, `${source}: the ${unit.mode}-mode mirror of ${unit.origin} would be named ${problem}; rename the service (or its StatefulSet), or exclude it from the link`, `${unit.origin} is skipped`);
          dropped.add(unit);
        }
      }
      const foreign = foreignByKey.size > 0 ? foreignByKey.get(`${unit.namespace}/${name}`) : undefined;
      if (foreign) {
        const key = `${unit.namespace}/${name}`;
        const verdict = foreignNameVerdict(source, unit, name, foreign);
        if (verdict.adopt) {
          isolation.adopted.add(key);
        } else {
          skip(verdict.adoptable === true ? Diag.LINKERD_MIRROR_NOT_ADOPTED : Diag.MIRROR_NAME_INVALID, unit, verdict.message, `${unit.origin} is skipped`);
          dropped.add(unit);
        }
      }
    }
  }
}

/** The units whose names are checked for clashes, the units dropped so far (added to), and where strict's errors go. */
interface ClashInput {
  readonly units: readonly MirrorUnit[];
  readonly dropped: Set<MirrorUnit>;
  readonly diagnostics: Diagnostics;
}

/** A name claimed by more than one unit: `key` is `namespace/name`, `first` its first claimant. */
interface Clash {
  readonly key: string;
  readonly first: MirrorUnit;
  readonly others: readonly MirrorUnit[];
}

/** Reports each name two units claim and adds the units that lose it to `input.dropped`. */
function settleClashes(isolation: Isolation, input: ClashInput, skip: Skip): void {
  const { source, strict } = isolation;
  const { dropped, diagnostics } = input;
  for (const { key, first, others } of clashesOf(input.units, strict ? new Set() : dropped)) {
    const claims = [first, ...others];
    if (strict) {
      for (const other of others) {
        diagnostics.error(Diag.MIRROR_NAME_CLASH, `${source}: ${other.origin} and ${first.origin} would both be mirrored as Service ${key}; rename one of the services or exclude one from its link`, { cluster: source, namespace: other.namespace, service: key.split('/')[1] });
        dropped.add(other);
      }
      continue;
    }
    const keeper = claims.find((u) => isolation.owners(key) === u.origin);
    const losers = claims.filter((u) => u !== keeper);
    const outcome = keeper
      ? `${keeper.origin} has that mirror already and keeps it, so ${losers.map((u) => u.origin).join(' and ')} ${losers.length === 1 ? 'is' : 'are'} skipped`
      : `none of them has that mirror yet, so all are skipped`;
    skip(Diag.MIRROR_NAME_CLASH, first, `${source}: ${claims.map((u) => u.origin).join(' and ')} would all be mirrored as Service ${key}; rename one of the services or exclude one from its link`, outcome);
    for (const u of losers) dropped.add(u);
  }
}

/**
 * The names claimed more than once among `units` but those `skipped` (which claim no name), in the
 * order their names were first claimed (unit by unit, name by name).
 */
function clashesOf(units: readonly MirrorUnit[], skipped: ReadonlySet<MirrorUnit>): Clash[] {
  // Each name's claimants: the first by namespace and name (the strings are mostly shared between
  // sources, so these maps find them fast), later ones only for names claimed twice.
  const firstClaims = new Map<string, Map<string, MirrorUnit>>();
  const laterClaims = new Map<string, MirrorUnit[]>();
  for (const unit of units) {
    if (skipped.has(unit)) continue;
    let byName = firstClaims.get(unit.namespace);
    if (!byName) firstClaims.set(unit.namespace, (byName = new Map()));
    for (const name of unit.serviceNames) {
      const first = byName.get(name);
      if (first === undefined) {
        byName.set(name, unit);
      } else if (first !== unit) {
        const key = `${unit.namespace}/${name}`;
        const later = laterClaims.get(key);
        if (later === undefined) laterClaims.set(key, [unit]);
        else if (!later.includes(unit)) later.push(unit);
      }
    }
  }
  const position = new Map<MirrorUnit, number>();
  if (laterClaims.size > 0) units.forEach((u, i) => position.has(u) || position.set(u, i));
  const clashes = [...laterClaims].map(([key, others]) => {
    const slash = key.indexOf('/');
    const name = key.slice(slash + 1);
    const first = firstClaims.get(key.slice(0, slash))!.get(name)!;
    return { key, first, others, at: [position.get(first)!, first.serviceNames.indexOf(name)] as const };
  });
  clashes.sort((a, b) => a.at[0] - b.at[0] || a.at[1] - b.at[1]);
  return clashes;
}
