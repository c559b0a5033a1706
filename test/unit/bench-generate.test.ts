/** The benchmark's fleet generator (bench/): deterministic, canonical, and accepted by the compiler. */
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { changeOneService } from '../../bench/run-synth-bench.js';
import { readLock } from '../../src/observe/lock-file.js';
import { clusterNames, furtherServiceCidrs, perPodMirrorsPerSource, writeGeneratedRepo } from '../../bench/generate-fleet.js';
import { pastBand } from '../../bench/argocd-bench.js';
import { generatedServices, serviceMode } from '../../bench/generate-services.js';
import { compareSnapshots, snapshotTree } from '../../bench/tree-snapshot.js';
import { runSynth, type SynthOptions } from '../../src/pipeline/run-synth.js';
import type { SynthStage } from '../../src/pipeline/stage-timer.js';
import { readLockFile, renderLockFile } from '../../src/observe/lock-file.js';
import { readTree } from '../../src/emit/write-output.js';

function scratch(): string {
  return mkdtempSync(join(tmpdir(), 'mirrorc-bench-test-'));
}

test('GIVEN a seed and a size WHEN the fleet is generated twice THEN both fleet files and locks are byte-identical, and another seed changes the metadata', () => {
  const [a, b, c] = [scratch(), scratch(), scratch()];
  try {
    const first = writeGeneratedRepo(a, { clusters: 3, services: 40, seed: 7 });
    const second = writeGeneratedRepo(b, { clusters: 3, services: 40, seed: 7 });
    const other = writeGeneratedRepo(c, { clusters: 3, services: 40, seed: 8 });
    assert.equal(readFileSync(first.fleetFile, 'utf8'), readFileSync(second.fleetFile, 'utf8'));
    assert.equal(readFileSync(first.lockFile, 'utf8'), readFileSync(second.lockFile, 'utf8'));
    assert.notEqual(readFileSync(first.lockFile, 'utf8'), readFileSync(other.lockFile, 'utf8'));
  } finally {
    for (const d of [a, b, c]) rmSync(d, { recursive: true, force: true });
  }
});

