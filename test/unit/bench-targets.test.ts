/** The benchmark's target lines (issue 18) and its --flux-size option: evaluated from given figures, no timing. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { doubleInputLines, median, meshMirrors, summarize, targetLines } from '../../bench/bench-targets.js';
import { sortedRuns } from '../../bench/synth-table.js';
import { fluxSize, parseSizes, UsageError } from '../../bench/bench-options.js';
import type { SynthMeasurement, SynthRun } from '../../bench/run-synth-bench.js';
import type { DeliveryMeasurement } from '../../bench/delivery-bench.js';

function run(size: string, kind: SynthRun, wallS: number, cpuS: number, extra: Partial<SynthMeasurement> = {}): SynthMeasurement {
  return {
    size, run: kind, round: 1, exitCode: 0, wallMs: wallS * 1000, cpuMs: cpuS * 1000, cpuSystemMs: cpuS * 300, peakRssMiB: 500, startupMs: 100, synthMs: wallS * 900, stages: {},
    writes: { written: 0, bytes: 0, changed: 0, files: 1000, changedPaths: [] }, ...extra,
  };
}

const line = (lines: readonly string[], re: RegExp): string => {
  const found = lines.find((l) => re.test(l));
  assert.ok(found, `no line matches ${re}:\n${lines.join('\n')}`);
  return found;
};

test('GIVEN 20x500 figures WHEN the targets are evaluated THEN each of the issue\'s targets gets its verdict from its own figure, and a run not made is NOT MEASURED', () => {
  const synth = [
    run('20x500', 'nochange', 2.5, 2.0),
    run('20x500', 'onechange', 3.4, 2.9, { writes: { written: 21, bytes: 10, changed: 21, files: 1000, changedPaths: ['a'] }, peakRssMiB: 1500 }),
  ];
  const delivery: DeliveryMeasurement[] = [{ size: '20x500', units: 10, maxUnitsPerCluster: 2, largest: 'c01/from-c02', largestObjects: 430, kustomizeMs: 5200 }];
  const lines = targetLines(synth, delivery);
  assert.match(line(lines, /20x500 no-change/), /^ {2}MET {10}/);
  assert.match(line(lines, /20x500 one changed service/), /^ {2}NOT MET/);
  assert.match(line(lines, /20x500 cold synth < 30 s/), /^ {2}NOT MEASURED/);
  // The peak is the largest of every run of the size, whichever run it was.
  assert.match(line(lines, /peak RSS < 1 GiB/), /NOT MET .*1,500 MiB \(onechange/);
  assert.match(line(lines, /every delivery unit renders/), /NOT MET .*5\.20 s/);
  assert.match(line(lines, /2x the input/), /NOT MEASURED/);
});

test('GIVEN a no-change run under 3 s that wrote a file THEN the no-change target is NOT MET (it must write nothing)', () => {
  const lines = targetLines([run('20x500', 'nochange', 1, 1, { writes: { written: 1, bytes: 5, changed: 0, files: 9, changedPaths: [] } })], []);
  assert.match(line(lines, /20x500 no-change/), /NOT MET/);
});

test('GIVEN 10x250, 20x250 and 20x500 runs WHEN twice the input is checked THEN only the same run kind of sizes whose mirrors double is compared, by CPU, not wall', () => {
  const ok = [
    run('10x250', 'cold', 10, 5),
    run('20x250', 'cold', 40, 20),
    run('20x500', 'cold', 60, 44), // cpu 2.2x (NOT MET) although wall is 1.5x
    run('20x250', 'nochange', 4, 2),
    run('20x500', 'nochange', 12, 4), // cpu 2.0x (MET) although wall is 3x
  ];
  const lines = doubleInputLines(ok);
  assert.match(line(lines, /20x250 -> 20x500, cold/), /^NOT MET .*cpu 2\.20x.*wall 1\.50x/);
  assert.match(line(lines, /20x250 -> 20x500, nochange/), /^MET .*cpu 2\.00x.*wall 3\.00x/);
  // 10x250 -> 20x250 doubles N x S but the mesh's mirrors grow 4.22x: information, no verdict.
  assert.match(line(lines, /10x250 -> 20x250 cold/), /^\(information\).*4\.22x/);
  assert.equal(lines.filter((l) => /MET/.test(l)).length, 2, lines.join('\n'));
  assert.ok(!lines.some((l) => /20x250 -> 20x500, cold.*nochange|nochange.*cold/.test(l)), 'a cold run is never compared with a no-change run');
  assert.equal(meshMirrors('20x500'), 190_000);
});

test('GIVEN three rounds WHEN twice the input is checked THEN the medians are compared (one noisy pair does not decide), with the user and kernel parts beside them', () => {
  const ok = [
    run('20x250', 'cold', 8, 10, { round: 1, cpuSystemMs: 3000 }),
    run('20x500', 'cold', 20, 25, { round: 1, cpuSystemMs: 9000 }), // this pair alone: 2.50x
    run('20x500', 'cold', 16, 21, { round: 2, cpuSystemMs: 6000 }),
    run('20x250', 'cold', 9, 11, { round: 2, cpuSystemMs: 3000 }),
    run('20x250', 'cold', 11, 14, { round: 3, cpuSystemMs: 4000 }),
    run('20x500', 'cold', 15, 19, { round: 3, cpuSystemMs: 5000 }),
  ];
  const lines = doubleInputLines(ok);
  // Medians: cpu 11 -> 21 s (1.91x); user 8 -> 15 s (1.88x); sys 3 -> 6 s (2.00x); wall 9 -> 16 s.
  assert.match(line(lines, /20x250 -> 20x500, cold/), /^MET .*cpu 1\.91x \(user 1\.88x, sys 2\.00x; medians of 10\.00, 11\.00, 14\.00 -> 25\.00, 21\.00, 19\.00 s\), wall 1\.78x/);
  assert.equal(median([3, 1, 2]), 2);
  assert.equal(median([4, 1, 3, 2]), 2.5);
  const [s] = summarize([run('5x100', 'cold', 1, 1, { round: 2 }), run('5x100', 'cold', 3, 3, { round: 1 }), run('5x100', 'cold', 2, 2, { round: 3, exitCode: 1 })]);
  assert.deepEqual(s!.rounds.map((r) => r.round), [1, 2], 'the rounds that succeeded, in round order');
  assert.deepEqual(s!.failed.map((r) => r.round), [3], 'the failed round is kept apart');
  assert.equal(s!.wallMs, 2000, 'the median of the rounds that succeeded');
});

test('GIVEN three rounds of 20x500 WHEN the quick targets are evaluated THEN the median wall decides, but a round that wrote what it should not fails the target', () => {
  const wrote = { writes: { written: 1, bytes: 5, changed: 0, files: 9, changedPaths: [] } };
  const lines = targetLines([
    run('20x500', 'nochange', 1.0, 1, { round: 1 }),
    run('20x500', 'nochange', 9.0, 1, { round: 2 }),
    run('20x500', 'nochange', 1.2, 1, { round: 3, ...wrote }),
    run('20x500', 'cold', 40, 40, { round: 1 }),
    run('20x500', 'cold', 20, 20, { round: 2 }),
    run('20x500', 'cold', 25, 25, { round: 3 }),
  ], []);
  assert.match(line(lines, /20x500 no-change/), /^ {2}NOT MET .*: 1\.20 s \(median of 1\.00, 9\.00, 1\.20 s\).*1 written \(round 3\)/);
  assert.match(line(lines, /20x500 cold synth < 30 s/), /^ {2}MET .*25\.00 s \(median of 40\.00, 20\.00, 25\.00 s\)/);
});

test('GIVEN three rounds in which one run failed WHEN the targets are evaluated THEN its target is NOT MET and says which round, the other rounds still give the figures', () => {
  const changed = (paths: string[]) => ({ writes: { written: paths.length, bytes: 9, changed: paths.length, files: 1000, changedPaths: paths }, note: 'c02 port' });
  const synth = [
    run('20x250', 'cold', 7, 10, { round: 1 }), run('20x250', 'cold', 7, 10, { round: 2 }), run('20x250', 'cold', 7, 10, { round: 3 }),
    run('20x500', 'cold', 14, 19, { round: 1 }), run('20x500', 'cold', 14, 19, { round: 2, exitCode: 1, peakRssMiB: 1100 }), run('20x500', 'cold', 14, 19, { round: 3 }),
    run('20x500', 'onechange', 2, 3, { round: 1, exitCode: 1 }),
    run('20x500', 'onechange', 2, 3, { round: 2, ...changed(['dist/c01/a.yaml']) }),
    run('20x500', 'onechange', 2.2, 3, { round: 3, ...changed(['dist/c01/a.yaml']) }),
  ];
  const lines = targetLines(synth, []);
  assert.match(line(lines, /20x500 one changed service/), /^ {2}NOT MET .*2\.10 s \(median of 2\.00, 2\.20 s\).*; round 1 failed \(exit 1\)$/);
  assert.match(line(lines, /20x500 cold synth < 30 s/), /^ {2}NOT MET .*14\.00 s.*; round 2 failed \(exit 1\)$/);
  // The failed run's peak counts (a run killed for its memory is what the target is about); rounds are named.
  assert.match(line(lines, /peak RSS < 1 GiB/), /NOT MET .*1,100 MiB \(cold r2; cold r1 500, cold r2 1,100, cold r3 500/);
  assert.match(line(lines, /2x the input \(20x250 -> 20x500, cold\)/), /^ {2}NOT MET .*cpu 1\.90x.*; 20x500 round 2 failed \(exit 1\)$/);
  // The new content is listed from the first round whose one-change succeeded.
  assert.match(line(lines, /one-change new content/), /^ {2}20x500 one-change new content \(round 2\): dist\/c01\/a\.yaml$/);
  // A round that did what it should is not pointed at.
  assert.doesNotMatch(line(lines, /20x500 one changed service/), /with new content \(round/);
});

test('the table rows: by size in the given order, then cold, nochange, onechange, then round', () => {
  const rows = sortedRuns([
    run('20x500', 'onechange', 1, 1, { round: 1 }), run('20x250', 'cold', 1, 1, { round: 2 }), run('20x500', 'cold', 1, 1, { round: 2 }),
    run('20x250', 'cold', 1, 1, { round: 1 }), run('20x500', 'cold', 1, 1, { round: 1 }),
  ], ['20x250', '20x500']);
  assert.deepEqual(rows.map((m) => `${m.size} ${m.run} ${m.round}`), ['20x250 cold 1', '20x250 cold 2', '20x500 cold 1', '20x500 cold 2', '20x500 onechange 1']);
});

test('--flux-size: 10x250 by default when it runs, none otherwise; a size not among --sizes or next to --no-flux is a usage error', () => {
  const sizes = parseSizes('5x100,10x250');
  assert.equal(fluxSize(sizes, undefined, false), '10x250');
  assert.equal(fluxSize(parseSizes('5x100'), undefined, false), undefined);
  assert.equal(fluxSize(sizes, '5x100', false), '5x100');
  assert.equal(fluxSize(sizes, undefined, true), undefined);
  assert.throws(() => fluxSize(sizes, '20x500', false), (e: unknown) => e instanceof UsageError && /--flux-size 20x500 is not one of --sizes \(5x100,10x250\)/.test((e as Error).message));
  assert.throws(() => fluxSize(sizes, '10x250', true), UsageError);
  assert.throws(() => fluxSize(sizes, 'ten', false), /--flux-size: "ten" is not NxS/);
});
