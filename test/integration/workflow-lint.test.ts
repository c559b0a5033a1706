/**
 * actionlint (built from its Go module by test/harness/build-actionlint.sh, cached) finds no problem
 * in the example workflows, which are also what `mirrorc init` scaffolds; and the workflows keep the
 * properties issue 17 asked for: least privilege per job, a pull_request check job, PR publishing by
 * default, delivery/ published, the staleness limit set, current action majors on Node 24.
 * Without Go or the build this test skips, unless CI=true: then it fails.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { test } from 'node:test';
import YAML from 'yaml';

const BUILD = resolve('test/harness/build-actionlint.sh');
const WORKFLOWS = ['examples/github-actions/mirrorc.yml', 'examples/github-actions/mirrorc-sharded.yml', 'examples/github-actions/mirrorc-keyless.yml'];
const OIDC_ACTIONS = ['aws-actions/configure-aws-credentials', 'google-github-actions/auth', 'azure/login'];
/** The repository's own workflows (the release), linted like the examples. */
const OWN_WORKFLOWS = ['.github/workflows/release.yml'];

function actionlint(): { bin?: string; problem?: string } {
  const r = spawnSync('bash', [BUILD], { encoding: 'utf8', env: { ...process.env, PATH: `${process.env.PATH}:/usr/local/go/bin` } });
  if (r.status !== 0) return { problem: `${BUILD} failed (exit ${r.status}): ${r.stderr.trim().split('\n').slice(-5).join(' | ')}` };
  return { bin: join(r.stdout.trim().split('\n').pop()!.trim(), 'actionlint') };
}

test('actionlint finds nothing in the example (and scaffolded) workflows and the release workflow', { timeout: 900_000 }, (t) => {
  const { bin, problem } = actionlint();
  if (!bin) {
    if (process.env.CI === 'true') assert.fail(`actionlint is unavailable: ${problem}`);
    return t.skip(`actionlint unavailable (set CI=true to fail instead): ${problem}`);
  }
  // actionlint runs shellcheck (Debian package; .ci/run installs it) on every run: script, and it
  // checks the publish script too. pyflakes is off: the workflows hold no Python.
  const shellcheck = spawnSync('shellcheck', ['--version'], { encoding: 'utf8' }).status === 0;
  if (!shellcheck && process.env.CI === 'true') assert.fail('shellcheck is not installed (apt-get install shellcheck)');
  const r = spawnSync(bin, ['-no-color', '-pyflakes=', ...(shellcheck ? [] : ['-shellcheck=']), ...WORKFLOWS, ...OWN_WORKFLOWS], { encoding: 'utf8' });
  assert.equal(r.status, 0, `actionlint found problems:\n${r.stdout}${r.stderr}`);
  if (shellcheck) {
    const sc = spawnSync('shellcheck', ['examples/github-actions/mirrorc-publish.sh'], { encoding: 'utf8' });
    assert.equal(sc.status, 0, `shellcheck: ${sc.stdout}${sc.stderr}`);
  } else {
    t.diagnostic('shellcheck not installed: run: scripts were not shellchecked');
  }
  // And it does report problems (the linter is really run): a broken copy fails.
  const broken = spawnSync(bin, ['-no-color', '-shellcheck=', '-pyflakes=', '-'], { encoding: 'utf8', input: readFileSync(WORKFLOWS[0]!, 'utf8').replace('runs-on: ubuntu-latest', 'runs-on: ubuntu-latest\n    permissions:\n      contents: writ') });
  assert.notEqual(broken.status, 0, 'actionlint accepted an invalid permission');
});

interface Job { permissions?: Record<string, string>; steps: { uses?: string; run?: string; with?: Record<string, unknown> }[]; if?: string }

test('each job asks for least privilege; only the publish job may write; no job has id-token unless it uses OIDC', () => {
  for (const file of WORKFLOWS) {
    const wf = YAML.parse(readFileSync(file, 'utf8')) as { permissions: unknown; on: Record<string, unknown>; jobs: Record<string, Job> };
    assert.deepEqual(wf.permissions, {}, `${file}: top-level permissions must be empty`);
    assert.ok('pull_request' in wf.on, `${file}: no pull_request trigger`);
    for (const [name, job] of Object.entries(wf.jobs)) {
      assert.ok(job.permissions, `${file}: job ${name} has no permissions block`);
      const writes = Object.entries(job.permissions).filter(([k, v]) => v === 'write' && k !== 'id-token').map(([k]) => k);
      // id-token: write only where an OIDC login action runs, and never beside a write permission.
      const usesOidc = job.steps.some((st) => OIDC_ACTIONS.includes((st.uses ?? '').split('@')[0]!));
      assert.equal(job.permissions['id-token'] === 'write', usesOidc, `${file}: job ${name} id-token`);
      if (name === 'publish') assert.deepEqual(writes.sort(), ['contents', 'pull-requests'], `${file}: publish`);
      else assert.deepEqual(writes, [], `${file}: job ${name} may write ${writes.join(', ')}`);
      // A job holding cluster credentials never holds write permissions, and vice versa.
      const handlesKubeconfig = JSON.stringify(job.steps).includes('MIRRORC_KUBECONFIG');
      if (handlesKubeconfig) assert.deepEqual(writes, [], `${file}: ${name} has cluster credentials and write access`);
      for (const step of job.steps) {
        const uses = step.uses ?? '';
        // Node 24 majors: checkout v5, setup-node v5, upload-artifact v6, download-artifact v7.
        const want: Record<string, string> = { 'actions/checkout': 'v5', 'actions/setup-node': 'v5', 'actions/upload-artifact': 'v6', 'actions/download-artifact': 'v7' };
        const [action, major] = uses.split('@');
        if (action && want[action]) assert.equal(major, want[action], `${file}: ${uses}`);
        if (action === 'actions/setup-node') assert.equal(step.with?.['node-version'], 24, `${file}: node-version`);
      }
    }
    const check = wf.jobs.check!;
    assert.equal(check.if, "github.event_name == 'pull_request'");
    assert.ok(check.steps.some((s) => /npm run check -- --offline/.test(s.run ?? '')), `${file}: check job runs no check`);
    const text = readFileSync(file, 'utf8');
    assert.match(text, /bash \.github\/mirrorc-publish\.sh/, `${file}: publish script`);
    assert.match(text, /MIRRORC_PUBLISH: \$\{\{ (inputs\.publish \|\| )?vars\.MIRRORC_PUBLISH \|\| 'pr' \}\}/, `${file}: PR mode by default`);
    assert.match(text, /--max-stale "\$MAX_STALE"/, `${file}: staleness limit`);
    assert.match(text, /MIRRORC_MAX_STALE \|\| '24h'/, `${file}: staleness limit default`);
  }
  assert.match(readFileSync('examples/github-actions/mirrorc.yml', 'utf8'), /delivery\/\n/, 'delivery/ is published');
});
