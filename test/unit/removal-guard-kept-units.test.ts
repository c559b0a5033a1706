/**
 * The removal guard over records that share unit objects with the lock (a partially planned source
 * keeps the lock's record objects for the units it did not render): sharing an object must never
 * change what the guard finds, only how much it reads.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { seededRandom } from '../../bench/seeded-random.js';
import { largeRemovals, removalsByTarget } from '../../src/guard/removal-guard.js';
import type { UnitRecord, UnitRecords } from '../../src/state/lock-document.js';

const FILES = { count: 1, bytes: 1, digest: '0'.repeat(64) } as const;

/** A unit record holding mirrors `default/<name>` of the targets given (`name → target`), plus per-pod mirrors and MCS imports if given. */
function unit(mirrors: Record<string, string>, extra: { podMirrors?: Record<string, string>; imports?: Record<string, string> } = {}): UnitRecord {
  const origins = (m: Record<string, string>) => Object.fromEntries(Object.entries(m).map(([name, target]) => [`default/${name}`, `${target}/default/${name}`]));
  return {
    files: FILES,
    mirrors: origins(mirrors),
    ...(extra.podMirrors ? { podMirrors: origins(extra.podMirrors) } : {}),
    ...(extra.imports ? { imports: origins(extra.imports) } : {}),
  };
}

/** `n` mirrors `<prefix>0..` of `target`. */
const names = (prefix: string, n: number, target: string): Record<string, string> => Object.fromEntries(Array.from({ length: n }, (_, i) => [`${prefix}${i}`, target]));

/** The same records with no object shared with anything: the guard must find the same with them. */
const unshared = (records: UnitRecords): UnitRecords => structuredClone(records);

/** Both guard answers for `before → after`, and asserts they equal those for `after` sharing no object with `before`. */
function guard(before: UnitRecords, after: UnitRecords): { large: ReturnType<typeof largeRemovals>; byTarget: ReturnType<typeof removalsByTarget> } {
  const large = largeRemovals(before, after);
  const byTarget = removalsByTarget(before, after);
  assert.deepEqual(large, largeRemovals(before, unshared(after)));
  assert.deepEqual(byTarget, removalsByTarget(before, unshared(after)));
  return { large, byTarget };
}

test('GIVEN a changed unit that drops every mirror of a target WHEN the source\'s other unit is the very same object THEN the whole-target removal is found', () => {
  const rome = unit(names('r', 10, 'rome'));
  const before: UnitRecords = { london: { 'from-paris': unit(names('p', 3, 'paris')), 'from-rome': rome } };
  const after: UnitRecords = { london: { 'from-paris': unit({}), 'from-rome': rome } };
  const { large, byTarget } = guard(before, after);
  assert.deepEqual(large, [{ source: 'london', target: 'paris', removed: 3, before: 3 }]);
  assert.deepEqual(byTarget, [{ source: 'london', target: 'paris', removed: 3, before: 3 }]);
});

test('GIVEN a unit gone from a source WHEN its other units are the very same objects THEN its mirrors count as removed, out of all the source\'s mirrors', () => {
  const kept = unit(names('k', 14, 'paris'));
  const before: UnitRecords = { london: { a: unit(names('g', 6, 'paris')), b: kept } };
  const after: UnitRecords = { london: { b: kept } };
  const { large, byTarget } = guard(before, after);
  // 6 of the source's 20 mirror Services (30 %): the share counts the identical unit's 14 too.
  assert.deepEqual(large, [{ source: 'london', removed: 6, before: 20 }]);
  assert.deepEqual(byTarget, [{ source: 'london', target: 'paris', removed: 6, before: 20 }]);
});

test('GIVEN mirrors that move from a changed unit to another (new or changed) unit WHEN a third unit is the very same object THEN nothing is removed', () => {
  const rome = unit(names('r', 10, 'rome'));
  const before: UnitRecords = { london: { a: unit(names('p', 6, 'paris')), b: unit({ x: 'paris' }), c: rome } };
  // p0..p2 go to the new unit d, p3..p5 to the changed unit b.
  const after: UnitRecords = { london: { b: unit({ x: 'paris', p3: 'paris', p4: 'paris', p5: 'paris' }), c: rome, d: unit(names('p', 3, 'paris')) } };
  const { large, byTarget } = guard(before, after);
  assert.deepEqual(large, []);
  assert.deepEqual(byTarget, []);
});

test('GIVEN a mirror dropped by a changed unit WHEN an identical unit also holds its key THEN it is not removed, and the others the changed unit dropped are', () => {
  // The identical unit b holds p0 as a mirror and p1 as a per-pod mirror: both keys stay taken.
  const b = unit({ p0: 'paris', k0: 'paris' }, { podMirrors: { p1: 'paris' } });
  const before: UnitRecords = { london: { a: unit(names('p', 3, 'paris')), b } };
  const after: UnitRecords = { london: { a: unit({}), b } };
  const { large, byTarget } = guard(before, after);
  assert.deepEqual(byTarget, [{ source: 'london', target: 'paris', removed: 1, before: 4 }]);
  assert.deepEqual(large, []);
});

