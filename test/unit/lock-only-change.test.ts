/**
 * A run whose lock changes while the compiled files do not (issue 39): synth and plan say so, and
 * never "no changes" alone over a lock that was (or would be) rewritten.
 */
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { test } from 'node:test';
import { ExitCode } from '../../src/errors/exit-codes.js';
import { exampleCopy } from './support/example-copy.js';

test('a lock-only change: synth says the lock was updated and dist/ has no file changes; plan says the lock would change', async () => {
  const ws = exampleCopy();
  try {
    // GIVEN the lock written by hand on one line (the same content, not canonical JSON: synth rewrites it)
    writeFileSync(ws.lockFile, JSON.stringify(JSON.parse(readFileSync(ws.lockFile, 'utf8'))));
    const edited = readFileSync(ws.lockFile, 'utf8');
    // WHEN planning, then synthesizing
    const plan = await ws.run({ mode: 'plan' });
    const planned = [...ws.printed];
    const synth = await ws.run();
    const logged = [...ws.logged];
    // THEN the lock is the one change: plan names it, synth writes it and says so
    assert.equal(plan.exitCode, ExitCode.OK, plan.error);
    assert.equal(synth.exitCode, ExitCode.OK, synth.error);
    assert.ok(planned.some((l) => l.endsWith('is up to date: no file changes')), planned.join('\n'));
    assert.ok(planned.some((l) => l === `${ws.lockFile}: would change`), planned.join('\n'));
    assert.notEqual(readFileSync(ws.lockFile, 'utf8'), edited, 'synth rewrote the lock');
    assert.ok(logged.some((l) => l.endsWith(`is up to date: no file changes; ${ws.lockFile}: updated`)), logged.join('\n'));
    assert.ok(!logged.some((l) => l.endsWith('no changes')), logged.join('\n'));
  } finally {
    ws.remove();
  }
});