test('GIVEN a generated lock, streamed cluster by cluster WHEN it is read and rendered again THEN the text is unchanged (canonical, as observation writes it)', () => {
  const dir = scratch();
  try {
    const repo = writeGeneratedRepo(dir, { clusters: 4, services: 20 });
    const text = readFileSync(repo.lockFile, 'utf8');
    const lock = readLockFile(repo.lockFile);
    assert.equal(renderLockFile(lock), text);
    assert.deepEqual(Object.keys(lock.targets), clusterNames(4));
    assert.equal(lock.targets.c02!.services.length, 20);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('GIVEN 20 services WHEN their modes are generated THEN 14 are gateway, 3 flat, 2 federated and 1 headless with 3 pods, and awkward metadata is present', () => {
  const modes = Array.from({ length: 20 }, (_, i) => serviceMode(i));
  assert.deepEqual(
    { gateway: modes.filter((m) => m === 'gateway').length, flat: modes.filter((m) => m === 'flat').length, federated: modes.filter((m) => m === 'federated').length, headless: modes.filter((m) => m === 'headless').length },
    { gateway: 14, flat: 3, federated: 2, headless: 1 },
  );
  const services = generatedServices(1, 0, 20);
  const headless = services.filter((s) => s.headless);
  assert.equal(headless.length, 1);
  assert.equal(headless[0]!.hostnames!.length, 3);
  const values = services.flatMap((s) => [...Object.values(s.labels), ...Object.values(s.annotations)]);
  for (const awkward of ['0o12', '1e3']) assert.ok(values.includes(awkward), `a value "${awkward}"`);
  assert.ok(values.some((v) => v.includes('\u0085')), 'a value with NEL');
});

test('GIVEN a generated 3 x 10 fleet WHEN synth compiles it offline twice THEN it succeeds warning only of the NEL value (kustomize cannot carry it), writes every cluster, reports each stage, and the second tree equals the first', async () => {
  const dir = scratch();
  try {
    const repo = writeGeneratedRepo(dir, { clusters: 3, services: 10 });
    const stages: SynthStage[] = [];
    const options: SynthOptions = { fleetFile: repo.fleetFile, lockFile: repo.lockFile, outDir: repo.outDir, offline: true, log: () => {}, onStage: (s) => stages.push(s) };
    const first = await runSynth(options);
    assert.equal(first.exitCode, 0, first.error);
    // The generated owner with a NEL is the one value the metadata policy leaves out, with a warning.
    assert.ok(first.warnings.length > 0);
    assert.deepEqual(first.warnings.filter((w) => !/"docs\.example\.com\/owner" is not copied to the mirror: it holds U\+0085/.test(w)), []);
    assert.deepEqual(stages, ['load', 'compile', 'render', 'diff', 'write']);
    const tree = readTree(repo.outDir);
    for (const c of clusterNames(3)) assert.ok([...tree.keys()].some((p) => p.startsWith(`${c}/`)), `dist/${c}/ has files`);
    // Per-pod mirrors of the headless service got pinned IPs, remembered in the lock.
    assert.ok(readLockFile(repo.lockFile).pinnedServiceIPs?.c01, 'pinned IPs for c01');
    const second = await runSynth(options);
    assert.equal(second.exitCode, 0, second.error);
    assert.deepEqual(readTree(repo.outDir), tree);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('GIVEN a generated fleet whose sources pin more per-pod mirrors than one static band holds (6 x 340: 255 each) WHEN synth compiles it offline THEN no pinned-range warning (MRC3025, MRC3026), and every pin lies in the static band of one of the Service CIDRs declared, the first block full before the second takes one', async () => {
  const dir = scratch();
  try {
    const shape = { clusters: 6, services: 340 };
    const repo = writeGeneratedRepo(dir, shape);
    assert.equal(perPodMirrorsPerSource(shape), 255);
    assert.deepEqual(furtherServiceCidrs(shape), ['10.97.0.0/16']);
    const result = await runSynth({ fleetFile: repo.fleetFile, lockFile: repo.lockFile, outDir: repo.outDir, offline: true, log: () => {} });
    assert.equal(result.exitCode, 0, result.error);
    assert.deepEqual(result.diagnostics.filter((d) => d.code === 'MRC3025' || d.code === 'MRC3026').map((d) => d.message), []);
    const pinned = readLockFile(repo.lockFile).pinnedServiceIPs ?? {};
    assert.deepEqual(Object.keys(pinned), clusterNames(6));
    for (const [source, ips] of Object.entries(pinned)) {
      const all = Object.values(ips);
      assert.equal(all.length, 255, source);
      assert.deepEqual(all.filter((ip) => pastBand(ip, ['10.96.0.0/16', ...furtherServiceCidrs(shape)])), [], `${source}: pins past every static band`);
      // 10.96.0.1 (kubernetes) and 10.96.0.10 (kube-dns) are held: 252 pins in the first block, 3 in the second
      assert.equal(all.filter((ip) => ip.startsWith('10.96.0.')).length, 252, source);
      assert.equal(all.filter((ip) => ip.startsWith('10.97.0.')).length, 3, source);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('GIVEN a compiled generated fleet WHEN one service port changes in the lock and synth runs THEN only that service\'s mirrors (one per other cluster) and the lock get new content', async () => {
  const dir = scratch();
  try {
    const repo = writeGeneratedRepo(dir, { clusters: 3, services: 10 });
    const options: SynthOptions = { fleetFile: repo.fleetFile, lockFile: repo.lockFile, outDir: repo.outDir, offline: true, log: () => {} };
    assert.equal((await runSynth(options)).exitCode, 0);
    const before = snapshotTree(dir);
    const recorded = readLock(repo.lockFile).sources;
    const note = changeOneService(repo.lockFile);
    assert.match(note, /^c01 analytics\/api-0 port 80 → 81$/);
    // the lock keeps its source records, as the lock of a real one-change run does (a source not linking c01 is skipped, the others planned in part)
    assert.ok(recorded && Object.keys(recorded).length === 3);
    assert.deepEqual(readLock(repo.lockFile).sources, recorded);
    assert.equal((await runSynth(options)).exitCode, 0);
    const writes = compareSnapshots(before, snapshotTree(dir, before));
    assert.deepEqual(writes.changedPaths, ['clusters/fleet.lock.json', 'dist/c02/from-c01/analytics/service-api-0-c01.yaml', 'dist/c03/from-c01/analytics/service-api-0-c01.yaml']);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
