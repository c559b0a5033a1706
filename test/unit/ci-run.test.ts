/**
 * .ci/run, the CI entry point: with CI=true a test that cannot reach its real component fails instead of
 * skipping, so .ci/run must export it itself (a run by hand has no CI variable from the environment).
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';

test('GIVEN .ci/run WHEN read THEN it exports CI=true before anything runs, and calls exactly npm test after it', () => {
  const script = readFileSync('.ci/run', 'utf8');
  const lines = script.split('\n').map((l) => l.trim()).filter((l) => l !== '' && !l.startsWith('#'));
  const exported = lines.findIndex((l) => /^export (?:[A-Z_]+=\S+ )*CI=true(?: |$)/.test(l));
  assert.ok(exported >= 0, '.ci/run does not export CI=true');
  const firstCommand = lines.findIndex((l) => /^(npm|bash|node|need |apt-get)/.test(l));
  assert.ok(exported < firstCommand, `CI=true is exported after "${lines[firstCommand]}"`);
  assert.deepEqual(lines.filter((l) => /^npm (test|run test)/.test(l)), ['npm test']);
  assert.ok(lines.indexOf('npm test') > exported);
  assert.deepEqual(lines.filter((l) => /\bCI=|unset CI\b|env -u CI\b/.test(l) && l !== lines[exported]), [], 'CI is changed again later');
  // AND the shell sees it: the script's preamble (before it checks or installs anything), run with CI unset, exports CI=true
  const head = script.slice(0, script.indexOf('\nneed() {'));
  const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => k !== 'CI'));
  const r = spawnSync('bash', ['-c', `${head.replace(/^#!.*\n/, '').replace('cd "$(dirname "$0")/.."', '')}\necho "CI=$CI"`], { encoding: 'utf8', env });
  assert.equal(r.status, 0, r.stderr);
  assert.match(r.stdout, /^CI=true$/m);
});
