/**
 * Holding back the targets that cause a large removal (src/guard/hold-back-targets.ts and the
 * search of src/guard/hold-back-search.ts), with a toy compile: each target's mirrors in a source
 * folder are the services its snapshot lists in the namespace named after that folder (none when its
 * link is gone). The real compile is exercised in test/safety/one-target.test.ts.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Diagnostic } from '../../src/diagnostics/diagnostic.js';
import type { FileTree } from '../../src/emit/render-files.js';
import { blameGroups, fewestToHoldBack, type HoldBackCandidate } from '../../src/guard/hold-back-search.js';
import { heldBackWarning, holdBackRemovingTargets } from '../../src/guard/hold-back-targets.js';
import type { UnitRecords } from '../../src/state/lock-document.js';
import { treeUnitRecords } from '../../src/state/adopt-dist.js';
import type { FleetSnapshot, TargetSnapshot } from '../../src/snapshot/snapshot.js';

const mirror = (target: string): string =>
  `apiVersion: v1\nkind: Service\nmetadata:\n  labels:\n    mirror.linkerd.io/cluster-name: ${target}\n  name: x\nspec: {}\n`;

/** A target listing `n` services for source folder `source` (their namespace names it), plus `more` for other folders. */
const target = (n: number, tag = '', source = 'london', more: TargetSnapshot['services'] = []): TargetSnapshot => ({
  selectors: [tag],
  services: [
    ...Array.from({ length: n }, (_, i) => ({ namespace: source, name: `s${i}`, labels: {}, annotations: {}, type: 'ClusterIP', headless: false, ports: [] })),
    ...more,
  ],
  missingExplicitExports: [],
});
const fleet = (targets: Record<string, TargetSnapshot>): FleetSnapshot => ({ format: 1, targets, sources: {} }) as FleetSnapshot;

type Toy = { tree: FileTree; units: UnitRecords; diagnostics: Diagnostic[] };
/** The toy compile; `linked` lists the targets that still have a link. A target listing one service gets a finding about it. */
const compiler = (linked: readonly string[]) => (snapshot: FleetSnapshot): Toy => {
  const tree: FileTree = new Map();
  for (const [t, s] of Object.entries(snapshot.targets)) {
    if (!linked.includes(t)) continue;
    s.services.forEach((svc) => tree.set(`${svc.namespace}/default/service-${svc.name}-${t}.yaml`, mirror(t)));
  }
  const diagnostics = Object.entries(snapshot.targets).filter(([, s]) => s.services.length === 1)
    .map(([t]): Diagnostic => ({ code: 'MRC3014', severity: 'warning', cluster: 'london', target: t, message: 'its trust roots changed', hint: '' }));
  return { tree, units: treeUnitRecords(tree), diagnostics };
};

/** Runs the hold-back from `previous` to `observed` with the toy compile. */
const holdBack = (previous: FleetSnapshot, observed: FleetSnapshot, linked = Object.keys(observed.targets)) => {
  const compile = compiler(linked);
  let compiles = 0;
  const counted = (s: FleetSnapshot): Toy => {
    compiles++;
    return compile(s);
  };
  const before = compiler(Object.keys(previous.targets))(previous).units;
  const outcome = holdBackRemovingTargets({ previous, snapshot: observed, before, compiled: compile(observed), compile: counted });
  return { outcome, compiles, names: outcome.held.map((h) => h.target) };
};

