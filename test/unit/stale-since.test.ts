/**
 * The lock's staleSince (src/observe/stale-since.ts): set on the transition to stale, kept while
 * stale, cleared once observed again; and runSynth records it with the injected clock.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { ExitCode } from '../../src/cli/exit-codes.js';
import type { FleetDefinition } from '../../src/cli/load-fleet.js';
import { runSynth } from '../../src/cli/synth.js';
import { LockFileError, readLockFile, renderLockFile } from '../../src/observe/lock-file.js';
import { emptySnapshot } from '../../src/observe/snapshot.js';
import { nextStaleSince, type FleetRoles } from '../../src/observe/stale-since.js';
import { Cluster, Link } from '../../src/model/index.js';

const FLEET: FleetRoles = { targets: new Set(['paris', 'rome']), sources: new Set(['london']) };
const T1 = new Date('2025-03-01T10:00:00.123Z');
const T2 = new Date('2025-03-01T10:15:00Z');

test('a first failure records the time, a second keeps it, a success clears it', () => {
  // GIVEN paris fails for the first time
  const first = nextStaleSince(undefined, [{ cluster: 'paris', role: 'target', observed: false }, { cluster: 'rome', role: 'target', observed: true }], FLEET, T1);
  // THEN its stale time is that run's, to the second
  assert.deepEqual(first, { targets: { paris: '2025-03-01T10:00:00Z' } });
  // WHEN it fails again later
  const second = nextStaleSince(first, [{ cluster: 'paris', role: 'target', observed: false }], FLEET, T2);
  // THEN the first time is kept (the lock does not change)
  assert.deepEqual(second, first);
  // WHEN it answers again
  const third = nextStaleSince(second, [{ cluster: 'paris', role: 'target', observed: true }], FLEET, T2);
  // THEN nothing is stale and the field disappears
  assert.equal(third, undefined);
});

test('clusters not observed this run keep their entry; clusters that left the fleet lose it; roles are separate', () => {
  const previous = { targets: { paris: '2025-01-01T00:00:00Z', gone: '2025-01-01T00:00:00Z' }, sources: { london: '2025-02-01T00:00:00Z' } };
  // WHEN only rome is observed, and london fails as a source
  const next = nextStaleSince(previous, [{ cluster: 'rome', role: 'target', observed: true }, { cluster: 'london', role: 'source', observed: false }], FLEET, T2);
  // THEN paris keeps its time, "gone" is dropped, london keeps its source time
  assert.deepEqual(next, { targets: { paris: '2025-01-01T00:00:00Z' }, sources: { london: '2025-02-01T00:00:00Z' } });
});

test('a lock without stale clusters renders exactly as before; a malformed staleSince is a clear lock error', () => {
  const dir = mkdtempSync(join(tmpdir(), 'mirrorc-stale-'));
  try {
    assert.ok(!renderLockFile({ ...emptySnapshot(), staleSince: undefined }).includes('staleSince'));
    const file = join(dir, 'lock.json');
    writeFileSync(file, JSON.stringify({ ...emptySnapshot(), staleSince: { targets: { paris: 'yesterday' } } }));
    assert.throws(() => readLockFile(file), (e: unknown) => e instanceof LockFileError && /"staleSince\.targets\.paris" that is not a timestamp/.test(e.message));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('synth records when an unobservable cluster went stale and keeps that time on the next run', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'mirrorc-stale-'));
  try {
    // GIVEN clusters whose kubeconfig does not exist (observation fails at once, no network)
    const define: FleetDefinition = (fleet) => {
      const london = new Cluster(fleet, 'london', { access: { kubeconfig: join(dir, 'missing.kubeconfig') } });
      const paris = new Cluster(fleet, 'paris', { access: { kubeconfig: join(dir, 'missing.kubeconfig') } });
      new Link(fleet, 'london-from-paris', { source: london, target: paris });
    };
    const lockFile = join(dir, 'fleet.lock.json');
    const run = (now: Date) => runSynth({ define, lockFile, outDir: join(dir, 'dist'), log: () => {}, now: () => now });
    // WHEN synth runs twice at different times
    const first = await run(T1);
    const lockAfterFirst = readFileSync(lockFile, 'utf8');
    const second = await run(T2);
    // THEN both runs succeed (stale-but-safe) and the lock holds the first time, unchanged
    assert.equal(first.exitCode, ExitCode.OK);
    assert.equal(second.exitCode, ExitCode.OK);
    assert.deepEqual(readLockFile(lockFile).staleSince, { targets: { paris: '2025-03-01T10:00:00Z' }, sources: { london: '2025-03-01T10:00:00Z' } });
    assert.equal(readFileSync(lockFile, 'utf8'), lockAfterFirst);
    // AND the report says so
    const paris = second.report.targets.find((t) => t.cluster === 'paris');
    assert.deepEqual({ ...paris, error: paris?.error?.slice(0, 17) }, {
      cluster: 'paris', observed: true, reachable: false, stale: true, staleSince: '2025-03-01T10:00:00Z', error: 'cluster "paris": ', exportedServices: null,
    });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
