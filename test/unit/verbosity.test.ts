/** Quiet, normal and verbose stderr output: progress lines, the summary table, changed fields and timings. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { observationProgressPrinter } from '../../src/report/progress.js';
import { runLog } from '../../src/report/run-log.js';
import { ObservationError } from '../../src/observe/observation-error.js';
import { exampleCopy } from './support/example-copy.js';

/** A clock that advances 25 ms on every reading. */
function steppingClock(): () => Date {
  let t = Date.parse('2025-03-01T10:00:00Z');
  return () => new Date((t += 25));
}

test('normal synth output lists changed files and ends with the summary table', async () => {
  const ws = exampleCopy();
  try {
    ws.editLock('198.51.100.7', '198.51.100.8');
    await ws.run();
    assert.ok(ws.logged.includes('  ~ from-east/shop/service-payments-east.yaml'), ws.logged.join('\n'));
    assert.ok(!ws.logged.some((l) => l.includes('subsets[0].addresses[0].ip')), 'fields only when verbose');
    const summary = ws.logged.slice(ws.logged.indexOf('') + 1);
    assert.deepEqual(summary, [
      'source  added  changed  removed  unchanged',
      'ap      0      0        0        13',
      'east    0      0        0        10',
      'eu      0      0        0        13',
      'london  0      0        0        13',
      'us      0      0        0        13',
      'west    0      1        0        10',
      '',
      'target  state      services  stale since',
      'ap      from lock  1',
      'east    from lock  3',
      'eu      from lock  1',
      'lyon    from lock  2',
      'oslo    from lock  1',
      'paris   from lock  1',
      'us      from lock  1',
      'west    from lock  2',
    ]);
  } finally {
    ws.remove();
  }
});

test('--quiet prints only warnings and errors; --verbose adds changed fields and timings', async () => {
  const ws = exampleCopy();
  try {
    // GIVEN a change, and an unknown shard on the quiet run to provoke an error
    ws.editLock('198.51.100.7', '198.51.100.8');
    await ws.run({ verbosity: 'quiet', mode: 'plan' });
    // THEN a quiet plan still prints the plan on stdout, but nothing on stderr
    assert.equal(ws.logged.length, 0, ws.logged.join('\n'));
    assert.ok(ws.printed.includes('  ~ from-east/shop/service-payments-east.yaml'));
    await ws.run({ verbosity: 'quiet', sources: ['nowhere'] });
    assert.equal(ws.logged.length, 1);
    assert.match(ws.logged[0]!, /^error: --source "nowhere"/);
    // WHEN synth runs verbose with a stepping clock
    await ws.run({ verbosity: 'verbose', now: steppingClock() });
    // THEN each changed field and the compile time are printed
    // (the mirror's objects are documents of one file: each changed field is named by its object)
    assert.ok(ws.logged.includes('      Endpoints/payments-east subsets[0].addresses[0].ip: "198.51.100.7" → "198.51.100.8"'), ws.logged.join('\n'));
    assert.ok(ws.logged.includes('compiled every source in 25 ms'), ws.logged.join('\n'));
  } finally {
    ws.remove();
  }
});

test('observation progress: one line per cluster, failures named, timings and start lines only when verbose', () => {
  const normal: string[] = [];
  const verbose: string[] = [];
  const failure = new ObservationError('rome', 'unreachable', 'connect ECONNREFUSED');
  for (const [lines, verbosity] of [[normal, 'normal'], [verbose, 'verbose']] as const) {
    const progress = observationProgressPrinter(runLog((l) => lines.push(l), verbosity), steppingClock());
    progress({ kind: 'started', cluster: 'paris', role: 'target' });
    progress({ kind: 'started', cluster: 'rome', role: 'target' });
    progress({ kind: 'finished', cluster: 'paris', role: 'target', services: 12 });
    progress({ kind: 'finished', cluster: 'rome', role: 'target', error: failure });
    progress({ kind: 'started', cluster: 'london', role: 'source' });
    progress({ kind: 'finished', cluster: 'london', role: 'source', namespaces: 1 });
  }
  assert.deepEqual(normal, [
    '  target paris: 12 exported services',
    '  target rome: not observed (unreachable); its last known state is kept',
    '  source london: 1 namespace',
  ]);
  assert.deepEqual(verbose, [
    '  observing target paris…',
    '  observing target rome…',
    '  target paris: 12 exported services (50 ms)',
    '  target rome: not observed (unreachable); its last known state is kept (50 ms)',
    '  observing source london…',
    '  source london: 1 namespace (25 ms)',
  ]);
});