test('GIVEN paris would lose all 3 of its mirrors by its own new observation WHEN held back THEN paris keeps its last observation, rome\'s change goes through, no removal remains', () => {
  const previous = fleet({ paris: target(3), rome: target(2) });
  const observed = fleet({ paris: target(0, 'new'), rome: target(4) });
  const { outcome, names } = holdBack(previous, observed);
  assert.deepEqual(names, ['paris']);
  assert.deepEqual(outcome.removals, []);
  assert.equal(outcome.snapshot.targets.paris, previous.targets.paris);
  assert.equal(outcome.snapshot.targets.rome, observed.targets.rome);
  assert.equal([...outcome.compiled.tree.keys()].filter((k) => k.endsWith('-rome.yaml')).length, 4);
  assert.deepEqual(outcome.held[0]!.wouldMake, [{ source: 'london', target: 'paris', removed: 3, before: 3 }]);
  assert.match(heldBackWarning(outcome.held[0]!), /^cluster "paris" is HELD BACK: its new observation would remove 3 of its 3 mirrors in "london"; letting it through would remove all 3 mirror Services of "paris" in "london", more than the removal guard allows; .*stale.*--confirm-removals$/);
});

test('GIVEN a removal that putting back the targets does not undo (the link to paris was removed from the fleet) THEN nothing is held back and the removal remains', () => {
  const previous = fleet({ paris: target(3), rome: target(2) });
  const observed = fleet({ paris: target(3, 'changed'), rome: target(2) });
  const { outcome, names } = holdBack(previous, observed, ['rome']);
  assert.deepEqual(names, []);
  assert.deepEqual(outcome.removals, [{ source: 'london', target: 'paris', removed: 3, before: 3 }]);
  assert.equal(outcome.snapshot, observed);
});

test('GIVEN a target never observed before (no last observation to hold back to) THEN the removal remains', () => {
  const previous = fleet({ rome: target(2) });
  const observed = fleet({ paris: target(0), rome: target(2) });
  const compile = compiler(['paris', 'rome']);
  const before = treeUnitRecords(new Map([...compile(previous).tree, ...['a', 'b'].map((n) => [`london/default/service-${n}-paris.yaml`, mirror('paris')] as const)]));
  const outcome = holdBackRemovingTargets({ previous, snapshot: observed, before, compiled: compile(observed), compile });
  assert.deepEqual(outcome.held, []);
  assert.equal(outcome.removals.length, 1);
});

test('issue 33: GIVEN ten targets, nine dropping 1 of their 10 mirrors and one dropping 25 of its 30, in one source WHEN the guard would stop the run THEN only the one is held back, in at most 1 + 2(⌊log2 10⌋ + 1) compiles', () => {
  // london: 9 × 10 + 30 = 120 mirrors; 9 + 25 = 34 removed (28 %). Without the one: 9 (7.5 %), allowed.
  const names = ['t01', 't02', 't03', 't04', 't05', 't06', 't07', 't08', 't09'];
  for (const culprit of ['a-first', 'm-middle', 'z-last']) {
    const previous = fleet({ ...Object.fromEntries(names.map((n) => [n, target(10)])), [culprit]: target(30) });
    const observed = fleet({ ...Object.fromEntries(names.map((n) => [n, target(9, 'new')])), [culprit]: target(5, 'new') });
    const { outcome, compiles, names: held } = holdBack(previous, observed);
    assert.deepEqual(held, [culprit], culprit);
    assert.deepEqual(outcome.removals, []);
    for (const n of names) assert.equal(outcome.snapshot.targets[n], observed.targets[n], `${n}'s change goes through`);
    assert.equal(outcome.snapshot.targets[culprit], previous.targets[culprit]);
    assert.deepEqual(outcome.held[0]!.wouldMake, [{ source: 'london', removed: 34, before: 120 }]);
    assert.ok(compiles <= 1 + 2 * (3 + 1), `${compiles} compiles`);
    assert.equal(outcome.compiles, compiles);
    // AND the next run, from what this one wrote: 25 of the 111 mirrors left is within the share rule, so the one goes through.
    const next = holdBack(outcome.snapshot, observed);
    assert.deepEqual([next.names, next.outcome.removals], [[], []]);
  }
});