test('GIVEN a mirror whose target changes in a changed unit WHEN its old target has no mirror left THEN it is the same mirror, nothing is removed', () => {
  const rome = unit(names('r', 4, 'rome'));
  const before: UnitRecords = { london: { a: unit({ s0: 'paris', s1: 'paris', s2: 'paris' }), b: rome } };
  const after: UnitRecords = { london: { a: unit({ s0: 'milan', s1: 'milan', s2: 'milan' }), b: rome } };
  const { large, byTarget } = guard(before, after);
  assert.deepEqual(large, []);
  assert.deepEqual(byTarget, []);
});

test('GIVEN MCS imports in a changed unit WHEN they go while a unit of mirrors is identical THEN they are found, counted once each', () => {
  const mirrors = unit(names('m', 2, 'rome'));
  const before: UnitRecords = { london: { a: unit({}, { imports: { 'a-paris': 'paris', 'b-paris': 'paris', 'c-paris': 'paris' } }), b: mirrors } };
  const after: UnitRecords = { london: { a: unit({}), b: mirrors } };
  const { large } = guard(before, after);
  assert.deepEqual(large, [{ source: 'london', target: 'paris', removed: 3, before: 3 }]);
});

test('GIVEN one source gone from the records and one losing a share WHEN a third source changes only identical-keyed units THEN only the first two are found, in source order', () => {
  const shared = unit(names('s', 15, 'rome'));
  const before: UnitRecords = {
    athens: { a: unit(names('a', 3, 'paris')) },
    berlin: { a: unit(names('g', 6, 'paris')), b: shared },
    cairo: { a: unit(names('c', 5, 'paris')), b: shared },
  };
  const after: UnitRecords = {
    berlin: { a: unit({}), b: shared },
    // cairo's unit a is rendered again as a new object with the same mirrors.
    cairo: { a: unit(names('c', 5, 'paris')), b: shared },
  };
  const { large, byTarget } = guard(before, after);
  assert.deepEqual(large, [
    { source: 'athens', target: 'paris', removed: 3, before: 3 },
    { source: 'berlin', target: 'paris', removed: 6, before: 6 },
  ]);
  assert.deepEqual(byTarget, [
    { source: 'athens', target: 'paris', removed: 3, before: 3 },
    { source: 'berlin', target: 'paris', removed: 6, before: 6 },
  ]);
});

test('GIVEN many random edits of records sharing unchanged units with the lock WHEN guarded THEN the answer is always that of records sharing nothing', () => {
  const rnd = seededRandom(18);
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rnd() * xs.length)]!;
  const targets = ['paris', 'rome', 'milan'];
  let found = 0;
  for (let round = 0; round < 400; round++) {
    const before: UnitRecords = {};
    for (const source of ['athens', 'berlin', 'cairo']) {
      const units: Record<string, UnitRecord> = {};
      for (let u = 0; u < 1 + Math.floor(rnd() * 4); u++) {
        const mirrors: Record<string, string> = {};
        for (let m = 0; m < Math.floor(rnd() * 12); m++) mirrors[`s${Math.floor(rnd() * 30)}`] = pick(targets);
        units[`u${u}`] = unit(mirrors, rnd() < 0.3 ? { podMirrors: { [`s${Math.floor(rnd() * 30)}`]: pick(targets) } } : {});
      }
      before[source] = units;
    }
    const after: UnitRecords = {};
    for (const [source, units] of Object.entries(before)) {
      if (rnd() < 0.1) continue; // the source goes
      if (rnd() < 0.2) {
        after[source] = units; // the source is not planned
        continue;
      }
      const next: Record<string, UnitRecord> = {};
      const moved: Record<string, string> = {};
      for (const [name, record] of Object.entries(units)) {
        const r = rnd();
        if (r < 0.4) next[name] = record; // kept as the lock has it
        else if (r < 0.5) continue; // the unit goes
        else {
          // rendered again: each mirror kept, dropped, moved to another unit or retargeted
          const mirrors: Record<string, string> = {};
          for (const [key, origin] of Object.entries(record.mirrors ?? {})) {
            const name = key.slice('default/'.length);
            const target = origin.slice(0, origin.indexOf('/'));
            const e = rnd();
            if (e < 0.5) mirrors[name] = target;
            else if (e < 0.7) moved[name] = target;
            else if (e < 0.8) mirrors[name] = pick(targets);
          }
          next[name] = unit(mirrors);
        }
      }
      if (Object.keys(moved).length > 0) next[rnd() < 0.5 ? 'u-new' : pick(Object.keys(units))] = unit(moved);
      after[source] = next;
    }
    const large = largeRemovals(before, after);
    assert.deepEqual(large, largeRemovals(before, unshared(after)), `round ${round}`);
    assert.deepEqual(removalsByTarget(before, after), removalsByTarget(before, unshared(after)), `round ${round}`);
    if (large.length > 0) found++;
  }
  // The edits do reach the guard's thresholds (the comparison above is not between empty answers only).
  assert.ok(found > 40, `only ${found} rounds found a large removal`);
});
