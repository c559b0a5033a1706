/**
 * How many objects each Argo CD Application would hold: one Application per unit family of a
 * cluster (argocd-application-set.ts), and an Application with its sync result takes ~335 bytes per
 * object, so past ~4,700 objects it no longer fits etcd's request limit (1.5 MiB) and its sync never
 * finishes (issue 35, docs/argocd.md "What scales, and why"). Families at or past
 * {@link ARGOCD_FAMILY_OBJECT_CAP} are reported (MRC5102).
 *
 * Exact and cheap: a unit's objects are counted in the files of this run when it has them, else in
 * its folder on disk, and a folder is read only when its family could reach the cap at all (a unit
 * of two or more mirrors holds at most {@link MAX_UNIT_OBJECTS} objects; one of a single mirror may
 * hold more). So a full and an incremental run report the same.
 */
import type { UnitRecord } from '../state/lock-document.js';
import { compareStrings } from '../util/order.js';
import { BASE_UNIT, MAX_UNIT_OBJECTS, parseUnitName } from './delivery-units.js';

/** A family's Application is reported from this many objects on (below etcd's ~4,700, leaving room for growth between runs). */
export const ARGOCD_FAMILY_OBJECT_CAP = 4000;

/** How many objects a rendered YAML file holds: one per document, each starting with a top-level `apiVersion:`. */
export function countObjects(text: string): number {
  return text.match(/^apiVersion:/gm)?.length ?? 0;
}

/** Inputs of {@link oversizedFamilies}. */
export interface FamilySizeInput {
  /** cluster → unit folder → record, every unit of every cluster. */
  readonly units: Readonly<Record<string, Readonly<Record<string, UnitRecord>>>>;
  /** The object count of a unit from this run's files, or undefined when the run has none of them. */
  readonly rendered: (cluster: string, unit: string) => number | undefined;
  /** The object count of a unit read from its folder on disk. */
  readonly onDisk: (cluster: string, unit: string) => number;
  /** @default ARGOCD_FAMILY_OBJECT_CAP */
  readonly cap?: number;
}

/** One family at or past the cap. */
export interface OversizedFamily {
  readonly cluster: string;
  readonly family: string;
  readonly objects: number;
  readonly units: number;
}

/** The most objects a unit not counted yet can hold: {@link MAX_UNIT_OBJECTS} with two or more mirrors, unbounded with one. */
function unitBound(record: UnitRecord): number {
  const members = Object.keys(record.mirrors ?? {}).length + Object.keys(record.imports ?? {}).length;
  return members >= 2 ? MAX_UNIT_OBJECTS : Infinity;
}

/** The families (but `base`) whose objects reach `cap`, sorted by cluster and family. */
export function oversizedFamilies(input: FamilySizeInput): OversizedFamily[] {
  const cap = input.cap ?? ARGOCD_FAMILY_OBJECT_CAP;
  const out: OversizedFamily[] = [];
  for (const cluster of Object.keys(input.units).sort(compareStrings)) {
    const families = new Map<string, string[]>();
    for (const unit of Object.keys(input.units[cluster]!)) {
      const family = parseUnitName(unit)?.family;
      if (family === undefined || family === BASE_UNIT) continue;
      families.set(family, [...(families.get(family) ?? []), unit]);
    }
    for (const [family, units] of [...families.entries()].sort(([a], [b]) => compareStrings(a, b))) {
      const known = units.map((unit) => input.rendered(cluster, unit));
      const bound = units.reduce((sum, unit, i) => sum + (known[i] ?? unitBound(input.units[cluster]![unit]!)), 0);
      if (bound < cap) continue;
      const objects = units.reduce((sum, unit, i) => sum + (known[i] ?? input.onDisk(cluster, unit)), 0);
      if (objects >= cap) out.push({ cluster, family, objects, units: units.length });
    }
  }
  return out;
}

/** The MRC5102 text of one family. */
export function oversizedFamilyMessage(f: OversizedFamily, cap = ARGOCD_FAMILY_OBJECT_CAP): string {
  return (
    `${f.cluster}: unit family "${f.family}" holds ${f.objects} objects in ${f.units} unit${f.units === 1 ? '' : 's'}, at least ${cap}: its Argo CD Application ` +
    `(mirrorc-${f.cluster}.${f.family}) stores ~335 bytes per object with its sync result, and past ~4,700 objects it no longer fits etcd's 1.5 MiB and its sync never finishes; ` +
    `narrow the link of that target or deliver the cluster with Flux`
  );
}
