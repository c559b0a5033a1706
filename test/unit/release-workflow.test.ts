/**
 * The release workflow (.github/workflows/release.yml, docs/releases.md): it runs on a version tag
 * only, each job holds the least it needs, the job that can mint an OIDC token publishes the packed
 * tarball with provenance and installs nothing, and its shell steps do what they say (run here in
 * bash with the runner's variables: the tag check and the changelog notes). actionlint lints it
 * (test/integration/workflow-lint.test.ts).
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import YAML from 'yaml';

const FILE = '.github/workflows/release.yml';

interface Step { name?: string; run?: string; uses?: string; with?: Record<string, unknown>; env?: Record<string, string> }
interface Job { needs?: string | string[]; permissions: Record<string, string>; steps: Step[]; environment?: string }
const wf = YAML.parse(readFileSync(FILE, 'utf8')) as { on: Record<string, unknown>; permissions: unknown; jobs: Record<string, Job> };

/** The run: script of the step of `job` whose name starts with `name`. */
function script(job: string, name: string): string {
  const step = wf.jobs[job]!.steps.find((s) => s.name?.startsWith(name));
  assert.ok(step?.run, `${job}: no step "${name}"`);
  return step.run;
}

/** Runs `text` in bash as a step does (`bash -e`), in the repository, with the runner's variables. */
function runStep(text: string, env: Record<string, string>): { status: number | null; out: string } {
  const r = spawnSync('bash', ['-e', '-c', text], { encoding: 'utf8', env: { ...process.env, ...env } });
  return { status: r.status, out: r.stdout + r.stderr };
}

test('runs on a version tag only; nothing at the top; test → pack → publish → github-release', () => {
  assert.deepEqual(Object.keys(wf.on), ['push']);
  assert.deepEqual(wf.on.push, { tags: ['v[0-9]+.[0-9]+.[0-9]+*'] });
  assert.deepEqual(wf.permissions, {});
  assert.deepEqual(Object.fromEntries(Object.entries(wf.jobs).map(([n, j]) => [n, j.needs ?? null])), { test: null, pack: 'test', publish: 'pack', 'github-release': 'publish' });
  assert.ok(wf.jobs.test!.steps.some((s) => s.run === '.ci/run'), 'the test job runs the whole suite');
});

test('least privilege: only publish holds id-token (and installs nothing, checks nothing out); only github-release writes', () => {
  for (const [name, job] of Object.entries(wf.jobs)) {
    const expected = name === 'publish' ? { contents: 'read', 'id-token': 'write' } : name === 'github-release' ? { contents: 'write' } : { contents: 'read' };
    assert.deepEqual(job.permissions, expected, name);
  }
  const publish = wf.jobs.publish!;
  assert.equal(publish.environment, 'npm');
  assert.ok(!publish.steps.some((s) => /actions\/checkout/.test(s.uses ?? '')), 'publish checks out the repository');
  assert.ok(!publish.steps.some((s) => /\bnpm (?:ci|install|i|run)\b/.test(s.run ?? '')), 'publish installs or runs scripts');
  const step = script('publish', 'npm publish');
  assert.match(step, /npm publish "\$\{tarballs\[0\]\}" --provenance --access public --ignore-scripts --tag "\$tag"/);
  // The token only through env.
  assert.ok(!/secrets\./.test(step));
  assert.equal(publish.steps.find((s) => s.name?.startsWith('npm publish'))!.env?.NODE_AUTH_TOKEN, '${{ secrets.NPM_TOKEN }}');
  // The tarball published is the one pack made and github-release attaches.
  const download = (job: string): unknown => wf.jobs[job]!.steps.find((s) => /download-artifact/.test(s.uses ?? ''))?.with?.name;
  assert.equal(download('publish'), 'mirrorc-package');
  assert.equal(download('github-release'), 'mirrorc-package');
  assert.match(script('github-release', 'GitHub release'), /gh release create "\$GITHUB_REF_NAME" pack\/\*\.tgz /);
});

test('the tag check passes for v<package.json version> with its changelog section, and fails for another tag', () => {
  const version = (JSON.parse(readFileSync('package.json', 'utf8')) as { version: string }).version;
  const check = script('test', 'The tag is the version');
  const ok = runStep(check, { GITHUB_REF_NAME: `v${version}` });
  assert.equal(ok.status, 0, ok.out);
  const wrong = runStep(check, { GITHUB_REF_NAME: 'v99.0.0' });
  assert.equal(wrong.status, 1);
  assert.match(wrong.out, /::error::tag v99\.0\.0 is not v/);
});

test('the release notes are the changelog section of the tag\'s version, nothing of the next section', () => {
  const dir = mkdtempSync(join(tmpdir(), 'mirrorc-release-'));
  try {
    // Only the notes part: gh is not called here.
    const notes = script('github-release', 'GitHub release').split('\n').filter((l) => !l.includes('gh release') && !/prerelease/.test(l) && !/^\s*case /.test(l)).join('\n');
    const r = runStep(`${notes}\ncat "$RUNNER_TEMP/notes.md"`, { GITHUB_REF_NAME: 'v0.1.0', RUNNER_TEMP: dir });
    assert.equal(r.status, 0, r.out);
    assert.match(r.out, /^First published version/m);
    assert.doesNotMatch(r.out, /## \[|Unreleased|Breaking/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
