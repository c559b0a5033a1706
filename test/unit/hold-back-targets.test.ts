/**
 * Holding back the targets that cause a large removal (src/guard/hold-back-targets.ts), with a toy
 * compile: each target's mirror count in london is the number of services its snapshot lists
 * (none when its link is gone). The real compile is exercised in test/safety/one-target.test.ts.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { FileTree } from '../../src/emit/render-files.js';
import { holdBackRemovingTargets } from '../../src/guard/hold-back-targets.js';
import type { UnitRecords } from '../../src/state/lock-document.js';
import { treeUnitRecords } from '../../src/state/adopt-dist.js';
import type { FleetSnapshot, TargetSnapshot } from '../../src/snapshot/snapshot.js';

const mirror = (target: string): string =>
  `apiVersion: v1\nkind: Service\nmetadata:\n  labels:\n    mirror.linkerd.io/cluster-name: ${target}\n  name: x\nspec: {}\n`;

const target = (n: number, tag = ''): TargetSnapshot => ({
  selectors: [tag],
  services: Array.from({ length: n }, (_, i) => ({ namespace: 'default', name: `s${i}`, labels: {}, annotations: {}, type: 'ClusterIP', headless: false, ports: [] })),
  missingExplicitExports: [],
});
const fleet = (targets: Record<string, TargetSnapshot>): FleetSnapshot => ({ format: 1, targets, sources: {} }) as FleetSnapshot;

/** The toy compile; `linked` lists the targets that still have a link. */
const compiler = (linked: readonly string[]) => (snapshot: FleetSnapshot): { tree: FileTree; units: UnitRecords; warnings: string[] } => {
  const tree: FileTree = new Map();
  for (const [t, s] of Object.entries(snapshot.targets)) {
    if (!linked.includes(t)) continue;
    s.services.forEach((svc) => tree.set(`london/default/service-${svc.name}-${t}.yaml`, mirror(t)));
  }
  return { tree, units: treeUnitRecords(tree), warnings: Object.entries(snapshot.targets).filter(([, s]) => s.services.length === 1).map(([t]) => `cluster "${t}" has one service`) };
};

test('GIVEN paris would lose all 3 of its mirrors by its own new observation WHEN held back THEN paris keeps its last observation, rome\'s change goes through, no removal remains', () => {
  const previous = fleet({ paris: target(3), rome: target(2) });
  const observed = fleet({ paris: target(0, 'new'), rome: target(4) });
  const compile = compiler(['paris', 'rome']);
  const before = compile(previous).units;
  const outcome = holdBackRemovingTargets({ previous, snapshot: observed, before, compiled: compile(observed), compile });
  assert.deepEqual(outcome.held, ['paris']);
  assert.deepEqual(outcome.removals, []);
  assert.equal(outcome.snapshot.targets.paris, previous.targets.paris);
  assert.equal(outcome.snapshot.targets.rome, observed.targets.rome);
  assert.equal([...outcome.compiled.tree.keys()].filter((k) => k.endsWith('-rome.yaml')).length, 4);
  assert.match(outcome.warnings[0]!, /^cluster "paris" is HELD BACK: its new observation would remove 3 of its 3 mirrors in "london", more than the removal guard allows; .*--confirm-removals$/);
});

test('GIVEN a removal that putting back the targets does not undo (the link to paris was removed from the fleet) THEN nothing is held back and the removal remains', () => {
  const previous = fleet({ paris: target(3), rome: target(2) });
  const observed = fleet({ paris: target(3, 'changed'), rome: target(2) });
  const before = compiler(['paris', 'rome'])(previous).units;
  const compile = compiler(['rome']);
  const outcome = holdBackRemovingTargets({ previous, snapshot: observed, before, compiled: compile(observed), compile });
  assert.deepEqual(outcome.held, []);
  assert.deepEqual(outcome.removals, [{ source: 'london', target: 'paris', removed: 3, before: 3 }]);
  assert.equal(outcome.snapshot, observed);
});

test('GIVEN two targets whose removals together exceed the share rule, each alone not THEN only the first by name is held back, the other\'s change goes through', () => {
  // 20 mirrors; paris loses 3 and rome loses 3 (30 %); either alone is 15 %.
  const previous = fleet({ paris: target(10), rome: target(10) });
  const observed = fleet({ paris: target(7, 'new'), rome: target(7, 'new') });
  const compile = compiler(['paris', 'rome']);
  const before = compile(previous).units;
  const outcome = holdBackRemovingTargets({ previous, snapshot: observed, before, compiled: compile(observed), compile });
  assert.deepEqual(outcome.removals, []);
  assert.deepEqual(outcome.held, ['rome']);
  assert.equal(outcome.snapshot.targets.paris, observed.targets.paris);
  assert.equal(outcome.snapshot.targets.rome, previous.targets.rome);
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
