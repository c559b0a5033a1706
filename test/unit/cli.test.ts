/** The command line itself (src/cli/main.ts): the new options reach the run, and bad combinations are exit 2. */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { ExitCode } from '../../src/cli/exit-codes.js';
import { readTree } from '../../src/emit/write-output.js';
import { exampleCopy } from './support/example-copy.js';

/** Runs `mirrorc <args>` in a child process. */
function mirrorc(args: string[]): { status: number | null; stdout: string; stderr: string } {
  const r = spawnSync(process.execPath, ['--import', 'tsx', 'src/cli/main.ts', ...args], { encoding: 'utf8' });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

test('synth --offline --source a,b --report F --quiet: compiles those shards, writes the report, prints nothing', () => {
  const ws = exampleCopy();
  try {
    // GIVEN a changed east gateway, which west mirrors
    ws.editLock('198.51.100.7', '198.51.100.8');
    const before = readTree(ws.outDir);
    const reportFile = join(ws.dir, 'report.json');
    // WHEN two shards are compiled through the CLI, quietly
    const r = mirrorc(['synth', '--offline', '--source', 'west,london', '--report', reportFile, '--quiet', '--lock', ws.lockFile, '--out', ws.outDir]);
    // THEN it succeeds silently, west changed, east was not compiled, and the report says so
    assert.equal(r.status, ExitCode.OK, r.stderr);
    assert.equal(r.stdout + r.stderr, '');
    const report = JSON.parse(readFileSync(reportFile, 'utf8'));
    assert.deepEqual(report.shard, ['london', 'west']);
    assert.deepEqual(report.sources.map((s: { cluster: string; compiled: boolean; changed: string[] }) => [s.cluster, s.compiled, s.changed.length]), [['ap', false, 0], ['east', false, 0], ['eu', false, 0], ['london', true, 0], ['us', false, 0], ['west', true, 2]]);
    const after = readTree(ws.outDir);
    assert.notEqual(after.get('west/from-east/shop/endpoints-payments-east.yaml'), before.get('west/from-east/shop/endpoints-payments-east.yaml'));
  } finally {
    ws.remove();
  }
});

test('--quiet with --verbose, and an unknown command, are invalid input', () => {
  const both = mirrorc(['synth', '--offline', '-q', '-v']);
  assert.equal(both.status, ExitCode.INVALID_INPUT);
  assert.match(both.stderr, /--quiet and --verbose exclude each other/);
  const unknown = mirrorc(['publish']);
  assert.equal(unknown.status, ExitCode.INVALID_INPUT);
  assert.match(unknown.stderr, /unknown command "publish"/);
  assert.match(unknown.stderr, /observe  observe and compile like synth, but write only the lock/);
});
