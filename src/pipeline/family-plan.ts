/**
 * Planning only the changed unit families of a source (docs/incremental-planning.md, section 2): a
 * source that cannot be skipped whole, but whose inputs changed only in the observation of some of
 * its targets, is planned in part — the `from-<target>` families of those targets and `shared` —
 * while the families of its other targets keep their unit records, as the lock holds them.
 *
 * This module decides, from the lock, which sources may be planned in part and what their kept
 * families contribute (their names, their warnings, their established-mirror answers); planFleet
 * (planPartialSource in src/compile/compile-fleet.ts) then plans them, and falls back to the whole
 * source wherever the partial result might differ from a full plan. A source is never planned in
 * part when:
 * - the lock has no `families` in its record, or no `contributions` in them (an earlier run's lock),
 *   or no unit records for it;
 * - anything but its targets' observations changed (`UnitInputs.base`: the fleet, its own
 *   observation, its pinned IPs, trust roots, the renderer, `--strict`), or its set of targets;
 * - its last plan asked who owns a mirror name (a name clash), or an established-mirror answer it
 *   recorded would be different now, or it reported a name-isolation or pinned-IP finding;
 * - a family it would keep has no input digest, or fails the integrity check of its folder.
 */
import type { PartialSourceInput } from '../compile/compile-fleet.js';
import { BASE_UNIT, parseUnitName, SHARED_FAMILY, unitFamily } from '../delivery/delivery-units.js';
import type { FleetSnapshot } from '../snapshot/snapshot.js';
import type { SourceRecord, UnitFiles, UnitRecords } from '../state/lock-document.js';
import type { UnitInputs } from '../state/unit-inputs.js';
import type { SourceSkip } from './source-skip.js';

/** What the family decision reads: the lock's records and the integrity check. */
export interface FamilyPlanState {
  readonly records: UnitRecords;
  readonly sources?: Readonly<Record<string, SourceRecord>>;
  readonly intact?: (cluster: string, unit: string, files: UnitFiles) => boolean;
}

/** The partial plan of one source, as decided before planning. */
export interface PartialSource {
  /** What planFleet is given. */
  readonly input: PartialSourceInput;
  /** The established-mirror answers of the kept families' targets, carried into the source's new record. */
  readonly established: Readonly<Record<string, boolean>>;
}

/** What the family decision compares the lock's records with: this run's input digests, observation, `strict` and source skip. */
export interface FamilyPlanRun {
  readonly inputs: UnitInputs;
  readonly snapshot: FleetSnapshot;
  readonly strict: boolean;
  readonly skip: SourceSkip;
}

/**
 * The partial plan of `source`, or undefined when it is planned whole (see the module comment).
 * Called only for a source that is not skipped whole.
 */
export function partialSource(source: string, run: FamilyPlanRun, state: FamilyPlanState | undefined): PartialSource | undefined {
  const { inputs, snapshot, strict, skip } = run;
  const record = state?.sources?.[source];
  const units = state?.records[source];
  const families = record?.families;
  // A record without `contributions` (an earlier version's) is planned whole once, so that the lock holds what a full plan records.
  if (!state?.intact || !record || !families?.contributions || !families.namespaces || !units || strict) return undefined;
  // (A last plan with a name-isolation or pinned-IP finding is refused by planPartialSource, which is given the warnings.)
  if (record.owners && Object.keys(record.owners).length > 0) return undefined;
  if (families.base !== inputs.base(source, strict, snapshot.pinnedServiceIPs?.[source])) return undefined;
  const targets = inputs.targetsOf(source);
  if (targets.length !== Object.keys(families.targets).length || targets.some((t) => families.targets[t] === undefined)) return undefined;
  const changed = new Set(targets.filter((t) => families.targets[t] !== inputs.target(t)));
  if (changed.size === 0 || changed.size === targets.length) return undefined;
  if (!skip.lookupsUnchanged(source, record)) return undefined;
  const keptFamilies = new Set(targets.filter((t) => !changed.has(t)).map((t) => unitFamily(t)));
  const keptNames = new Set<string>();
  // `shared` may be kept too when the changed links give what their records say (planChangedLinksAlone in compile-fleet.ts).
  let sharedNames: Set<string> | undefined = families.sharedMembers !== undefined ? new Set() : undefined;
  for (const [unit, r] of Object.entries(units)) {
    if (unit === BASE_UNIT) continue;
    const family = parseUnitName(unit)?.family;
    if (family === undefined) return undefined;
    if (family === SHARED_FAMILY && sharedNames) {
      if (r.inputs === undefined || !state.intact(source, unit, r.files)) sharedNames = undefined;
      else addServiceNames(sharedNames, r);
      continue;
    }
    if (!keptFamilies.has(family)) continue;
    if (r.inputs === undefined || !state.intact(source, unit, r.files)) return undefined;
    addServiceNames(keptNames, r);
  }
  const established: Record<string, boolean> = {};
  for (const [origin, answer] of Object.entries(record.established ?? {})) {
    if (!changed.has(origin.slice(0, origin.indexOf('/')))) established[origin] = answer;
  }
  return {
    input: {
      changedTargets: changed,
      warnings: record.warnings ?? [],
      linkWarnings: families.linkWarnings,
      keptNames,
      contributions: families.contributions,
      namespaces: families.namespaces,
      ...(sharedNames ? { sharedNames } : {}),
    },
    established,
  };
}

/** Adds `namespace/name` of every Service a unit record holds (its mirrors, per-pod mirrors and imports) to `names`. */
function addServiceNames(names: Set<string>, record: UnitRecords[string][string]): void {
  for (const byName of [record.mirrors, record.podMirrors, record.imports]) for (const key of Object.keys(byName ?? {})) names.add(key);
}