test('GIVEN two targets whose removals together exceed the share rule, each alone not THEN the one that removes more is held back, whatever the names', () => {
  // 20 mirrors; one loses 4 and the other 2 (30 %); either alone is at most 20 %.
  for (const [big, small] of [['paris', 'rome'], ['rome', 'paris']] as const) {
    const previous = fleet({ [big]: target(10), [small]: target(10) });
    const observed = fleet({ [big]: target(6, 'new'), [small]: target(8, 'new') });
    const { outcome, names } = holdBack(previous, observed);
    assert.deepEqual(names, [big]);
    assert.equal(outcome.snapshot.targets[small], observed.targets[small]);
    assert.deepEqual(outcome.held[0]!.together, []);
  }
});

test('GIVEN two targets that remove exactly as much and pass the guard only together THEN both are held back together (nothing but their names tells them apart), and the warning says so; the next run holds both again', () => {
  const previous = fleet({ paris: target(10), rome: target(10) });
  const observed = fleet({ paris: target(7, 'new'), rome: target(7, 'new') });
  const { outcome, names } = holdBack(previous, observed);
  assert.deepEqual(names, ['paris', 'rome']);
  assert.deepEqual(outcome.held.map((h) => h.together), [['rome'], ['paris']]);
  assert.match(heldBackWarning(outcome.held[0]!), /held back together with "rome", which removes exactly as much: the guard stops them only together/);
  // AND the next run, from what this one wrote, holds both again (docs/safety/hold-back.md: a tie is not let through by the next run):
  // nothing of theirs went through, so one target can keep another that removes exactly as much held back, both named and stale.
  const next = holdBack(outcome.snapshot, observed);
  assert.deepEqual(next.names, ['paris', 'rome']);
  assert.deepEqual(next.outcome.held.map((h) => h.together), [['rome'], ['paris']]);
});

test('GIVEN two targets equal in what they remove, one over the share rule of its small source, the other within its large one THEN only the first is held back', () => {
  // paris: 6 of its 20 mirrors in lyon (20 mirrors in all: 30 %); rome: 6 of its 20 in oslo (100 in all: 6 %).
  const filler = Array.from({ length: 80 }, (_, i) => ({ namespace: 'oslo', name: `f${i}`, labels: {}, annotations: {}, type: 'ClusterIP', headless: false, ports: [] }));
  const previous = fleet({ paris: target(20, '', 'lyon'), rome: target(20, '', 'oslo'), bern: target(0, '', 'oslo', filler) });
  const observed = fleet({ paris: target(14, 'new', 'lyon'), rome: target(14, 'new', 'oslo'), bern: previous.targets.bern! });
  const { outcome, names } = holdBack(previous, observed);
  assert.deepEqual(blameGroups([{ target: 'paris', removed: 6, before: 20 }, { target: 'rome', removed: 6, before: 20 }]), [['paris', 'rome']]);
  assert.deepEqual(names, ['paris']);
  assert.deepEqual(outcome.held[0]!.together, []);
  assert.equal(outcome.snapshot.targets.rome, observed.targets.rome);
});

test('causes travel as data: a finding is a held-back target\'s cause by its target field, not by its text', () => {
  const previous = fleet({ paris: target(8), rome: target(2) });
  const observed = fleet({ paris: target(1, 'new'), rome: target(2, 'new') });
  const { outcome } = holdBack(previous, observed);
  assert.deepEqual(outcome.held.map((h) => [h.target, h.causes.map((d) => d.message)]), [['paris', ['its trust roots changed']]]);
});

test('GIVEN 200 targets each dropping one mirror and one dropping all of its 5 THEN only that one is held back, in at most 1 + 2(⌊log2 201⌋ + 1) compiles', () => {
  const names = Array.from({ length: 200 }, (_, i) => `t${String(i).padStart(3, '0')}`);
  // london also holds 3000 mirrors of an unchanged target, so the 200 single removals stay within the share rule.
  const big = Array.from({ length: 3000 }, (_, i) => ({ namespace: 'london', name: `f${i}`, labels: {}, annotations: {}, type: 'ClusterIP', headless: false, ports: [] }));
  const previous = fleet({ ...Object.fromEntries(names.map((n) => [n, target(2)])), x: target(5), filler: target(0, '', 'london', big) });
  const observed = fleet({ ...Object.fromEntries(names.map((n) => [n, target(1, 'new')])), x: target(0, 'new'), filler: previous.targets.filler });
  const { names: held, compiles } = holdBack(previous, observed);
  assert.deepEqual(held, ['x']);
  assert.ok(compiles <= 1 + 2 * (7 + 1), `${compiles} compiles`);
});

