/**
 * The staleness limit: `--max-stale` / the fleet's StalenessLimit fail a run with exit 9 after the
 * stale-but-safe output was written, and the GitHub job summary says what changed and what is stale.
 * (The real-apiserver version: test/integration/stale-limit.test.ts.)
 */
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import YAML from 'yaml';
import { ExitCode } from '../../src/errors/exit-codes.js';
import { jobSummaryMarkdown } from '../../src/report/job-summary.js';
import type { FleetDefinition } from '../../src/load/load-fleet.js';
import { clustersOverStaleLimit } from '../../src/guard/stale-limit.js';
import { FleetDefinitionError } from '../../src/model/fleet.js';
import { buildFleet } from '../../src/load/load-fleet.js';
import { Cluster, Link, StalenessLimit } from '../../src/model/index.js';
import { readLockFile, renderLockFile } from '../../src/observe/lock-file.js';
import { emptySnapshot } from '../../src/snapshot/snapshot.js';
import { runSynth, type SynthOptions } from '../../src/pipeline/run-synth.js';
import { formatDuration, parseDuration } from '../../src/util/duration.js';

test('durations: whole numbers with s, m, h, d, combined; anything else (or zero) is refused', () => {
  assert.equal(parseDuration('24h'), 24 * 3_600_000);
  assert.equal(parseDuration('1d12h'), 36 * 3_600_000);
  assert.equal(parseDuration('90m'), 5_400_000);
  for (const bad of ['', '24', 'h', '1.5h', '-1h', '24 h', '0h', '1w', 'off']) assert.equal(parseDuration(bad), undefined, bad);
  assert.equal(formatDuration(36 * 3_600_000 + 61_000), '1d12h1m1s');
  assert.equal(formatDuration(999), '0s');
});

test('clusters over the limit: strictly older than the limit, both roles, targets first', () => {
  const now = new Date('2025-03-02T12:00:00Z');
  const limit = { text: '24h', ms: 24 * 3_600_000, origin: '--max-stale' };
  const over = clustersOverStaleLimit({
    targets: { rome: '2025-03-01T12:00:00Z', paris: '2025-03-01T11:59:59Z', oslo: '2025-03-02T11:00:00Z' },
    sources: { london: '2025-02-01T00:00:00Z' },
  }, limit, now);
  // rome is exactly 24h old: not over; paris one second more: over
  assert.deepEqual(over.map((o) => `${o.role}/${o.cluster}`), ['target/paris', 'source/london']);
  assert.deepEqual(clustersOverStaleLimit(undefined, limit, now), []);
});

test('a fleet takes one StalenessLimit with a valid duration', () => {
  const twice: FleetDefinition = (fleet) => {
    new StalenessLimit(fleet, 'a', { maxStale: '24h' });
    new StalenessLimit(fleet, 'b', { maxStale: 'a day' });
  };
  assert.throws(() => buildFleet(twice).fleet.toSpec(), (e: unknown) => e instanceof FleetDefinitionError &&
    e.problems.some((p) => /already has a StalenessLimit/.test(p)) && e.problems.some((p) => /maxStale "a day" is not a duration/.test(p)));
  assert.deepEqual(buildFleet((f) => { new StalenessLimit(f, 'limit', { maxStale: '1d' }); }).fleet.toSpec().stalenessLimit, { maxStale: '1d', maxStaleMs: 86_400_000 });
});

