/**
 * Delivery units: how one source cluster's output is split into folders that Argo CD and Flux
 * render one at a time (`dist/<cluster>/<unit>/`). kustomize build is quadratic in the resources
 * of one kustomization, so no unit may hold more than {@link MAX_UNIT_OBJECTS}; see
 * docs/delivery-units.md for the measurements and the migration rules.
 *
 * - `base`: the Namespaces synth creates and the reader identity (every other unit depends on it);
 * - `from-<target>`: the mirrors of one target cluster, split into `from-<target>`,
 *   `from-<target>.1`, … `from-<target>.<n-1>` when they outgrow one unit;
 * - `shared`: the units that combine several clusters (`-global`, federated, MCS ServiceImport),
 *   split the same way.
 *
 * A mirror's shard is a hash of its namespace and name modulo the shard count, a power of two that
 * only ever grows: doubling moves a mirror from shard k only to shard k + n, never down and never
 * between families, so a loser shard can wait for every gainer (Flux `dependsOn`, a chain to the
 * highest shard), and adding a service moves no other.
 */
import { createHash } from 'node:crypto';

/** The most objects one unit holds (kustomize v5.8 renders 500 in well under a second; docs/delivery-units.md). */
export const MAX_UNIT_OBJECTS = 500;
/** The most shards of one family (a safety bound; 1,024 × 500 objects is far beyond any fleet). */
export const MAX_SHARDS = 1024;
/** Folder of the base unit. */
export const BASE_UNIT = 'base';
/** Family of the units that combine several clusters. */
export const SHARED_FAMILY = 'shared';
/** Prefix of the family of one target's mirrors. */
export const TARGET_FAMILY_PREFIX = 'from-';

/** The family a mirror belongs to: its one target's, or the shared one. */
export function unitFamily(target: string | undefined): string {
  return target === undefined ? SHARED_FAMILY : `${TARGET_FAMILY_PREFIX}${target}`;
}

/** Folder (and unit) name of shard `index` of `family`: shard 0 keeps the family's name, so a first split keeps it. */
export function shardName(family: string, index: number): string {
  return index === 0 ? family : `${family}.${index}`;
}

/** A unit folder name split into family and shard index; undefined for `base` and anything else. */
export function parseUnitName(name: string): { readonly family: string; readonly index: number } | undefined {
  const m = /^((?:from-[a-z0-9]([-a-z0-9]*[a-z0-9])?)|shared)(?:\.([1-9][0-9]*))?$/.exec(name);
  return m ? { family: m[1]!, index: m[3] === undefined ? 0 : Number(m[3]) } : undefined;
}

/** The shard of the mirror keyed `key` (`<namespace>/<name>`) among `shards` (a power of two). */
export function shardOf(key: string, shards: number): number {
  if (shards <= 1) return 0;
  return createHash('sha256').update(key).digest().readUInt32BE(0) % shards;
}

/** One mirror of a family: its shard key and how many objects it renders to. */
export interface UnitMember {
  readonly key: string;
  readonly objects: number;
}

/**
 * How many shards a family needs: the previous count (never fewer: shrinking would move mirrors
 * down, to shards that may reconcile first), doubled while its largest shard holds more than
 * `maxObjects` objects of more than one mirror.
 * @param maxObjects the most objects per unit @default MAX_UNIT_OBJECTS
 */
export function shardCount(members: readonly UnitMember[], previous: number | undefined, maxObjects = MAX_UNIT_OBJECTS): number {
  let n = 1;
  while (previous !== undefined && n < previous && n < MAX_SHARDS) n *= 2;
  for (;;) {
    const objects = new Array<number>(n).fill(0);
    const count = new Array<number>(n).fill(0);
    for (const m of members) {
      const s = shardOf(m.key, n);
      objects[s]! += m.objects;
      count[s]! += 1;
    }
    const overfull = objects.some((o, s) => o > maxObjects && count[s]! > 1);
    if (!overfull || n >= MAX_SHARDS) return n;
    n *= 2;
  }
}

/** The shard count of every family in a previous cluster folder's unit names (`from-paris`, `from-paris.1`, …). */
export function previousShardCounts(unitNames: Iterable<string>): Map<string, number> {
  const highest = new Map<string, number>();
  for (const name of unitNames) {
    const parsed = parseUnitName(name);
    if (parsed) highest.set(parsed.family, Math.max(highest.get(parsed.family) ?? 0, parsed.index));
  }
  return new Map([...highest].map(([family, index]) => {
    let n = 1;
    while (n <= index) n *= 2;
    return [family, n];
  }));
}

/**
 * The units a unit waits for before it applies (Flux `dependsOn`): every unit waits for `base`
 * (its Namespaces), and shard k waits for shard k + 1 of its family, so that along the chain a
 * shard that loses mirrors in a split prunes only after every shard that gains them has applied.
 */
export function unitDependencies(unit: string, units: ReadonlySet<string>): string[] {
  if (unit === BASE_UNIT) return [];
  const deps = units.has(BASE_UNIT) ? [BASE_UNIT] : [];
  const parsed = parseUnitName(unit);
  const next = parsed ? shardName(parsed.family, parsed.index + 1) : undefined;
  if (next !== undefined && units.has(next)) deps.push(next);
  return deps;
}
