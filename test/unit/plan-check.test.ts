import assert from 'node:assert/strict';
import { appendFileSync, cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { ExitCode } from '../../src/errors/exit-codes.js';
import { runSynth, type SynthOptions } from '../../src/pipeline/run-synth.js';
import { readTree } from '../../src/emit/write-output.js';

/** A scratch copy of the example fleet's lock and dist/. */
function scratch(): { dir: string; run: (o: Partial<SynthOptions>) => ReturnType<typeof runSynth>; printed: string[] } {
  const dir = mkdtempSync(join(tmpdir(), 'mirrorc-plan-'));
  cpSync('dist', join(dir, 'dist'), { recursive: true });
  cpSync('delivery', join(dir, 'delivery'), { recursive: true });
  cpSync('clusters/fleet.lock.json', join(dir, 'fleet.lock.json'));
  const printed: string[] = [];
  const run = (o: Partial<SynthOptions>) =>
    runSynth({ fleetFile: 'clusters/fleet.ts', lockFile: join(dir, 'fleet.lock.json'), outDir: join(dir, 'dist'), offline: true, log: () => {}, print: (l) => printed.push(l), ...o });
  return { dir, run, printed };
}

test('plan lists exactly the changed objects and fields, and writes nothing', async () => {
  const { dir, run, printed } = scratch();
  try {
    // GIVEN the lock records a new gateway address for east
    const lockPath = join(dir, 'fleet.lock.json');
    writeFileSync(lockPath, readFileSync(lockPath, 'utf8').replace('198.51.100.7', '198.51.100.8'));
    const before = readTree(join(dir, 'dist'));
    // WHEN planning
    const result = await run({ mode: 'plan' });
    // THEN only west's two endpoint objects of payments-east change (documents of its mirror's one file), in exactly that field
    assert.equal(result.exitCode, ExitCode.OK);
    assert.deepEqual(result.changes, [{ cluster: 'west', added: [], changed: ['from-east/shop/service-payments-east.yaml'], removed: [] }]);
    const file = printed.indexOf('  ~ from-east/shop/service-payments-east.yaml');
    assert.ok(file >= 0, printed.join('\n'));
    const fields = printed.slice(file + 1);
    assert.deepEqual(fields.slice(0, fields.findIndex((l) => !l.startsWith('      '))), [
      '      Endpoints/payments-east subsets[0].addresses[0].ip: "198.51.100.7" → "198.51.100.8"',
      '      EndpointSlice/payments-east-ipv4 endpoints[0].addresses[0]: "198.51.100.7" → "198.51.100.8"',
    ]);
    // AND nothing was written
    assert.deepEqual(readTree(join(dir, 'dist')), before);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('check fails on a hand-edited dist/ file and passes after a fresh synth', async () => {
  const { dir, run } = scratch();
  try {
    // GIVEN a clean copy, check passes
    assert.equal((await run({ mode: 'check' })).exitCode, ExitCode.OK);
    // WHEN a generated file is edited by hand
    appendFileSync(join(dir, 'dist/london/from-paris/default/service-bar-paris.yaml'), '# hand edit\n');
    const failed = await run({ mode: 'check' });
    // THEN check fails naming the file
    assert.equal(failed.exitCode, ExitCode.CHECK_FAILED);
    assert.deepEqual(failed.changes.map((c) => [c.cluster, c.changed]), [['london', ['from-paris/default/service-bar-paris.yaml']]]);
    // AND after synth it passes again
    assert.equal((await run({ mode: 'write' })).exitCode, ExitCode.OK);
    assert.equal((await run({ mode: 'check' })).exitCode, ExitCode.OK);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('check fails when a file is missing or extra, or the lock is not canonical', async () => {
  const { dir, run } = scratch();
  try {
    rmSync(join(dir, 'dist/east/from-west/shop/service-orders-west.yaml'));
    writeFileSync(join(dir, 'dist/east/stray.yaml'), 'x: 1\n');
    const r = await run({ mode: 'check' });
    assert.equal(r.exitCode, ExitCode.CHECK_FAILED);
    assert.deepEqual(r.changes, [{ cluster: 'east', added: ['from-west/shop/service-orders-west.yaml'], changed: [], removed: ['stray.yaml'] }]);
    await run({ mode: 'write' });
    const lockPath = join(dir, 'fleet.lock.json');
    writeFileSync(lockPath, JSON.stringify(JSON.parse(readFileSync(lockPath, 'utf8'))));
    assert.equal((await run({ mode: 'check' })).exitCode, ExitCode.CHECK_FAILED);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('GIVEN a target annotation that changes to a URL with credentials WHEN planning THEN the printed field shows *** instead of the password', async () => {
  const { dir, run, printed } = scratch();
  try {
    const lockPath = join(dir, 'fleet.lock.json');
    const lock = JSON.parse(readFileSync(lockPath, 'utf8'));
    const payments = lock.observed.targets.east.services.find((s: { name: string }) => s.name === 'payments');
    payments.annotations = { ...payments.annotations, 'docs.example.com/runbook': 'https://ops:hunter2@wiki.example.com/payments' };
    writeFileSync(lockPath, `${JSON.stringify(lock, null, 2)}\n`);
    const result = await run({ mode: 'plan', verbosity: 'verbose' });
    assert.equal(result.exitCode, ExitCode.OK);
    const field = printed.find((l) => l.includes('docs.example.com/runbook'));
    assert.ok(field, printed.join('\n'));
    assert.match(field, /https:\/\/\*\*\*@wiki\.example\.com\/payments/);
    assert.ok(!printed.some((l) => l.includes('hunter2')), printed.join('\n'));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
