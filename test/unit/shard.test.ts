/** Sharded synth (--source, offline): a shard rewrites only its folders and leaves the rest byte-identical. */
import assert from 'node:assert/strict';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { parseAllDocuments } from 'yaml';
import { ExitCode } from '../../src/errors/exit-codes.js';
import { readTree } from '../../src/emit/write-output.js';
import { exampleCopy } from './support/example-copy.js';

/** The files of the output tree whose first folder is `cluster`. */
function folder(tree: Map<string, string>, cluster: string): Map<string, string> {
  return new Map([...tree].filter(([p]) => p.startsWith(`${cluster}/`)));
}

test('a shard run changes its own folder only; other folders and the lock stay byte-identical', async () => {
  const ws = exampleCopy();
  try {
    // GIVEN a lock in which east's gateway moved, and a folder that belongs to no source cluster
    ws.editLock('198.51.100.7', '198.51.100.8');
    mkdirSync(join(ws.outDir, 'delivery'));
    writeFileSync(join(ws.outDir, 'delivery/app.yaml'), 'kind: Application\n');
    const lockBefore = readFileSync(ws.lockFile, 'utf8');
    const before = readTree(ws.outDir);
    // WHEN only west is compiled
    const result = await ws.run({ sources: ['west'] });
    // THEN west's mirrors of east follow the new gateway
    assert.equal(result.exitCode, ExitCode.OK, ws.logged.join('\n'));
    assert.deepEqual(result.changes.map((c) => c.cluster), ['west']);
    const after = readTree(ws.outDir);
    // (one file per mirror: the mirror's Endpoints is a document of its Service's file)
    const mirrorFile = after.get('west/from-east/shop/service-payments-east.yaml');
    assert.ok(mirrorFile !== undefined, 'west/from-east/shop/service-payments-east.yaml is missing');
    const endpoints = parseAllDocuments(mirrorFile).map((d) => d.toJS() as { kind: string; metadata: { name: string } })
      .filter((o) => o.kind === 'Endpoints' && o.metadata.name === 'payments-east');
    assert.equal(endpoints.length, 1, 'the mirror file holds one Endpoints payments-east');
    assert.match(JSON.stringify(endpoints[0]), /198\.51\.100\.8/);
    // AND every file of the other folders (every source but west, and the delivery folder), and the lock, are exactly as before
    for (const other of ['ap', 'east', 'eu', 'london', 'paris', 'us', 'delivery']) assert.deepEqual(folder(after, other), folder(before, other), other);
    // AND the lock differs only in the unit and source records of west, the folder the shard wrote (docs/lock-and-state.md)
    const lockAfter = JSON.parse(readFileSync(ws.lockFile, 'utf8'));
    const lockWas = JSON.parse(lockBefore);
    assert.notDeepEqual(lockAfter.compiled.units.west, lockWas.compiled.units.west);
    assert.notDeepEqual(lockAfter.compiled.sources.west, lockWas.compiled.sources.west);
    const withoutWest = (lock: { compiled: { units: object; sources: object } }) => ({ ...lock, compiled: { ...lock.compiled, units: { ...lock.compiled.units, west: null }, sources: { ...lock.compiled.sources, west: null } } });
    assert.deepEqual(withoutWest(lockAfter), withoutWest(lockWas));
    // AND the report marks the other sources as not compiled
    assert.deepEqual(result.report.sources.map((s) => [s.cluster, s.compiled]), [['ap', false], ['east', false], ['eu', false], ['london', false], ['us', false], ['west', true]]);
    assert.deepEqual(result.report.shard, ['west']);
  } finally {
    ws.remove();
  }
});

test('every shard run in turn gives exactly what one unsharded synth gives', async () => {
  const sharded = exampleCopy();
  const whole = exampleCopy();
  try {
    // GIVEN the same changed lock in two copies
    for (const ws of [sharded, whole]) ws.editLock('"port": 4143', '"port": 4144');
    // WHEN one copy is compiled shard by shard and the other in one run
    for (const source of ['london', 'east', 'west', 'us', 'eu', 'ap']) assert.equal((await sharded.run({ sources: [source] })).exitCode, ExitCode.OK);
    assert.equal((await whole.run()).exitCode, ExitCode.OK);
    // THEN both trees and locks are byte-identical, and check agrees
    assert.deepEqual(readTree(sharded.outDir), readTree(whole.outDir));
    assert.equal(readFileSync(sharded.lockFile, 'utf8'), readFileSync(whole.lockFile, 'utf8'));
    assert.equal((await sharded.run({ mode: 'check' })).exitCode, ExitCode.OK);
  } finally {
    sharded.remove();
    whole.remove();
  }
});

test('an unknown --source, or --source without --offline, is invalid input and writes nothing', async () => {
  const ws = exampleCopy();
  try {
    const before = readTree(ws.outDir);
    const unknown = await ws.run({ sources: ['west', 'paris'] });
    assert.equal(unknown.exitCode, ExitCode.INVALID_INPUT);
    assert.match(unknown.error ?? '', /--source "paris": not a source cluster of any link; the source clusters are: ap, east, eu, london, us, west/);
    const online = await ws.run({ sources: ['west'], offline: false });
    assert.equal(online.exitCode, ExitCode.INVALID_INPUT);
    assert.match(online.error ?? '', /--source compiles from the lock alone: add --offline/);
    assert.deepEqual(readTree(ws.outDir), before);
  } finally {
    ws.remove();
  }
});