describe('synth against a target that refuses every request, with a lock saying it went stale on March 1st', () => {
  let server: Server;
  let dir: string;
  let kubeconfig: string;
  const STALE_SINCE = '2025-03-01T10:00:00Z';
  const NOW = new Date('2025-03-03T10:00:00Z'); // two days later

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'mirrorc-stale-limit-'));
    server = createServer((_req, res) => {
      res.writeHead(403, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ kind: 'Status', apiVersion: 'v1', status: 'Failure', message: 'denied by the test server', reason: 'Forbidden', code: 403 }));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    kubeconfig = join(dir, 'kubeconfig');
    writeFileSync(kubeconfig, YAML.stringify({
      apiVersion: 'v1', kind: 'Config', 'current-context': 'london',
      clusters: [{ name: 'denying', cluster: { server: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, 'insecure-skip-tls-verify': true } }],
      users: [{ name: 'someone', user: { token: 'not-a-secret' } }],
      contexts: ['london', 'paris'].map((name) => ({ name, context: { cluster: 'denying', user: 'someone' } })),
    }));
  });
  after(() => {
    server.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const fleetWith = (limit?: string): FleetDefinition => (fleet) => {
    const london = new Cluster(fleet, 'london');
    const paris = new Cluster(fleet, 'paris');
    new Link(fleet, 'london-from-paris', { source: london, target: paris });
    if (limit) new StalenessLimit(fleet, 'limit', { maxStale: limit });
  };
  /** A fresh repo whose lock says paris (target) is stale since STALE_SINCE; london answers 403 too but starts its clock now. */
  const repo = (name: string): { lockFile: string; outDir: string; summary: string } => {
    const lockFile = join(dir, `${name}.lock.json`);
    writeFileSync(lockFile, renderLockFile({ ...emptySnapshot(), staleSince: { targets: { paris: STALE_SINCE } } }));
    return { lockFile, outDir: join(dir, `${name}-dist`), summary: join(dir, `${name}-summary.md`) };
  };
  const run = (r: ReturnType<typeof repo>, extra: Partial<SynthOptions>) => runSynth({
    lockFile: r.lockFile, outDir: r.outDir, kubeconfig, log: () => {}, print: () => {}, now: () => NOW,
    env: { GITHUB_STEP_SUMMARY: r.summary }, define: fleetWith(), ...extra,
  });

  test('--max-stale 24h: exit 9 naming paris and its time, the lock written, the job summary says what is stale since when', async () => {
    const r = repo('flag');
    const result = await run(r, { maxStale: '24h' });
    assert.equal(result.exitCode, ExitCode.STALE_LIMIT, result.error);
    assert.match(result.error ?? '', /stale for longer than --max-stale 24h:\n {2}- target paris: not observed since 2025-03-01T10:00:00Z \(2d\)/);
    // london only went stale now: under the limit, not named
    assert.doesNotMatch(result.error ?? '', /london/);
    // the stale-but-safe output was written: the lock now records london's stale time and keeps paris's
    assert.deepEqual(readLockFile(r.lockFile).staleSince, { targets: { paris: STALE_SINCE }, sources: { london: '2025-03-03T10:00:00Z' } });
    assert.ok(existsSync(r.outDir), 'dist/ written');
    assert.equal(result.report.exitCode, ExitCode.STALE_LIMIT);
    const summary = readFileSync(r.summary, 'utf8');
    assert.match(summary, /### mirrorc synth: exit 9/);
    assert.match(summary, /\| paris \| target \| 2025-03-01T10:00:00Z \| ` cluster "paris": .*denied by the test server.* ` \|/);
    assert.match(summary, /\| london \| \d+ \| 0 \| 0 \| 0 \|/);
  });

  test('a longer limit passes (exit 0); "off" overrides the fleet default; the fleet default alone fails', async () => {
    assert.equal((await run(repo('long'), { maxStale: '3d' })).exitCode, ExitCode.OK);
    assert.equal((await run(repo('off'), { maxStale: 'off', define: fleetWith('1h') })).exitCode, ExitCode.OK);
    const byFleet = await run(repo('fleet'), { define: fleetWith('1d') });
    assert.equal(byFleet.exitCode, ExitCode.STALE_LIMIT);
    assert.match(byFleet.error ?? '', /the fleet's StalenessLimit maxStale 1d/);
  });

  test('observe and check honour it too; offline runs ignore the fleet default and refuse the flag', async () => {
    assert.equal((await run(repo('observe'), { maxStale: '24h', mode: 'observe' })).exitCode, ExitCode.STALE_LIMIT);
    const offline = repo('offline');
    assert.equal((await run(offline, { offline: true, define: fleetWith('1h') })).exitCode, ExitCode.OK);
    const refused = await run(offline, { offline: true, maxStale: '1h' });
    assert.equal(refused.exitCode, ExitCode.INVALID_INPUT);
    assert.match(refused.error ?? '', /--offline observes none/);
    const bad = await run(repo('bad'), { maxStale: '24' });
    assert.equal(bad.exitCode, ExitCode.INVALID_INPUT);
    assert.match(bad.error ?? '', /--max-stale must be a duration such as 24h/);
  });
});

test('job summary: counts per compiled source, stale clusters with their time, no summary file means nothing written', () => {
  const md = jobSummaryMarkdown({
    reportFormat: 1, mirrorcVersion: '0.1.0', command: 'synth', exitCode: 0, error: null, offline: false, shard: null, lockChanged: true, warnings: [], diagnostics: [],
    targets: [{ cluster: 'paris', observed: true, reachable: true, stale: false, staleSince: null, error: null, exportedServices: 2 }],
    sources: [{ cluster: 'london', observed: true, reachable: true, stale: false, staleSince: null, error: null, compiled: true, added: ['a.yaml', 'b.yaml'], changed: [], removed: ['c.yaml'], unchanged: 4 }],
  });
  assert.match(md, /\| london \| 2 \| 0 \| 1 \| 4 \|/);
  assert.match(md, /No stale clusters\./);
  assert.match(md, /Lock updated\./);
  // It names the mirrorc that ran (issue 39: every report names the version).
  assert.match(md, /^Lock updated\. mirrorc 0\.1\.0\.$/m);
});