/** A seeded xorshift PRNG: the same cases on every run. */
function prng(seed: number): () => number {
  let s = seed >>> 0 || 1;
  return () => {
    s ^= s << 13; s >>>= 0; s ^= s >>> 17; s ^= s << 5; s >>>= 0;
    return s / 2 ** 32;
  };
}

test('the search on additive removals (1000 seeded cases, up to 9 targets in up to 3 folders), against every subset: it passes, no target held for itself can be released, a target the guard stops alone is always held, and when those alone pass no other is held; at most 3n + 1 tries; the same under any renaming', () => {
  const random = prng(33);
  for (let c = 0; c < 1000; c++) {
    const n = 1 + Math.floor(random() * 9);
    const folders = 1 + Math.floor(random() * 3);
    const total = Array.from({ length: folders }, () => 5 + Math.floor(random() * 40));
    // removed[t][f]: what target t removes from folder f (small numbers, many ties)
    const removed: number[][] = Array.from({ length: n }, () => Array.from({ length: folders }, () => (random() < 0.5 ? 0 : 1 + Math.floor(random() * 6))));
    for (const row of removed) if (row.every((r) => r < 1)) row[0] = 1;
    const limit = (f: number): number => Math.max(4, Math.floor(total[f]! * 0.25));
    const passes = (held: ReadonlySet<number>): boolean => total.every((_, f) => removed.reduce((sum, row, t) => sum + (held.has(t) ? 0 : row[f]!), 0) <= limit(f));
    const stoppedAlone = (t: number): boolean => removed[t]!.some((r, f) => r > limit(f));
    const name = (t: number, perm: readonly number[]): string => `t${perm[t]}`;
    const run = (perm: readonly number[]) => {
      const candidates: HoldBackCandidate[] = removed.map((row, t) => ({ target: name(t, perm), removed: row.reduce((a, b) => a + b, 0), before: total.length * 50 }));
      const index = new Map(removed.map((_, t) => [name(t, perm), t]));
      return fewestToHoldBack(blameGroups(candidates), (held) => ({ passes: passes(new Set([...held].map((h) => index.get(h)!))), attempt: null }));
    };
    const identity = removed.map((_, t) => t);
    const result = run(identity);
    if (!passes(new Set(identity))) {
      assert.equal(result, undefined);
      continue;
    }
    assert.ok(result, `case ${c}`);
    const held = new Set(result.held.map((h) => Number(h.slice(1))));
    assert.ok(passes(held), `case ${c}: the result passes`);
    assert.ok(result.tries <= 3 * n + 1, `case ${c}: ${result.tries} tries for ${n}`);
    for (const t of held) {
      if (result.why.get(`t${t}`)!.together.length === 0) assert.ok(!passes(new Set([...held].filter((h) => h !== t))), `case ${c}: t${t} is held for itself but could be released`);
    }
    const culprits = new Set(identity.filter(stoppedAlone));
    for (const t of culprits) assert.ok(held.has(t), `case ${c}: t${t} is stopped alone, so held`);
    if (passes(culprits)) assert.deepEqual([...held].sort(), [...culprits].sort(), `case ${c}: only the targets the guard stops alone`);
    // Renamed (reversed and rotated names): the same targets are held.
    for (const perm of [identity.map((t) => n - 1 - t), identity.map((t) => (t + 3) % n)]) {
      const renamed = run(perm)!;
      assert.deepEqual(new Set(renamed.held.map((h) => identity.find((t) => name(t, perm) === h))), held, `case ${c}: renaming changes nothing`);
    }
  }
});
