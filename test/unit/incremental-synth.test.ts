/**
 * The state model (docs/lock-and-state.md) on real files: a format 1 lock and an existing dist/ are
 * migrated on the first run without losing a mirror; a unit whose inputs did not change is skipped
 * unless its folder fails the integrity check (names and sizes); an incremental run writes exactly
 * what a full render of the same lock writes.
 */
import assert from 'node:assert/strict';
import { appendFileSync, cpSync, mkdtempSync, readFileSync, rmSync, unlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative, sep } from 'node:path';
import { test } from 'node:test';
import { ExitCode } from '../../src/errors/exit-codes.js';
import { NODE_FS_HOST } from '../../src/emit/durable-fs.js';
import type { FsHost } from '../../src/emit/fs-host.js';
import { readTree } from '../../src/emit/read-tree.js';
import { faultingHost } from '../fixtures/faulting-host.js';
import { runSynth, type SynthOptions } from '../../src/pipeline/run-synth.js';
import { treeUnitRecords } from '../../src/state/adopt-dist.js';
import type { LockDocument } from '../../src/state/lock-document.js';
import { Diag } from '../../src/diagnostics/diagnostic-codes.js';
import { parseUnitName } from '../../src/delivery/delivery-units.js';

/** A scratch copy of the example fleet's dist/ and delivery/ with the given lock text. */
function scratch(lockText: string): { dir: string; lockPath: string; outDir: string; run: (o?: Partial<SynthOptions>) => ReturnType<typeof runSynth> } {
  const dir = mkdtempSync(join(tmpdir(), 'mirrorc-incremental-'));
  cpSync('dist', join(dir, 'dist'), { recursive: true });
  cpSync('delivery', join(dir, 'delivery'), { recursive: true });
  const lockPath = join(dir, 'fleet.lock.json');
  writeFileSync(lockPath, lockText);
  const outDir = join(dir, 'dist');
  const run = (o: Partial<SynthOptions> = {}) => runSynth({ fleetFile: 'clusters/fleet.ts', lockFile: lockPath, outDir, offline: true, log: () => {}, print: () => {}, ...o });
  return { dir, lockPath, outDir, run };
}

const readLockDocument = (path: string): LockDocument => JSON.parse(readFileSync(path, 'utf8')) as LockDocument;

/**
 * Synth of `lockText` in full from an empty folder (offline, with the options `o`): asserts that it
 * succeeds and that `outDir` and the lock at `lockPath` are byte for byte what it wrote. Returns its
 * result, for callers that compare warnings too.
 */
async function assertSameAsFullRun(outDir: string, lockPath: string, lockText: string, o: Partial<SynthOptions> = {}): Promise<Awaited<ReturnType<typeof runSynth>>> {
  const full = mkdtempSync(join(tmpdir(), 'mirrorc-full-'));
  try {
    writeFileSync(join(full, 'fleet.lock.json'), lockText);
    const f = await runSynth({ fleetFile: 'clusters/fleet.ts', lockFile: join(full, 'fleet.lock.json'), outDir: join(full, 'dist'), offline: true, log: () => {}, print: () => {}, ...o });
    assert.equal(f.exitCode, ExitCode.OK, f.error);
    assert.deepEqual(readTree(outDir), readTree(join(full, 'dist')));
    assert.equal(readFileSync(lockPath, 'utf8'), readFileSync(join(full, 'fleet.lock.json'), 'utf8'));
    return f;
  } finally {
    rmSync(full, { recursive: true, force: true });
  }
}

/** Every mirror (`cluster/namespace/name` → origin) the unit records hold, whichever unit. */
function mirrorsOf(units: LockDocument['compiled']['units']): Map<string, string> {
  const out = new Map<string, string>();
  for (const [cluster, byUnit] of Object.entries(units)) {
    for (const record of Object.values(byUnit)) {
      for (const [name, origin] of [...Object.entries(record.mirrors ?? {}), ...Object.entries(record.podMirrors ?? {}), ...Object.entries(record.imports ?? {})]) out.set(`${cluster}/${name}`, origin);
    }
  }
  return out;
}

