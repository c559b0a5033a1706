import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { runSynth } from '../../src/pipeline/run-synth.js';
import { readTree } from '../../src/emit/write-output.js';

test('the committed dist/ is exactly what the example fleet and its lock compile to', async () => {
  // GIVEN the example fleet and its committed lock
  const out = join(mkdtempSync(join(tmpdir(), 'mirrorc-example-')), 'dist');
  try {
    // WHEN compiled offline into a scratch directory
    const result = await runSynth({ fleetFile: 'clusters/fleet.ts', lockFile: 'clusters/fleet.lock.json', outDir: out, offline: true, log: () => {} });
    // THEN every file equals the committed one, and no file is missing or extra
    assert.equal(result.exitCode, 0, result.error);
    assert.deepEqual(readTree(out), readTree('dist'));
  } finally {
    rmSync(join(out, '..'), { recursive: true, force: true });
  }
});
