/** Imports of mirrorc's sources resolve to the compiled modules when the CLI runs compiled. */
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { pathToFileURL } from 'node:url';
import { compiledCounterpart } from '../../src/load/compiled-model-redirect.js';

test('GIVEN a checkout with src/ and lib/ WHEN the fleet imports mirrorc\'s sources in any spelling THEN each resolves to the compiled module, and other imports are left alone', () => {
  const root = mkdtempSync(join(tmpdir(), 'mirrorc-redirect-'));
  try {
    for (const f of ['src/index.ts', 'src/model/fleet.ts', 'lib/index.js', 'lib/model/fleet.js', 'lib/model/index.js', 'clusters/fleet.ts']) {
      mkdirSync(join(root, f, '..'), { recursive: true });
      writeFileSync(join(root, f), '');
    }
    const url = (rel: string): string => pathToFileURL(join(root, rel)).href;
    const redirect = { sourceDir: url('src') + '/', compiledDir: url('lib') + '/' };
    const fleet = url('clusters/fleet.ts') + '?tsx-namespace=mirrorc-fleet';
    assert.equal(compiledCounterpart('../src/index.js', fleet, redirect), url('lib/index.js'));
    assert.equal(compiledCounterpart('../src/index.ts', fleet, redirect), url('lib/index.js'));
    assert.equal(compiledCounterpart(url('src/model/fleet.ts'), fleet, redirect), url('lib/model/fleet.js'));
    assert.equal(compiledCounterpart(join(root, 'src', 'model', 'fleet.js'), fleet, redirect), url('lib/model/fleet.js'));
    assert.equal(compiledCounterpart('../src/model/fleet', fleet, redirect), url('lib/model/fleet.js'));
    assert.equal(compiledCounterpart('../src/model', fleet, redirect), url('lib/model/index.js'));
    // Not mirrorc's sources, or nothing compiled there: left to the next resolver.
    assert.equal(compiledCounterpart('./helpers.js', fleet, redirect), undefined);
    assert.equal(compiledCounterpart('cdk8s', fleet, redirect), undefined);
    assert.equal(compiledCounterpart('node:fs', fleet, redirect), undefined);
    assert.equal(compiledCounterpart('../src/missing.js', fleet, redirect), undefined);
    assert.equal(compiledCounterpart('../src-other/index.js', fleet, redirect), undefined);
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});