test('GIVEN a format 1 lock and the dist/ it produced WHEN synth runs the first time THEN every mirror, name owner and pinned IP is kept and the lock becomes format 5', async () => {
  const oldLock = readFileSync('test/fixtures/lock-format-1/fleet.lock.json', 'utf8');
  const { dir, lockPath, outDir, run } = scratch(oldLock);
  try {
    const before = readTree(outDir);
    const r = await run();
    assert.equal(r.exitCode, ExitCode.OK, r.error);
    // THEN dist/ is byte for byte what it was: no mirror lost, moved or renamed
    assert.deepEqual(readTree(outDir), before);
    const lock = readLockDocument(lockPath);
    assert.equal(lock.format, 5);
    // AND the pinned IPs are those of the old lock, in the compiled section
    assert.deepEqual(lock.compiled.pinnedServiceIPs, JSON.parse(oldLock).pinnedServiceIPs);
    // AND the observation is the old lock's
    assert.deepEqual(lock.observed.targets, JSON.parse(oldLock).targets);
    // AND the mirrors (and so the name owners) the lock records are exactly those of the old dist/
    const adopted = mirrorsOf(treeUnitRecords(before));
    assert.ok(adopted.size > 10, `the example dist/ holds mirrors (${adopted.size})`);
    assert.deepEqual(mirrorsOf(lock.compiled.units), adopted);
    // AND every unit now has an input digest, so the next run can skip it
    for (const byUnit of Object.values(lock.compiled.units)) for (const [unit, record] of Object.entries(byUnit)) if (unit !== 'base') assert.match(record.inputs ?? '', /^[0-9a-f]{64}$/, unit);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('GIVEN a synthesised output WHEN a kept unit\'s file is changed with the same size THEN synth skips the unit (its inputs did not change); WHEN a file changes size or goes missing THEN that unit is rendered again', async () => {
  const { dir, outDir, run } = scratch(readFileSync('clusters/fleet.lock.json', 'utf8'));
  try {
    const file = join(outDir, 'london/from-paris/default/service-bar-paris.yaml');
    const original = readFileSync(file, 'utf8');
    // GIVEN a same-size edit (one letter of the header comment)
    const sameSize = original.replace('Generated by mirrorc', 'Generated by mirrorC');
    assert.equal(sameSize.length, original.length);
    writeFileSync(file, sameSize);
    assert.equal((await run()).exitCode, ExitCode.OK);
    // THEN synth did not render that unit: the edit is still there (the integrity check reads names and sizes only)
    assert.equal(readFileSync(file, 'utf8'), sameSize);
    // AND check, which compares every file, finds it
    assert.equal((await run({ mode: 'check' })).exitCode, ExitCode.CHECK_FAILED);
    // WHEN the file grows
    appendFileSync(file, '# hand edit\n');
    const grown = await run();
    // THEN the unit is rendered and written again, and only that file changed
    assert.equal(grown.exitCode, ExitCode.OK);
    assert.equal(readFileSync(file, 'utf8'), original);
    assert.deepEqual(grown.changes, [{ cluster: 'london', added: [], changed: ['from-paris/default/service-bar-paris.yaml'], removed: [] }]);
    // WHEN a file of another unit goes missing, and a stray file appears in a third
    const missing = join(outDir, 'west/from-east/shop/service-payments-east.yaml');
    const missingText = readFileSync(missing, 'utf8');
    unlinkSync(missing);
    writeFileSync(join(outDir, 'london/base/stray.yaml'), 'x: 1\n');
    const repaired = await run();
    assert.equal(repaired.exitCode, ExitCode.OK);
    assert.equal(readFileSync(missing, 'utf8'), missingText);
    assert.deepEqual(repaired.changes.map((c) => [c.cluster, c.added, c.removed]), [['london', [], ['base/stray.yaml']], ['west', ['from-east/shop/service-payments-east.yaml'], []]]);
    // AND after that, check passes again
    writeFileSync(file, original);
    assert.equal((await run({ mode: 'check' })).exitCode, ExitCode.OK);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('GIVEN changes of several kinds in the lock WHEN synth runs incrementally THEN dist/ and the lock equal a full render of that lock into an empty folder', async () => {
  const { dir, lockPath, outDir, run } = scratch(readFileSync('clusters/fleet.lock.json', 'utf8'));
  try {
    assert.equal((await run()).exitCode, ExitCode.OK);
    const lock = readLockDocument(lockPath);
    const east = lock.observed.targets['east']!;
    // a gateway address, a port of one service, one service gone (below the removal guard's limits)
    const services = east.services.map((s, i) => (i === 0 ? { ...s, ports: s.ports.map((p) => ({ ...p, port: p.port + 1 })) } : s));
    const changed = { ...lock, observed: { ...lock.observed, targets: { ...lock.observed.targets, east: { ...east, services: services.slice(0, -1), gateway: { ...east.gateway!, addresses: ['198.51.100.99'] } } } } };
    writeFileSync(lockPath, `${JSON.stringify(changed, null, 2)}\n`);
    const r = await run({ confirmRemovals: true });
    assert.equal(r.exitCode, ExitCode.OK, r.error);
    assert.ok(r.changes.length > 0, 'the change reached dist/');
    // WHEN the same lock is rendered in full into an empty folder THEN both outputs and both locks are byte for byte the same
    await assertSameAsFullRun(outDir, lockPath, `${JSON.stringify(changed, null, 2)}\n`, { confirmRemovals: true });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('GIVEN the lock records a target\'s mirrors WHEN that target suddenly exports nothing THEN the removal guard, reading the lock\'s inventories, stops the run and nothing is written', async () => {
  const { dir, lockPath, outDir, run } = scratch(readFileSync('clusters/fleet.lock.json', 'utf8'));
  try {
    assert.equal((await run()).exitCode, ExitCode.OK);
    const lock = readLockDocument(lockPath);
    const lockText = readFileSync(lockPath, 'utf8');
    const targets = Object.fromEntries(Object.entries(lock.observed.targets).map(([name, t]) => [name, { ...t, services: [] }]));
    writeFileSync(lockPath, `${JSON.stringify({ ...lock, observed: { ...lock.observed, targets } }, null, 2)}\n`);
    const changedLock = readFileSync(lockPath, 'utf8');
    const before = readTree(outDir);
    const r = await run();
    assert.equal(r.exitCode, ExitCode.REMOVAL_NOT_CONFIRMED, r.error);
    assert.deepEqual(readTree(outDir), before);
    assert.equal(readFileSync(lockPath, 'utf8'), changedLock);
    assert.notEqual(changedLock, lockText);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

// ---- Skipping a whole source (docs/lock-and-state.md, "Skipping a source") ----

type Scratch = ReturnType<typeof scratch>;

/** Runs synth in `s` and collects its log lines (verbose: the compile stage names the sources it did not plan). */
async function runLogged(s: Scratch, o: Partial<SynthOptions> = {}): Promise<{ result: Awaited<ReturnType<typeof runSynth>>; lines: string[] }> {
  const lines: string[] = [];
  const result = await s.run({ log: (l) => lines.push(l), verbosity: 'verbose', ...o });
  return { result, lines };
}

/** The sources the run's log says it did not plan. */
function skippedIn(lines: readonly string[]): string[] {
  const line = lines.find((l) => l.includes('not planned ('));
  return line ? /not planned \(([^)]*)\)/.exec(line)![1]!.split(', ') : [];
}

/** A scratch copy synthesised twice, so that its lock holds every source's record and the second run planned nothing. */
async function settledScratch(): Promise<Scratch> {
  const s = scratch(readFileSync('clusters/fleet.lock.json', 'utf8'));
  assert.equal((await s.run()).exitCode, ExitCode.OK);
  const again = await runLogged(s);
  assert.equal(again.result.exitCode, ExitCode.OK, again.result.error);
  assert.deepEqual(skippedIn(again.lines), ['ap', 'east', 'eu', 'london', 'us', 'west'], 'an unchanged fleet plans no source');
  assert.deepEqual(again.result.changes, []);
  // AND check, which plans every source and renders every unit, finds the same output and the same lock (source records included)
  const check = await s.run({ mode: 'check' });
  assert.equal(check.exitCode, ExitCode.OK, check.error);
  return s;
}

/** Synth in `s` as it is now, then the same lock rendered in full into an empty folder: both write the same dist/ and lock. Returns the incremental run's skipped sources. */
async function assertSameAsFullRender(s: Scratch, o: Partial<SynthOptions> = {}): Promise<string[]> {
  const lockText = readFileSync(s.lockPath, 'utf8');
  const { result, lines } = await runLogged(s, { confirmRemovals: true, ...o });
  assert.equal(result.exitCode, ExitCode.OK, result.error);
  const f = await assertSameAsFullRun(s.outDir, s.lockPath, lockText, { confirmRemovals: true, ...o });
  assert.deepEqual(result.warnings, f.warnings, 'the same warnings as a full run');
  return skippedIn(lines);
}

/** Rewrites the lock of `s` through `edit`. */
function editLock(s: Scratch, edit: (lock: LockDocument) => void): void {
  const lock = readLockDocument(s.lockPath);
  edit(lock);
  writeFileSync(s.lockPath, `${JSON.stringify(lock, null, 2)}\n`);
}

test('GIVEN a run that reports warnings WHEN synth runs again with nothing changed THEN no source is planned, nothing is written, and the same warnings are printed', async () => {
  const s = scratch(readFileSync('clusters/fleet.lock.json', 'utf8'));
  try {
    // GIVEN west's observation lacks its shop namespace: west's mirrors into shop are skipped, each with a warning
    editLock(s, (lock) => {
      lock.observed.sources['west']!.namespaces = lock.observed.sources['west']!.namespaces.filter((n) => n !== 'shop');
    });
    const first = await runLogged(s, { confirmRemovals: true, verbosity: 'normal' });
    assert.equal(first.result.exitCode, ExitCode.OK, first.result.error);
    assert.ok(first.result.warnings.some((w) => w.includes('namespace "shop" does not exist')), first.result.warnings.join('\n'));
    const lockAfterFirst = readFileSync(s.lockPath, 'utf8');
    const deliveryAfterFirst = readTree(join(s.dir, 'delivery'));
    // WHEN synth runs again
    const second = await runLogged(s, { verbosity: 'normal' });
    const verbose = await runLogged(s);
    // THEN no source was planned and nothing was written
    assert.equal(second.result.exitCode, ExitCode.OK, second.result.error);
    assert.deepEqual(skippedIn(verbose.lines), ['ap', 'east', 'eu', 'london', 'us', 'west']);
    assert.deepEqual(second.result.changes, []);
    assert.equal(readFileSync(s.lockPath, 'utf8'), lockAfterFirst);
    // AND delivery/ (which lists each skipped cluster's units and the Namespaces of its base, read from disk) is unchanged
    assert.deepEqual(readTree(join(s.dir, 'delivery')), deliveryAfterFirst);
    // AND the warnings are those of the run before, as data and as printed
    assert.deepEqual(second.result.diagnostics, first.result.diagnostics);
    const printed = (lines: readonly string[]) => lines.filter((l) => l.startsWith('warning: '));
    assert.ok(printed(first.lines).length > 0);
    assert.deepEqual(printed(second.lines), printed(first.lines));
  } finally {
    rmSync(s.dir, { recursive: true, force: true });
  }
});

test('GIVEN every source skipped WHEN one target\'s observation changes THEN only the sources linking it are planned, and synth writes what a full render writes', async () => {
  const s = await settledScratch();
  try {
    // paris is linked by london alone
    editLock(s, (lock) => {
      const paris = lock.observed.targets['paris']!;
      paris.services = paris.services.map((svc) => ({ ...svc, ports: svc.ports.map((p) => ({ ...p, port: p.port + 1 })) }));
    });
    const skipped = await assertSameAsFullRender(s);
    assert.deepEqual(skipped, ['ap', 'east', 'eu', 'us', 'west']);
  } finally {
    rmSync(s.dir, { recursive: true, force: true });
  }
});

test('GIVEN every source skipped WHEN a source\'s own observation changes THEN that source is planned, and synth writes what a full render writes', async () => {
  const s = await settledScratch();
  try {
    // a Service of london's own now holds the name of its mirror of paris's bar: that mirror is skipped with a warning
    editLock(s, (lock) => {
      lock.observed.sources['london']!.foreignServices = [...(lock.observed.sources['london']!.foreignServices ?? []), { namespace: 'default', name: 'bar-paris' }];
    });
    const skipped = await assertSameAsFullRender(s);
    assert.deepEqual(skipped, ['ap', 'east', 'eu', 'us', 'west']);
  } finally {
    rmSync(s.dir, { recursive: true, force: true });
  }
});

test('GIVEN every source skipped WHEN a pinned IP in the lock changes THEN that source is planned, and synth writes what a full render writes', async () => {
  const s = await settledScratch();
  try {
    editLock(s, (lock) => {
      const ap = lock.compiled.pinnedServiceIPs!['ap']!;
      const key = Object.keys(ap)[0]!;
      ap[key] = '10.96.0.200';
    });
    const skipped = await assertSameAsFullRender(s);
    assert.deepEqual(skipped, ['east', 'eu', 'london', 'us', 'west']);
    assert.match(readFileSync(s.lockPath, 'utf8'), /"10\.96\.0\.200"/, 'the pinned IP is kept');
  } finally {
    rmSync(s.dir, { recursive: true, force: true });
  }
});

test('GIVEN every source skipped WHEN the fleet definition changes THEN every source is planned, and synth writes what a full render writes', async () => {
  const s = await settledScratch();
  try {
    const { default: defineFleet } = await import('../../clusters/fleet.js');
    const { Cluster, Link } = await import('../../src/index.js');
    const define = (fleet: Parameters<typeof defineFleet>[0]): void => {
      defineFleet(fleet);
      const paris = fleet.node.findChild('paris') as InstanceType<typeof Cluster>;
      new Link(fleet, 'madrid-from-paris', { source: new Cluster(fleet, 'madrid'), target: paris });
    };
    const skipped = await assertSameAsFullRender(s, { define });
    assert.deepEqual(skipped, []);
  } finally {
    rmSync(s.dir, { recursive: true, force: true });
  }
});

test('GIVEN every source skipped WHEN a file of a skipped source is deleted or resized by hand THEN that source is planned again, and synth writes what a full render writes', async () => {
  const s = await settledScratch();
  try {
    // GIVEN a file deleted in west's base unit, another resized in us's folder
    const deleted = join(s.outDir, 'west/from-east/shop/service-payments-east.yaml');
    const deletedText = readFileSync(deleted, 'utf8');
    unlinkSync(deleted);
    const us = readTree(join(s.outDir, 'us'));
    const resized = join(s.outDir, 'us', [...us.keys()].find((p) => p.startsWith('from-') && p.endsWith('.yaml') && !p.endsWith('kustomization.yaml'))!);
    const resizedText = readFileSync(resized, 'utf8');
    appendFileSync(resized, '# hand edit\n');
    const skipped = await assertSameAsFullRender(s);
    assert.deepEqual(skipped, ['ap', 'east', 'eu', 'london']);
    assert.equal(readFileSync(deleted, 'utf8'), deletedText);
    assert.equal(readFileSync(resized, 'utf8'), resizedText);
    // AND a cluster's kustomization.yaml edited by hand (same size) is put back although its source is skipped
    const kustomization = join(s.outDir, 'ap/kustomization.yaml');
    const original = readFileSync(kustomization, 'utf8');
    writeFileSync(kustomization, original.replace('Generated by mirrorc', 'Generated by mirrorC'));
    const again = await runLogged(s);
    assert.equal(again.result.exitCode, ExitCode.OK, again.result.error);
    assert.ok(skippedIn(again.lines).includes('ap'));
    assert.equal(readFileSync(kustomization, 'utf8'), original);
  } finally {
    rmSync(s.dir, { recursive: true, force: true });
  }
});

test('GIVEN a contested generic-gateway port WHEN the mirrors that held it are gone from the lock THEN the source whose planning asked is planned again (its recorded answers changed), and synth writes what a full render writes', async () => {
  const s = await settledScratch();
  try {
    // GIVEN lyon's geo is annotated with the port the fleet gives tiles: both claim 31001, and both are mirrored in london now
    editLock(s, (lock) => {
      const lyon = lock.observed.targets['lyon']!;
      lyon.services = lyon.services.map((svc) => (svc.name === 'geo' ? { ...svc, annotations: { ...svc.annotations, 'mirrorc.io/gateway-port': '31001' } } : svc));
    });
    // WHEN synth runs: london's planning asks whether each claimant is mirrored already (both are), so neither keeps the port
    assert.deepEqual(await assertSameAsFullRender(s), ['ap', 'east', 'eu', 'us', 'west']);
    const recorded = readLockDocument(s.lockPath).compiled.sources?.['london'];
    assert.deepEqual(recorded?.established, { 'lyon/default/geo': true, 'lyon/default/tiles': true });
    // THEN the next run, although no input changed, plans london again: the records now answer "not mirrored"
    assert.deepEqual(await assertSameAsFullRender(s), ['ap', 'east', 'eu', 'us', 'west']);
    assert.deepEqual(readLockDocument(s.lockPath).compiled.sources?.['london']?.established, { 'lyon/default/geo': false, 'lyon/default/tiles': false });
    // AND the run after that skips it
    const settled = await runLogged(s);
    assert.equal(settled.result.exitCode, ExitCode.OK, settled.result.error);
    assert.deepEqual(skippedIn(settled.lines), ['ap', 'east', 'eu', 'london', 'us', 'west']);
    assert.equal((await s.run({ mode: 'check' })).exitCode, ExitCode.OK);
  } finally {
    rmSync(s.dir, { recursive: true, force: true });
  }
});

test('GIVEN a source whose base creates a Namespace WHEN synth runs again with nothing changed THEN the source is skipped and delivery/ (whose Argo CD project allows that Namespace, read from the skipped base) is unchanged', async () => {
  const { Cluster, GitOpsDelivery, Link } = await import('../../src/index.js');
  // east and west of the example, west creating the shop namespace it lacks
  const define = (fleet: Parameters<NonNullable<SynthOptions['define']>>[0]): void => {
    const east = new Cluster(fleet, 'east');
    const west = new Cluster(fleet, 'west');
    new Link(fleet, 'east-from-west', { source: east, target: west, remoteDiscoveryCredentials: { provided: 'external' } });
    new Link(fleet, 'west-from-east', { source: west, target: east, createMissingNamespaces: true, remoteDiscoveryCredentials: { provided: 'external' } });
    new GitOpsDelivery(fleet, 'delivery', { repoUrl: 'https://github.com/example/fleet.git', revision: 'main', argoCd: { configMapChangeApplied: true } });
  };
  const s = scratch(readFileSync('clusters/fleet.lock.json', 'utf8'));
  try {
    editLock(s, (lock) => {
      lock.observed.sources['west']!.namespaces = lock.observed.sources['west']!.namespaces.filter((n) => n !== 'shop');
    });
    const first = await runLogged(s, { define, confirmRemovals: true });
    assert.equal(first.result.exitCode, ExitCode.OK, first.result.error);
    assert.ok(readTree(join(s.outDir, 'west/base')).has('namespace-shop.yaml'), 'west creates its shop namespace');
    const delivery = readTree(join(s.dir, 'delivery'));
    assert.ok([...delivery.values()].some((text) => /name: shop\b/.test(text)), 'the delivery manifests name the created namespace');
    const again = await runLogged(s, { define });
    assert.equal(again.result.exitCode, ExitCode.OK, again.result.error);
    assert.deepEqual(skippedIn(again.lines), ['east', 'west']);
    assert.deepEqual(readTree(join(s.dir, 'delivery')), delivery);
  } finally {
    rmSync(s.dir, { recursive: true, force: true });
  }
});

test('GIVEN a mirror-name clash decided by the recorded owner WHEN that owner is gone from the lock\'s records THEN the source is planned again (its recorded answer changed), and synth writes what a full render writes', async () => {
  const s = await settledScratch();
  try {
    // GIVEN lyon exports a service "maps": its mirror would take london's default/maps-lyon, which geo (renamed maps) owns
    editLock(s, (lock) => {
      const lyon = lock.observed.targets['lyon']!;
      const tiles = lyon.services.find((svc) => svc.name === 'tiles')!;
      lyon.services = [...lyon.services, { ...tiles, name: 'maps', labels: { ...tiles.labels, app: 'maps' }, annotations: { 'mirrorc.io/gateway-port': '31009' } }];
    });
    assert.deepEqual(await assertSameAsFullRender(s), ['ap', 'east', 'eu', 'us', 'west']);
    assert.deepEqual(readLockDocument(s.lockPath).compiled.sources?.['london']?.owners, { 'default/maps-lyon': 'lyon/default/geo' });
    assert.ok(readTree(join(s.outDir, 'london')).has('from-lyon/default/service-maps-lyon.yaml'), 'geo keeps its mirror');
    // WHEN the records no longer name geo as the owner (a hand edit of the lock)
    editLock(s, (lock) => {
      delete lock.compiled.units['london']!['from-lyon']!.mirrors!['default/maps-lyon'];
    });
    // THEN london is planned again: with no owner, neither claimant gets the name, as a full render of that lock decides
    assert.deepEqual(await assertSameAsFullRender(s), ['ap', 'east', 'eu', 'us', 'west']);
    assert.ok(!readTree(join(s.outDir, 'london')).has('from-lyon/default/service-maps-lyon.yaml'));
  } finally {
    rmSync(s.dir, { recursive: true, force: true });
  }
});

test('GIVEN a synth that failed after its commit point (an object not yet put in place) WHEN synth runs again THEN it walks the unit folders only after the interrupted write is completed, and writes what a full render writes', async () => {
  const s = await settledScratch();
  try {
    // GIVEN a changed gateway address, and a run that fails putting the first object in place (after its journal is committed)
    writeFileSync(s.lockPath, readFileSync(s.lockPath, 'utf8').replace('198.51.100.7', '198.51.100.8'));
    const lockText = readFileSync(s.lockPath, 'utf8');
    const failed = await s.run({ host: faultingHost('errno:EIO:apply-object') });
    assert.equal(failed.exitCode, ExitCode.WRITE_FAILED, failed.error);
    // WHEN synth runs again with a host that records its calls
    const calls: string[] = [];
    const recording = Object.fromEntries(Object.entries(NODE_FS_HOST).map(([name, fn]) => [name, (...args: unknown[]) => {
      calls.push(`${name}${typeof args[0] === 'string' && /^(apply|txn|journal)-/.test(args[0]) ? ` ${args[0]}` : ''}`);
      return (fn as (...a: unknown[]) => unknown)(...args);
    }])) as unknown as FsHost;
    const again = await s.run({ host: recording });
    assert.equal(again.exitCode, ExitCode.OK, again.error);
    // THEN the interrupted write was completed (its objects put in place) before the one walk of the unit folders
    const walk = calls.indexOf('folderFiles');
    assert.ok(walk > 0, `the unit folders were walked through the host: ${[...new Set(calls)].join(', ')}`);
    assert.equal(calls.lastIndexOf('folderFiles'), walk, 'one walk');
    const applied = calls.lastIndexOf('rename apply-object');
    assert.ok(applied >= 0 && applied < walk, `the recovery's apply-object renames come before the walk: ${calls.slice(0, walk + 1).filter((c) => c.includes(' ')).join(', ')}`);
    // (whatever is put in place after the walk is this run's own, committed after it)
    const commit = calls.indexOf('rename journal-commit', walk);
    calls.forEach((c, i) => assert.ok(i < walk || !c.includes(' apply-') || (commit >= 0 && commit < i), `${c} after the walk, before this run's commit`));
    // AND the output is what a full render of the lock writes
    await assertSameAsFullRun(s.outDir, s.lockPath, lockText);
  } finally {
    rmSync(s.dir, { recursive: true, force: true });
  }
});

// ---- Planning only the changed unit families (docs/incremental-planning.md, section 2) ----

/**
 * A full mesh of four generated clusters (bench/generate-services.ts: gateway, flat, federated and
 * headless services; 40 each), with a small pinned range (/26) and `-global` for the headless services of
 * `c04`. `x-c02` is named so that a mirror of `c02` can take a name that `x-c02`'s family holds
 * (`<svc>-x` of c02 and `<svc>` of x-c02 are both mirrored as `<svc>-x-c02`).
 */
const MESH = ['c01', 'c02', 'x-c02', 'c04'] as const;
const MESH_SERVICES = 40;

const defineMesh: NonNullable<SynthOptions['define']> = (fleet) => {
  const { Cluster, Link } = meshModel!;
  const clusters = MESH.map((name) => new Cluster(fleet, name, { pinnedServiceIPRange: '10.96.0.0/26' }));
  for (const source of clusters) {
    for (const target of clusters) {
      if (source === target) continue;
      new Link(fleet, `${source.name}-from-${target.name}`, { source, target, excludedLabels: ['cost-center.example.com/*'], remoteDiscoveryCredentials: { provided: 'external' }, ...(target.name === 'c04' ? { globalServices: true } : {}) });
    }
  }
};
let meshModel: typeof import('../../src/index.js') | undefined;

/** A scratch repository of the mesh: its lock (observation only) and an empty dist/. */
async function meshRepository(): Promise<Scratch> {
  meshModel ??= await import('../../src/index.js');
  const { sourceSnapshot, targetSnapshot } = await import('../../bench/generate-fleet.js');
  const shape = { clusters: MESH.length, services: MESH_SERVICES };
  const lock = {
    format: 3,
    observed: {
      targets: Object.fromEntries(MESH.map((name, i) => [name, targetSnapshot(shape, i)])),
      sources: Object.fromEntries(MESH.map((name, i) => [name, sourceSnapshot(shape, i)])),
    },
    compiled: { units: {} },
  };
  const dir = mkdtempSync(join(tmpdir(), 'mirrorc-families-'));
  const lockPath = join(dir, 'fleet.lock.json');
  writeFileSync(lockPath, `${JSON.stringify(lock, null, 2)}\n`);
  const outDir = join(dir, 'dist');
  const run = (o: Partial<SynthOptions> = {}) => runSynth({ fleetFile: 'clusters/fleet.ts', define: defineMesh, lockFile: lockPath, outDir, offline: true, log: () => {}, print: () => {}, ...o });
  return { dir, lockPath, outDir, run };
}

/** {@link meshRepository}, synthesised twice (settled). */
async function meshScratch(): Promise<Scratch> {
  const s = await meshRepository();
  assert.equal((await s.run()).exitCode, ExitCode.OK);
  const again = await runLogged(s);
  assert.equal(again.result.exitCode, ExitCode.OK, again.result.error);
  assert.deepEqual(skippedIn(again.lines), [...MESH].sort(), 'a settled mesh plans no source');
  const check = await s.run({ mode: 'check' });
  assert.equal(check.exitCode, ExitCode.OK, `settled: ${check.error}`);
  return s;
}

/** The sources the run's log says it planned in part, with the families each planned. */
function partialIn(lines: readonly string[]): Record<string, string> {
  const line = lines.find((l) => l.includes('planned in part ('));
  if (!line) return {};
  return Object.fromEntries(/planned in part \((.*)\)$/.exec(line)![1]!.split('; ').map((p) => p.split(': ') as [string, string]));
}

/** synth in `s` (incremental), then the same lock in full from an empty folder: same dist/, lock and warnings. Returns what was planned in part. */
async function assertMeshSameAsFull(s: Scratch, checked = true): Promise<Record<string, string>> {
  const lockText = readFileSync(s.lockPath, 'utf8');
  const { result, lines } = await runLogged(s, { confirmRemovals: true });
  assert.equal(result.exitCode, ExitCode.OK, result.error);
  const f = await assertSameAsFullRun(s.outDir, s.lockPath, lockText, { define: defineMesh, confirmRemovals: true });
  assert.deepEqual(result.warnings, f.warnings, 'the same warnings, in the same order, as a full run');
  assert.deepEqual(result.diagnostics, f.diagnostics);
  // AND check (every source planned in full, every file compared) agrees
  if (checked) {
    const check = await s.run({ mode: 'check' });
    assert.equal(check.exitCode, ExitCode.OK, check.error);
  }
  return partialIn(lines);
}

type Service = LockDocument['observed']['targets'][string]['services'][number];

/** Edits the services of target `target` in the lock of `s`. */
function editServices(s: Scratch, target: string, edit: (services: Service[]) => Service[]): void {
  editLock(s, (lock) => {
    lock.observed.targets[target]!.services = edit(lock.observed.targets[target]!.services);
  });
}

const isMode = (svc: Service, key: string, value: string): boolean => svc.labels[key] === value;
const GATEWAY = (svc: Service): boolean => isMode(svc, 'mirror.linkerd.io/exported', 'true') && !svc.headless;
const FEDERATED = (svc: Service): boolean => isMode(svc, 'mirror.linkerd.io/federated', 'member');
const HEADLESS = (svc: Service): boolean => svc.headless === true;
const bumpPorts = (svc: Service): Service => ({ ...svc, ports: svc.ports.map((p) => ({ ...p, port: p.port + 1 })) });
/** The other sources, which plan c02's family and shared alone. */
const OTHERS_PLAN_C02 = { 'c04': 'from-c02 shared', 'c01': 'from-c02 shared', 'x-c02': 'from-c02 shared' };

test('GIVEN a settled full mesh WHEN one target changes in each way (port, new and removed service, federated member, headless pods, a name clash created and resolved, a foreign Service in a source, the pinned range exhausted and freed) THEN each incremental run, planning only the changed families where it can, writes what a full run writes and prints the same warnings', async () => {
  const s = await meshScratch();
  try {
    // a gateway service's port: every other source plans c02's link alone (what it gives the source-wide steps is unchanged: shared is kept)
    editServices(s, 'c02', (services) => { const i = services.findIndex(GATEWAY); return services.map((svc, j) => (j === i ? bumpPorts(svc) : svc)); });
    assert.deepEqual(await assertMeshSameAsFull(s), { 'c04': 'from-c02', 'c01': 'from-c02', 'x-c02': 'from-c02' });
    // a new service, then a service removed
    editServices(s, 'c02', (services) => { const g = services.find(GATEWAY)!; return [...services, { ...g, name: 'added-svc' }]; });
    assert.deepEqual(await assertMeshSameAsFull(s), OTHERS_PLAN_C02);
    editServices(s, 'c02', (services) => services.filter((svc) => svc.name !== services.find(GATEWAY)!.name));
    assert.deepEqual(await assertMeshSameAsFull(s), OTHERS_PLAN_C02);
    // a federated member's ports (the shared family's federated Services)
    editServices(s, 'c02', (services) => { const i = services.findIndex(FEDERATED); return services.map((svc, j) => (j === i ? bumpPorts(svc) : svc)); });
    assert.deepEqual(await assertMeshSameAsFull(s), OTHERS_PLAN_C02);
    // a headless service's pods of c04 (its -global Services; a new per-pod Service gets a new pinned IP: every family's inputs change, so the sources are planned whole)
    editServices(s, 'c04', (services) => services.map((svc) => (HEADLESS(svc) && svc === services.find(HEADLESS) ? { ...svc, hostnames: [...(svc.hostnames ?? []), `${svc.name}-9`] } : svc)));
    assert.deepEqual(await assertMeshSameAsFull(s), {});
    // a headless service's ports, its pods unchanged: planned in part (its per-pod Services keep their pinned IPs)
    editServices(s, 'c04', (services) => services.map((svc) => (svc === services.find(HEADLESS) ? bumpPorts(svc) : svc)));
    assert.deepEqual(await assertMeshSameAsFull(s), { 'c01': 'from-c04 shared', 'c02': 'from-c04 shared', 'x-c02': 'from-c04 shared' });
    // a name clash across families: c02 exports "<svc>-x", whose mirror "<svc>-x-c02" is the name x-c02's mirror of <svc> holds
    const held = readLockDocument(s.lockPath).observed.targets['x-c02']!.services.find(GATEWAY)!;
    editServices(s, 'c02', (services) => [...services, { ...services.find(GATEWAY)!, namespace: held.namespace, name: `${held.name}-x` }]);
    const clash = await assertMeshSameAsFull(s);
    assert.ok(!('c01' in clash) && !('c04' in clash), `a source where the clash happens is planned whole: ${JSON.stringify(clash)}`);
    assert.ok(readFileSync(s.lockPath, 'utf8').includes(`would all be mirrored as Service ${held.namespace}/${held.name}-x-c02`), 'the clash was reported');
    // ... and resolved (the clash's record sends the sources to a whole plan once more)
    editServices(s, 'c02', (services) => services.filter((svc) => svc.name !== `${held.name}-x`));
    assert.deepEqual(await assertMeshSameAsFull(s), { 'x-c02': 'from-c02 shared' });
    assert.deepEqual(await assertMeshSameAsFull(s), {}, 'nothing changed: every source is skipped');
    // a name clash within the changed family: a gateway service of c02 named as a pod of its headless service ("<pod>-c02" twice), then resolved
    const pod = readLockDocument(s.lockPath).observed.targets['c02']!.services.find(HEADLESS)!;
    editServices(s, 'c02', (services) => [...services, { ...services.find(GATEWAY)!, namespace: pod.namespace, name: `${pod.name}-0` }]);
    assert.deepEqual(await assertMeshSameAsFull(s), {}, 'every source of c02 has the clash: planned whole');
    assert.ok(readFileSync(s.lockPath, 'utf8').includes(`Service ${pod.namespace}/${pod.name}-0-c02`), 'the clash was reported');
    editServices(s, 'c02', (services) => services.filter((svc) => svc.name !== `${pod.name}-0`));
    assert.deepEqual(await assertMeshSameAsFull(s), {});
    // a mirror name too long for Kubernetes in x-c02's family (skipped with a warning of name isolation, which a full plan reports after every link's) stays while c02 changes: the sources that report it are planned whole
    editServices(s, 'x-c02', (services) => [...services, { ...services.find(GATEWAY)!, name: `long-${'n'.repeat(56)}` }]);
    assert.deepEqual(await assertMeshSameAsFull(s), {}, 'the planned family has the long name: planned whole');
    assert.ok(readFileSync(s.lockPath, 'utf8').includes(`long-${'n'.repeat(56)}-x-c02`), 'the long name was reported');
    editServices(s, 'c02', (services) => { const i = services.findIndex(GATEWAY); return services.map((svc, j) => (j === i ? bumpPorts(svc) : svc)); });
    assert.deepEqual(await assertMeshSameAsFull(s), { 'x-c02': 'from-c02' });
    editServices(s, 'x-c02', (services) => services.filter((svc) => !svc.name.startsWith('long-')));
    assert.deepEqual(await assertMeshSameAsFull(s), {});
    // a clash no one owns (both claimants new at once: both skipped), resolved by one side: the other side's kept family must get its mirror back
    const other = readLockDocument(s.lockPath).observed.targets['x-c02']!.services.find(GATEWAY)!;
    editServices(s, 'x-c02', (services) => [...services, { ...other, name: 'zz' }]);
    editServices(s, 'c02', (services) => [...services, { ...services.find(GATEWAY)!, namespace: other.namespace, name: 'zz-x' }]);
    assert.deepEqual(await assertMeshSameAsFull(s), { 'c02': 'from-x-c02 shared', 'x-c02': 'from-c02 shared' }, 'the sources of both (c01, c04) have the clash: planned whole');
    assert.ok(readFileSync(s.lockPath, 'utf8').includes('none of them has that mirror yet'), 'neither claimant got the name');
    editServices(s, 'c02', (services) => services.filter((svc) => svc.name !== 'zz-x'));
    assert.deepEqual(await assertMeshSameAsFull(s), { 'x-c02': 'from-c02 shared' });
    assert.ok(readTree(join(s.outDir, 'c04')).has(`from-x-c02/${other.namespace}/service-zz-x-c02.yaml`), 'x-c02\'s zz is mirrored now');
    // a source's own namespace gone (its base digest: every family of it reads its namespaces) while c02 changes: that source is planned whole
    editLock(s, (lock) => {
      lock.observed.sources['c04']!.namespaces = lock.observed.sources['c04']!.namespaces.filter((n) => n !== other.namespace);
    });
    editServices(s, 'c02', (services) => { const i = services.findIndex(GATEWAY); return services.map((svc, j) => (j === i ? bumpPorts(svc) : svc)); });
    assert.deepEqual(await assertMeshSameAsFull(s), { 'c01': 'from-c02', 'x-c02': 'from-c02' });
    // a foreign Service appears in c01 (its own observation: planned whole) while a port of c02 changes (the others: in part)
    editLock(s, (lock) => {
      const mirror = Object.keys(lock.compiled.units['c01']!['from-c04']!.mirrors!)[0]!;
      const [namespace, name] = mirror.split('/') as [string, string];
      lock.observed.sources['c01']!.foreignServices = [{ namespace, name }];
    });
    editServices(s, 'c02', (services) => { const i = services.findIndex(GATEWAY); return services.map((svc, j) => (j === i ? bumpPorts(svc) : svc)); });
    assert.deepEqual(await assertMeshSameAsFull(s), { 'c04': 'from-c02', 'x-c02': 'from-c02' });
    // the pinned range filled exactly (a /26: 60 addresses free besides the two live Services) for c01, whose per-pod Services all get one
    const usedByC01 = Object.keys(readLockDocument(s.lockPath).compiled.pinnedServiceIPs?.['c01'] ?? {}).length;
    const morePods = (svc: Service, count: number, from: number): Service => ({ ...svc, hostnames: [...(svc.hostnames ?? []), ...Array.from({ length: count }, (_, k) => `${svc.name}-${from + k}`)] });
    editServices(s, 'c02', (services) => services.map((svc) => (svc === services.find(HEADLESS) ? morePods(svc, 60 - usedByC01, 10) : svc)));
    assert.deepEqual(await assertMeshSameAsFull(s), {});
    assert.equal(Object.keys(readLockDocument(s.lockPath).compiled.pinnedServiceIPs?.['c01'] ?? {}).length, 60);
    // the range exhausted: one pod more, on another headless service of c02; c01 cannot pin it (its pinned IPs stay as they are)
    editServices(s, 'c02', (services) => services.map((svc) => (svc === services.filter(HEADLESS)[1] ? morePods(svc, 1, 10) : svc)));
    // (a run that could not pin every IP is no fixed point: the lock keeps the IPs planning read, and the next run plans the source again, so check is not asked here)
    assert.deepEqual(await assertMeshSameAsFull(s, false), {});
    const exhausted = Object.entries(readLockDocument(s.lockPath).compiled.sources ?? {}).filter(([, r]) => (r.warnings ?? []).some((w) => w.code === Diag.PINNED_IP_UNAVAILABLE.code)).map(([c]) => c);
    assert.ok(exhausted.includes('c01'), `the exhausted range was reported: ${exhausted.join(', ')}`);
    // and freed again
    editServices(s, 'c02', (services) => services.map((svc) => (svc === services.filter(HEADLESS)[1] ? { ...svc, hostnames: (svc.hostnames ?? []).slice(0, 3) } : svc)));
    await assertMeshSameAsFull(s, false);
    editServices(s, 'c02', (services) => services.map((svc) => (svc === services.find(HEADLESS) ? { ...svc, hostnames: (svc.hostnames ?? []).slice(0, 3) } : svc)));
    await assertMeshSameAsFull(s);
    // a file of a family c04 would keep is deleted by hand while c02 changes: c04 is planned whole, and the file is back
    const keptFile = [...readTree(join(s.outDir, 'c04')).keys()].find((p) => p.startsWith('from-x-c02/') && !p.endsWith('kustomization.yaml'))!;
    unlinkSync(join(s.outDir, 'c04', keptFile));
    editServices(s, 'c02', (services) => { const i = services.findIndex(GATEWAY); return services.map((svc, j) => (j === i ? bumpPorts(svc) : svc)); });
    assert.deepEqual(await assertMeshSameAsFull(s), { 'x-c02': 'from-c02' });
    assert.ok(readTree(join(s.outDir, 'c04')).has(keptFile));
    // and a port change after all that is planned in part again
    editServices(s, 'c02', (services) => { const i = services.findIndex(GATEWAY); return services.map((svc, j) => (j === i ? bumpPorts(svc) : svc)); });
    assert.deepEqual(await assertMeshSameAsFull(s), { 'c04': 'from-c02', 'x-c02': 'from-c02' });
  } finally {
    rmSync(s.dir, { recursive: true, force: true });
  }
});

test('GIVEN the mesh from empty WHEN synth writes it THEN each folder lists its first 100 added files and counts the rest; --verbose lists every one', async () => {
  for (const verbosity of ['normal', 'verbose'] as const) {
    const s = await meshRepository();
    try {
      const lines: string[] = [];
      const result = await s.run({ log: (l) => lines.push(l), verbosity });
      assert.equal(result.exitCode, ExitCode.OK, result.error);
      const header = lines.findIndex((l) => l.endsWith(`${join(s.outDir, 'c01')}/: ${readTree(join(s.outDir, 'c01')).size} added, 0 changed, 0 removed`));
      assert.ok(header >= 0, `the c01 folder's line, counting every file on disk: ${lines.slice(0, 5).join(' | ')}`);
      const added = readTree(join(s.outDir, 'c01')).size;
      assert.ok(added > 100, `the mesh's c01 folder has more than 100 files (${added})`);
      const listed: string[] = [];
      for (const l of lines.slice(header + 1)) {
        if (!l.startsWith('  + ')) break;
        listed.push(l.slice(4));
      }
      if (verbosity === 'normal') {
        assert.equal(listed.length, 100);
        assert.equal(lines[header + 101], `  … and ${added - 100} more added (--verbose lists every file)`);
      } else {
        assert.deepEqual(listed, [...readTree(join(s.outDir, 'c01')).keys()]);
        assert.ok(!lines.some((l) => l.includes('more added')));
      }
    } finally {
      rmSync(s.dir, { recursive: true, force: true });
    }
  }
});

test('GIVEN a settled mesh whose families are split into shards WHEN one service of a target changes THEN each source reads and writes only the shard holding its mirror (the other shards render to the very files their folders hold), of it only the part holding the mirror\'s files, and synth writes what a full run writes', async () => {
  const s = await meshRepository();
  const small = { maxUnitObjects: 24 };
  try {
    assert.equal((await s.run(small)).exitCode, ExitCode.OK);
    assert.equal((await s.run(small)).exitCode, ExitCode.OK);
    // GIVEN the first gateway service of c02 gets another port
    let changed: string | undefined;
    editServices(s, 'c02', (services) => services.map((svc) => {
      if (changed !== undefined || !GATEWAY(svc)) return svc;
      changed = `c02/${svc.namespace}/${svc.name}`;
      return bumpPorts(svc);
    }));
    assert.ok(changed);
    const lockText = readFileSync(s.lockPath, 'utf8');
    // WHEN synth runs with a host that records the files it reads
    const reads: string[] = [];
    const recording: FsHost = { ...NODE_FS_HOST, readFile: (path: string) => {
      reads.push(path);
      return NODE_FS_HOST.readFile(path);
    } };
    const result = await s.run({ ...small, host: recording });
    assert.equal(result.exitCode, ExitCode.OK, result.error);
    // THEN in every other source, of the units only the c02 family's shard holding the changed mirror was read, and only it changed
    const units = readLockDocument(s.lockPath).compiled.units;
    const readUnits = new Map<string, Set<string>>();
    const readFiles = new Map<string, string[]>();
    for (const path of reads) {
      const rel = relative(s.outDir, path).split(sep);
      // (The base units are read for the Namespaces the delivery manifests name, as in every run.)
      if (rel[0] === '..' || rel.length < 3 || rel[1] === 'base') continue;
      let set = readUnits.get(rel[0]!);
      if (!set) readUnits.set(rel[0]!, (set = new Set()));
      set.add(rel[1]!);
      readFiles.set(rel[0]!, [...(readFiles.get(rel[0]!) ?? []), rel.slice(2).join('/')]);
    }
    for (const source of MESH.filter((c) => c !== 'c02')) {
      const shards = Object.keys(units[source]!).filter((u) => parseUnitName(u)?.family === 'from-c02');
      assert.ok(shards.length > 1, `${source}: the c02 family is split (${shards.join(', ')})`);
      const holding = shards.filter((u) => Object.values(units[source]![u]!.mirrors ?? {}).includes(changed!));
      assert.equal(holding.length, 1, `${source}: one shard holds the mirror of ${changed}`);
      assert.deepEqual([...(readUnits.get(source) ?? [])].sort(), holding, `${source}: only the shard holding the changed mirror is read`);
      // AND of that shard, only the part holding the changed mirror's files: its Service file, not most of the others
      const [, namespace, service] = changed!.split('/');
      const mirrorName = Object.entries(units[source]![holding[0]!]!.mirrors ?? {}).find(([, origin]) => origin === changed)![0].split('/')[1];
      const read = readFiles.get(source) ?? [];
      assert.ok(read.includes(`${namespace}/service-${mirrorName}.yaml`), `${source}: the changed mirror's Service file (of ${service}) is read: ${read.join(', ')}`);
      assert.ok(read.length * 2 < units[source]![holding[0]!]!.files.count, `${source}: ${read.length} of the shard's ${units[source]![holding[0]!]!.files.count} files are read`);
      const change = result.changes.find((c) => c.cluster === source);
      assert.ok(change && change.changed.length > 0 && change.added.length === 0 && change.removed.length === 0, `${source}: files changed`);
      for (const path of change.changed) assert.ok(path.startsWith(`${holding[0]}/`), `${source}: ${path} lies in ${holding[0]}`);
      for (const unit of shards) assert.match(units[source]![unit]!.content ?? '', /^[0-9a-f]{64}$/, `${source}/${unit} records its content digest`);
    }
    assert.deepEqual([...(readUnits.get('c02') ?? [])], [], 'c02 (whose targets did not change) is not read');
    // AND the output and the lock are those of a full run of the same lock from an empty folder
    await assertSameAsFullRun(s.outDir, s.lockPath, lockText, { define: defineMesh, ...small });
  } finally {
    rmSync(s.dir, { recursive: true, force: true });
  }
});
