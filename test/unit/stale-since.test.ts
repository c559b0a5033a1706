/**
 * The lock's staleSince (src/observe/stale-since.ts): set on the transition to stale, kept while
 * stale, cleared once observed again; and runSynth records it with the injected clock.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import YAML from 'yaml';
import { ExitCode } from '../../src/errors/exit-codes.js';
import type { FleetDefinition } from '../../src/load/load-fleet.js';
import { runSynth } from '../../src/pipeline/run-synth.js';
import { LockFileError, readLockFile, renderLockFile } from '../../src/observe/lock-file.js';
import { emptySnapshot } from '../../src/snapshot/snapshot.js';
import { fleetRoles, nextStaleSince, observationOutcomes, type FleetRoles } from '../../src/observe/stale-since.js';
import { ObservationError } from '../../src/observe/observation-error.js';
import type { FleetSpec } from '../../src/model/fleet-spec.js';
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
    assert.throws(() => readLockFile(file), (e: unknown) => e instanceof LockFileError && /\$\.staleSince\.targets\.paris: "yesterday" is not a timestamp/.test(e.message));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('a kubeconfig missing on this machine neither starts nor clears a stale time; a wrong context starts it like any failure', () => {
  // GIVEN london, paris and rome: paris has no kubeconfig file at all here (a fresh clone), rome's
  // kubeconfig lacks its context (a wrong context), london is forbidden
  const fleet = { clusters: [], links: [{ source: 'london', target: 'paris' }, { source: 'london', target: 'rome' }], explicitExports: [] } as unknown as FleetSpec;
  const stale = [
    { cluster: 'paris', role: 'target' as const, keptPrevious: true, error: new ObservationError('paris', 'kubeconfig', 'kubeconfig ~/.kube/config does not exist', { kubeconfigMissing: true }) },
    { cluster: 'rome', role: 'target' as const, keptPrevious: true, error: new ObservationError('rome', 'kubeconfig', 'kubeconfig x has no context "rome"') },
    { cluster: 'london', role: 'source' as const, keptPrevious: true, error: new ObservationError('london', 'forbidden', 'list namespaces: forbidden') },
  ];
  // WHEN the outcomes are derived
  const outcomes = observationOutcomes(fleet, stale);
  // THEN rome and london count as failed; paris keeps whatever the lock says
  assert.deepEqual(outcomes, [{ cluster: 'rome', role: 'target', observed: false }, { cluster: 'london', role: 'source', observed: false }]);
  const previous = { targets: { paris: '2025-01-01T00:00:00Z' } };
  assert.deepEqual(nextStaleSince(previous, outcomes, fleetRoles(fleet), T1), {
    targets: { paris: '2025-01-01T00:00:00Z', rome: '2025-03-01T10:00:00Z' }, sources: { london: '2025-03-01T10:00:00Z' },
  });
});

test('synth records when a cluster that refuses the request went stale and keeps that time on the next run', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'mirrorc-stale-'));
  // An API server that denies everything (403 is not retried, so this is quick and needs no cluster).
  const server = createServer((_req, res) => {
    res.writeHead(403, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ kind: 'Status', apiVersion: 'v1', status: 'Failure', message: 'denied by the test server', reason: 'Forbidden', code: 403 }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  try {
    const port = (server.address() as AddressInfo).port;
    const kubeconfig = join(dir, 'kubeconfig');
    writeFileSync(kubeconfig, YAML.stringify({
      apiVersion: 'v1', kind: 'Config', 'current-context': 'london',
      clusters: [{ name: 'denying', cluster: { server: `http://127.0.0.1:${port}`, 'insecure-skip-tls-verify': true } }],
      users: [{ name: 'someone', user: { token: 'not-a-secret' } }],
      contexts: ['london', 'paris'].map((name) => ({ name, context: { cluster: 'denying', user: 'someone' } })),
    }));
    // GIVEN london mirrors paris, and both deny the synth identity
    const define: FleetDefinition = (fleet) => {
      const london = new Cluster(fleet, 'london');
      const paris = new Cluster(fleet, 'paris');
      new Link(fleet, 'london-from-paris', { source: london, target: paris });
    };
    const lockFile = join(dir, 'fleet.lock.json');
    const run = (now: Date) => runSynth({ define, lockFile, kubeconfig, outDir: join(dir, 'dist'), log: () => {}, now: () => now });
    // WHEN synth runs twice at different times
    const first = await run(T1);
    const lockAfterFirst = readFileSync(lockFile, 'utf8');
    const second = await run(T2);
    // THEN both runs succeed (stale-but-safe) and the lock holds the first time, unchanged
    assert.equal(first.exitCode, ExitCode.OK, first.error);
    assert.equal(second.exitCode, ExitCode.OK);
    assert.deepEqual(readLockFile(lockFile).staleSince, { targets: { paris: '2025-03-01T10:00:00Z' }, sources: { london: '2025-03-01T10:00:00Z' } });
    assert.equal(readFileSync(lockFile, 'utf8'), lockAfterFirst);
    // AND the report says so, with the server's reason
    const paris = second.report.targets.find((t) => t.cluster === 'paris');
    assert.deepEqual({ ...paris, error: undefined }, {
      cluster: 'paris', observed: true, reachable: false, stale: true, staleSince: '2025-03-01T10:00:00Z', error: undefined, exportedServices: null,
    });
    assert.match(paris?.error ?? '', /cluster "paris": .*denied by the test server/);
  } finally {
    server.close();
    rmSync(dir, { recursive: true, force: true });
  }
});
