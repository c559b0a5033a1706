import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { App, Chart } from 'cdk8s';
import defineFleet from '../../clusters/fleet.js';
import * as mirrorc from '../../src/index.js';
import { readTree } from '../../src/emit/read-tree.js';

test('synthFleet gives the committed dist/, delivery/ and lock of the example fleet, byte for byte', () => {
  // GIVEN the example fleet defined inside another cdk8s app (next to a chart of its own), and its committed lock
  const app = new App();
  new Chart(app, 'unrelated');
  const fleet = new mirrorc.Fleet(app, 'fleet');
  defineFleet(fleet);
  const snapshot = mirrorc.readLockFile('clusters/fleet.lock.json');
  // WHEN the library synthesises it
  const files = mirrorc.synthFleet({ fleet, snapshot, previous: readTree('dist') });
  // THEN it gives the very files the CLI committed: kustomization.yaml, reader RBAC and delivery included
  assert.deepEqual(new Map(files.output), readTree('dist'));
  assert.ok(files.delivery);
  assert.deepEqual(new Map(files.delivery), readTree('delivery'));
  assert.equal(files.lock, readFileSync('clusters/fleet.lock.json', 'utf8'));
  assert.ok([...files.output.keys()].some((p) => p.endsWith('/kustomization.yaml')));
});

test('the library API exports the constructs and synthFleet, not the command-line runner', () => {
  // GIVEN the package entry
  // WHEN its exports are listed
  const names = Object.keys(mirrorc);
  // THEN the constructs and the entry are there, and no CLI runner is
  for (const name of ['Fleet', 'Cluster', 'Link', 'ExplicitExport', 'GitOpsDelivery', 'synthFleet', 'readLockFile', 'emptySnapshot']) {
    assert.ok(names.includes(name), `missing export ${name}`);
  }
  assert.ok(!names.includes('runSynth'), 'runSynth is the CLI runner and must not be exported');
});

test('synthFleet of a fleet with an empty lock gives each cluster its reader identity only', () => {
  // GIVEN a fleet of two linked clusters that has never been observed
  const app = new App();
  const fleet = new mirrorc.Fleet(app, 'fleet');
  const a = new mirrorc.Cluster(fleet, 'a');
  const b = new mirrorc.Cluster(fleet, 'b');
  new mirrorc.Link(fleet, 'a-from-b', { source: a, target: b });
  // WHEN synthesised from an empty snapshot
  const files = mirrorc.synthFleet({ fleet, snapshot: mirrorc.emptySnapshot() });
  // THEN both folders exist with a kustomization, no delivery is asked for, and the lock is the empty snapshot
  assert.ok(files.output.has('a/kustomization.yaml'));
  assert.ok(files.output.has('b/kustomization.yaml'));
  assert.equal(files.delivery, undefined);
  const lock = JSON.parse(files.lock);
  assert.deepEqual(lock.observed, { targets: {}, sources: {} });
  assert.deepEqual(Object.keys(lock.compiled.units).sort(), ['a', 'b']);
  assert.deepEqual(Object.keys(lock.compiled.units.a), ['base']);
});
