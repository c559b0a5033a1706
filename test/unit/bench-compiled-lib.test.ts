/** The benchmark measures the compiled code only when lib/ was built from the src/ next to it. */
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { compiledLibProblem, sourceTreeHash } from '../../scripts/lib-freshness.mjs';

test('GIVEN a checkout WHEN lib/ is missing, built from other sources, or from these THEN only the last may be measured', () => {
  const root = mkdtempSync(join(tmpdir(), 'mirrorc-bench-lib-'));
  try {
    mkdirSync(join(root, 'src', 'pipeline'), { recursive: true });
    writeFileSync(join(root, 'src', 'pipeline', 'run-synth.ts'), 'export const a = 1;\n');
    // No lib/ at all.
    assert.match(compiledLibProblem(root) ?? '', /not built/);
    mkdirSync(join(root, 'lib', 'pipeline'), { recursive: true });
    writeFileSync(join(root, 'lib', 'pipeline', 'run-synth.js'), 'export const a = 1;\n');
    // lib/ without its build record.
    assert.match(compiledLibProblem(root) ?? '', /build-info\.json is missing/);
    writeFileSync(join(root, 'lib', 'build-info.json'), JSON.stringify({ sourceHash: sourceTreeHash(join(root, 'src')) }));
    assert.equal(compiledLibProblem(root), undefined);
    // An edit of src/ after the build.
    writeFileSync(join(root, 'src', 'pipeline', 'run-synth.ts'), 'export const a = 2;\n');
    assert.match(compiledLibProblem(root) ?? '', /src\/ changed since `npm run build`/);
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});
