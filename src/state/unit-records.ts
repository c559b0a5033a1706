/**
 * What compile reads from the lock's unit records (never from `dist/`): who owns each mirror name,
 * which origins are mirrored anywhere, and how many shards each unit family has.
 */
import type { PreviousOwnerLookup } from '../compile/compile-fleet.js';
import { previousShardCounts } from '../delivery/delivery-units.js';
import type { UnitRecords } from './lock-document.js';

/** The owner (`target/namespace/service`) of the mirror Service `namespace/name` of a source, from the records. */
export function recordOwnerLookup(units: UnitRecords): PreviousOwnerLookup {
  const bySource = new Map<string, Map<string, string>>();
  return (source, key) => {
    let owners = bySource.get(source);
    if (!owners) {
      bySource.set(source, (owners = new Map()));
      for (const record of Object.values(units[source] ?? {})) {
        for (const [name, origin] of [...Object.entries(record.mirrors ?? {}), ...Object.entries(record.podMirrors ?? {})]) {
          if (origin.includes('/')) owners.set(name, origin);
        }
      }
    }
    return owners.get(key);
  };
}

/** Whether any source holds a mirror of `target/namespace/service` (a Linkerd mirror Service or an MCS import). */
export function recordMirrorLookup(units: UnitRecords): (origin: string) => boolean {
  let origins: Set<string> | undefined;
  return (origin) => {
    if (!origins) {
      origins = new Set();
      for (const byUnit of Object.values(units)) {
        for (const record of Object.values(byUnit)) {
          for (const o of Object.values(record.mirrors ?? {})) origins.add(o);
          for (const o of Object.values(record.podMirrors ?? {})) origins.add(o);
          for (const o of Object.values(record.imports ?? {})) origins.add(o);
        }
      }
    }
    return origins.has(origin);
  };
}

/** The shard count of every family of one cluster's recorded units. */
export function recordedShardCounts(units: UnitRecords, cluster: string): Map<string, number> {
  return previousShardCounts(Object.keys(units[cluster] ?? {}));
}

/** The lookups compile takes from the lock's unit records: name owners and established mirrors. */
export function recordLookups(units: UnitRecords): { readonly previousOwners: PreviousOwnerLookup; readonly previousMirrors: (origin: string) => boolean } {
  return { previousOwners: recordOwnerLookup(units), previousMirrors: recordMirrorLookup(units) };
}
