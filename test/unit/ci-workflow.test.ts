/**
 * The example GitHub Actions workflows (examples/github-actions/) must not rot: they parse, every
 * `npm run` script exists, every mirrorc option they pass exists, and secrets reach steps only
 * through env (never on a command line).
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import YAML from 'yaml';
import { CLI_OPTIONS, COMMANDS } from '../../src/cli/options.js';

const DIR = 'examples/github-actions';
const scripts = (JSON.parse(readFileSync('package.json', 'utf8')) as { scripts: Record<string, string> }).scripts;

interface Step { run?: string; uses?: string; env?: Record<string, string>; with?: Record<string, unknown> }
interface Workflow { on: unknown; jobs: Record<string, { steps: Step[]; permissions?: Record<string, string>; needs?: string | string[] }> }

const workflows = readdirSync(DIR).filter((f) => f.endsWith('.yml')).map((f) => ({ file: f, text: readFileSync(join(DIR, f), 'utf8') }));

test('there are example workflows, and each parses as a workflow with jobs and steps', () => {
  assert.deepEqual(workflows.map((w) => w.file).sort(), ['mirrorc-keyless.yml', 'mirrorc-sharded.yml', 'mirrorc.yml']);
  for (const { file, text } of workflows) {
    const wf = YAML.parse(text) as Workflow;
    assert.ok(wf.on, `${file}: no triggers`);
    for (const [name, job] of Object.entries(wf.jobs)) assert.ok(job.steps.length > 0, `${file}: job ${name} has no steps`);
  }
});

test('every npm run script and every mirrorc option used by the workflows exists', () => {
  let invocations = 0;
  for (const { file, text } of workflows) {
    const wf = YAML.parse(text) as Workflow;
    for (const step of Object.values(wf.jobs).flatMap((j) => j.steps)) {
      const run = step.run ?? '';
      for (const match of run.matchAll(/npm run (\S+)/g)) {
        const script = match[1]!;
        assert.ok(scripts[script], `${file}: npm run ${script} is not a package.json script`);
        const command = /(?:src\/cli\/main\.ts|lib\/cli\/main\.js) (\S+)/.exec(scripts[script]!)?.[1];
        if (command === undefined) continue;
        invocations++;
        assert.ok(Object.hasOwn(COMMANDS, command), `${file}: ${script} runs unknown command ${command}`);
        // A step that runs mirrorc passes only mirrorc options (directly or through an args array).
        for (const flag of run.matchAll(/--([a-z][a-z-]*)/g)) {
          assert.ok(Object.hasOwn(CLI_OPTIONS, flag[1]!), `${file}: mirrorc has no option --${flag[1]}`);
        }
      }
    }
  }
  assert.ok(invocations >= 4, `found ${invocations} mirrorc invocations`);
});

test('secrets are passed to steps only through env, never on a command line or in with:', () => {
  for (const { file, text } of workflows) {
    const wf = YAML.parse(text) as Workflow;
    for (const step of Object.values(wf.jobs).flatMap((j) => j.steps)) {
      assert.ok(!/secrets\./.test(step.run ?? ''), `${file}: a run: script reads a secret directly`);
      assert.ok(!/secrets\./.test(JSON.stringify(step.with ?? {})), `${file}: a with: passes a secret`);
      assert.ok(!/set -x|echo "\$KUBECONFIG_B64"/.test(step.run ?? ''), `${file}: a step could print the kubeconfig`);
    }
    // The keyless workflow stores no cluster credential at all (docs/ci-credentials.md); its only
    // secret is the optional token of a private npm registry, for npm ci, never in the OIDC job.
    if (file === 'mirrorc-keyless.yml') {
      assert.ok(!text.replaceAll('${{ secrets.NPM_TOKEN }}', '').includes('secrets.'), `${file}: reads a secret`);
      for (const [name, job] of Object.entries(wf.jobs)) {
        if (job.permissions?.['id-token'] === 'write') assert.ok(!JSON.stringify(job).includes('secrets.'), `${file}: job ${name} holds id-token: write and a secret`);
      }
    }
    else assert.ok(text.includes('secrets.MIRRORC_KUBECONFIG'), `${file}: uses the documented secret`);
  }
});

test('no job that holds id-token: write installs packages (an install script could take its OIDC token); it gets node_modules from a job without it (issue 39)', () => {
  let oidcJobs = 0;
  for (const { file, text } of workflows) {
    const wf = YAML.parse(text) as Workflow;
    for (const [name, job] of Object.entries(wf.jobs)) {
      if (job.permissions?.['id-token'] !== 'write') continue;
      oidcJobs++;
      const installs = job.steps.map((st) => st.run ?? '').filter((run) => /\bnpm (?:ci|install|i)\b|\b(?:yarn|pnpm) install\b/.test(run));
      assert.deepEqual(installs, [], `${file}: job ${name} holds id-token: write and installs packages`);
      // Its node_modules comes from a job it needs, which holds no id-token and installs them.
      const needs = [job.needs ?? []].flat();
      const installer = needs.map((n) => wf.jobs[n]!).find((j) => j.steps.some((st) => /\bnpm ci\b/.test(st.run ?? '')));
      assert.ok(installer, `${file}: job ${name} needs no job that installs the packages`);
      assert.notEqual(installer.permissions?.['id-token'], 'write', `${file}: the installing job holds id-token too`);
    }
  }
  assert.ok(oidcJobs > 0, 'no workflow has an OIDC job: the check checked nothing');
});
