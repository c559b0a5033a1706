/**
 * Delivery units (docs/delivery-units.md): each source folder split into a base unit and families
 * of shards of at most MAX_UNIT_OBJECTS objects; shards only grow, a split moves mirrors only
 * upwards (from shard k to k + n), and adding a service moves no other mirror.
 */
import assert from 'node:assert/strict';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import YAML from 'yaml';
import { writeGeneratedRepo } from '../../bench/generate-fleet.js';
import { ExitCode } from '../../src/errors/exit-codes.js';
import { MAX_UNIT_OBJECTS, parseUnitName, previousShardCounts, shardCount, shardName, shardOf, unitDependencies } from '../../src/delivery/delivery-units.js';
import { fluxUnitName } from '../../src/delivery/flux-kustomization.js';
import { readTree } from '../../src/emit/write-output.js';
import { runSynth } from '../../src/pipeline/run-synth.js';
import { exampleCopy } from './support/example-copy.js';
import { legacyLayout } from './support/legacy-layout.js';

const keys = (n: number, prefix = 'svc'): string[] => Array.from({ length: n }, (_, i) => `shop/${prefix}-${i}`);

describe('shards', () => {
  test('a split moves a mirror only from shard k to a shard k + m·n above it; adding a key moves none', () => {
    const all = keys(2000);
    for (const n of [1, 2, 4, 8]) {
      for (const k of all) {
        const from = shardOf(k, n);
        const to = shardOf(k, n * 2);
        assert.ok(to === from || to === from + n, `${k}: ${from} of ${n} → ${to} of ${n * 2}`);
      }
    }
    // The shard of a key depends on the key and the count only.
    const before = new Map(all.map((k) => [k, shardOf(k, 4)]));
    for (const k of [...all, 'shop/new-one']) if (before.has(k)) assert.equal(shardOf(k, 4), before.get(k));
    // And the hash spreads: no shard of 8 holds more than twice its share of 2000 keys.
    const counts = new Array<number>(8).fill(0);
    for (const k of all) counts[shardOf(k, 8)]! += 1;
    assert.ok(Math.max(...counts) < 500, counts.join(','));
  });

  test('the shard count fits every shard within the limit, never shrinks, and stops at one mirror too big to split', () => {
    const members = (n: number, objects = 3) => keys(n).map((key) => ({ key, objects }));
    assert.equal(shardCount(members(100), undefined), 1);
    const n = shardCount(members(1000), undefined);
    assert.ok(n >= 8, `1000 mirrors × 3 objects need at least 6 shards of ${MAX_UNIT_OBJECTS}: ${n}`);
    const per = new Array<number>(n).fill(0);
    for (const m of members(1000)) per[shardOf(m.key, n)]! += 3;
    assert.ok(Math.max(...per) <= MAX_UNIT_OBJECTS, per.join(','));
    // Never fewer than before (a shrink would move mirrors down)
    assert.equal(shardCount(members(10), 8), 8);
    // One mirror of 2,000 objects (a huge StatefulSet) cannot be split: no endless doubling
    assert.equal(shardCount([{ key: 'shop/big', objects: 2000 }], undefined), 1);
  });

  test('unit names: shard 0 keeps the family name, and names parse back; dependencies chain to the next shard', () => {
    assert.equal(shardName('from-paris', 0), 'from-paris');
    assert.equal(shardName('from-paris', 3), 'from-paris.3');
    assert.deepEqual(parseUnitName('from-paris.3'), { family: 'from-paris', index: 3 });
    assert.deepEqual(parseUnitName('shared'), { family: 'shared', index: 0 });
    assert.equal(parseUnitName('base'), undefined);
    assert.deepEqual([...previousShardCounts(['base', 'from-paris', 'from-paris.1', 'from-paris.3', 'shared'])], [['from-paris', 4], ['shared', 1]]);
    const units = new Set(['base', 'from-paris', 'from-paris.1', 'from-paris.2', 'from-paris.3']);
    assert.deepEqual(unitDependencies('from-paris', units), ['base', 'from-paris.1']);
    assert.deepEqual(unitDependencies('from-paris.3', units), ['base']);
    assert.deepEqual(unitDependencies('base', units), []);
    // A Kustomization name is an ownership label value: at most 63 characters, still unique
    const long = `from-${'x'.repeat(63)}.12`;
    assert.ok(fluxUnitName(long).length <= 63 && fluxUnitName(long) !== fluxUnitName(`from-${'x'.repeat(63)}.13`));
  });
});

describe('synth writes delivery units', () => {
  test('a target with many services is split into shards within the limit; one more service moves no file; Flux units chain', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'mirrorc-units-'));
    try {
      // GIVEN a generated 2-cluster fleet with 250 services each (about 700 objects per target family)
      const repo = writeGeneratedRepo(dir, { clusters: 2, services: 250 });
      const run = () => runSynth({ fleetFile: repo.fleetFile, lockFile: repo.lockFile, outDir: repo.outDir, offline: true, log: () => {} });
      // WHEN synth runs
      assert.equal((await run()).exitCode, ExitCode.OK);
      const tree = readTree(repo.outDir);
      const units = (cluster: string) => [...new Set([...tree.keys()].filter((p) => p.startsWith(`${cluster}/`)).map((p) => p.split('/')[1]!))].filter((u) => !u.endsWith('.yaml')).sort();
      // THEN c01's mirrors of c02 are split into shards of at most MAX_UNIT_OBJECTS objects each
      const c01 = units('c01');
      assert.ok(c01.includes('base') && c01.includes('from-c02') && c01.includes('from-c02.1'), c01.join(', '));
      for (const unit of c01) {
        const files = [...tree.keys()].filter((p) => p.startsWith(`c01/${unit}/`) && !p.endsWith('/kustomization.yaml'));
        assert.ok(files.length <= MAX_UNIT_OBJECTS, `${unit}: ${files.length}`);
        // AND each unit's kustomization.yaml lists exactly its files
        const listed = (YAML.parse(tree.get(`c01/${unit}/kustomization.yaml`)!) as { resources: string[] }).resources;
        assert.deepEqual(listed.map((r) => `c01/${unit}/${r}`).sort(), files.sort());
      }
      // AND the cluster's kustomization.yaml lists the unit folders (the whole cluster, for tools that sync the folder)
      assert.deepEqual((YAML.parse(tree.get('c01/kustomization.yaml')!) as { resources: string[] }).resources, c01);
      // WHEN one more service is exported (the lock of the same fleet with 251 services)
      writeGeneratedRepo(join(dir, 'more'), { clusters: 2, services: 251 });
      rmSync(repo.lockFile);
      copyFileSync(join(dir, 'more', 'clusters', 'fleet.lock.json'), repo.lockFile);
      assert.equal((await run()).exitCode, ExitCode.OK);
      // THEN every file that existed is still at its path (no mirror changed unit), and some were added
      const after = readTree(repo.outDir);
      const moved = [...tree.keys()].filter((p) => !p.endsWith('kustomization.yaml') && !after.has(p));
      assert.deepEqual(moved, []);
      assert.ok(after.size > tree.size);
      // AND the delivery units' Flux Kustomizations chain the shards (no delivery in the generated fleet: checked by name)
      assert.deepEqual(unitDependencies('from-c02', new Set(c01)), ['base', 'from-c02.1']);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('the move from the layout before delivery units', () => {
  test('the first synth moves every file into its unit folder, byte for byte, with no removal-guard stop and nothing left behind', async () => {
    const ws = exampleCopy();
    try {
      // GIVEN the example's output in the layout before delivery units (every object directly in dist/<cluster>/)
      const units = readTree(ws.outDir);
      const legacy = legacyLayout(units);
      rmSync(ws.outDir, { recursive: true });
      for (const [path, text] of legacy) {
        mkdirSync(dirname(join(ws.outDir, path)), { recursive: true });
        writeFileSync(join(ws.outDir, path), text);
      }
      assert.ok(existsSync(join(ws.outDir, 'london/default/service-bar-paris.yaml')));
      // WHEN synth runs
      const run = await ws.run();
      // THEN it succeeds (the guard sees the same mirrors, not removals) and dist/ is exactly the unit layout
      assert.equal(run.exitCode, ExitCode.OK, ws.logged.join('\n'));
      assert.deepEqual(readTree(ws.outDir), units);
      // AND no folder of the old layout is left behind
      assert.ok(!existsSync(join(ws.outDir, 'london/default')));
      // AND a second run changes nothing
      assert.deepEqual((await ws.run()).changes, []);
    } finally {
      ws.remove();
    }
  });
});
