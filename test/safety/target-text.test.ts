/**
 * What a target writes never reaches the CI log or the job summary raw (docs/safety/boundary-validation.md):
 * a stand-in API server (a real one validates names, and its messages are its own) answers with an
 * error Status whose message carries a newline and GitHub workflow commands, ESC sequences, CR and
 * Markdown/HTML, and another returns Services whose names do; the real CLI runs with
 * GITHUB_STEP_SUMMARY set, as in GitHub Actions.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import MarkdownIt from 'markdown-it';
import { ExitCode } from '../../src/errors/exit-codes.js';
import { startStubFleet } from './hostile-apiserver.js';
import { SafetyRepo, assertNoStackTrace, type CliRun } from './support.js';

const EXPORTED = { 'mirror.linkerd.io/exported': 'true' };

/** What the hostile words try: a workflow command on a line of its own, the others, a colour, a carriage return, markup. */
const HOSTILE = [
  'denied',
  '::error title=pwned::pwned',
  '::stop-commands::abc123',
  '::add-mask::x',
  '##[error]legacy ##vso[task.setvariable variable=x]1',
  '\u001b[31mred\u001b[0m\r\u001b[2Kcovered',
  '\u009b31m\u202eevil\u2028::warning::x',
  '<img src=x onerror=alert(1)> <script>alert(1)</script>',
  '![pixel](https://evil.example/p.png) [click](https://evil.example/phish) **bold**',
].join('\n');

/** Names a lying API server returns (each is skipped with a warning that quotes it). */
const HOSTILE_NAMES = ['web\n::error::name', '<img src=x onerror=alert(1)>', '[click](https://evil.example)', 'a\u001b[31mb', '##[error]n'];

function service(namespace: string, name: string): unknown {
  return {
    metadata: { namespace, name, labels: EXPORTED, annotations: {} },
    spec: { type: 'ClusterIP', clusterIP: '10.0.0.1', ports: [{ name: 'http', protocol: 'TCP', port: 80 }] },
  };
}

const FLEET = `const a = new Cluster(fleet, 'a'); const b = new Cluster(fleet, 'b'); const c = new Cluster(fleet, 'c');
new Link(fleet, 'a-from-b', { source: a, target: b }); new Link(fleet, 'a-from-c', { source: a, target: c });`;

/** Raw characters a terminal or CI log would act on (TAB aside). */
const RAW_UNSAFE = /[\u0000-\u0008\u000a-\u001f\u007f-\u009f\u061c\u200b-\u200f\u2028-\u202e\u2060-\u2069\ufeff]/;

/** Asserts that no line of `text` is a GitHub workflow command or holds a bracket command (`##[`, `##vso[`), and that none holds a raw control. */
function assertNoCommands(text: string, context: string): void {
  for (const line of text.split('\n')) {
    assert.doesNotMatch(line, /^\s*::/, `${context}: a workflow command line: ${JSON.stringify(line)}`);
    assert.doesNotMatch(line, /##(?:vso|teamcity)?\[/i, `${context}: a bracket command: ${JSON.stringify(line)}`);
    assert.doesNotMatch(line, RAW_UNSAFE, `${context}: a raw control: ${JSON.stringify(line)}`);
  }
}

/** Asserts stdout and stderr of `run` hold no command and no control, and that the run said what happened. */
function assertCleanLog(run: CliRun, context: string): void {
  assertNoStackTrace(run.stderr);
  assertNoCommands(run.stdout, `${context} stdout`);
  assertNoCommands(run.stderr, `${context} stderr`);
}

describe('target text in the CI log and the job summary', () => {
  test('GIVEN a target answering an error Status with workflow commands, controls and markup, and a target returning such names WHEN synth, plan and synth --strict run with GITHUB_STEP_SUMMARY THEN no line is a CI command, no raw control is printed, the summary renders no markup', async () => {
    const repo = new SafetyRepo();
    const stubs = await startStubFleet(repo.dir, [
      { name: 'a', services: [], namespaces: ['default'] },
      { name: 'b', services: [], namespaces: ['default'], servicesStatus: { code: 403, message: HOSTILE } },
      { name: 'c', namespaces: ['default'], services: [service('default', 'good'), ...HOSTILE_NAMES.map((n) => service('default', n)), service('<b>ns</b>', 'x')] },
    ]);
    const summary = join(repo.dir, 'step-summary.md');
    const env = { GITHUB_STEP_SUMMARY: summary, GITHUB_ACTIONS: 'true' };
    try {
      repo.writeFleet(FLEET);
      // WHEN synth runs: b is stale (its Status message printed in the stale block), c's bad names are warned about
      const synth = await repo.run(['synth', '--kubeconfig', stubs.kubeconfig, '--verbose'], { env });
      assert.equal(synth.code, ExitCode.OK, synth.stderr);
      assertCleanLog(synth, 'synth');
      assert.match(synth.stderr, /cluster "b": list .*permission denied: denied\\n::error title=pwned::pwned\\n::stop-commands::abc123/);
      assert.match(synth.stderr, /\\u001b\[31mred\\u001b\[0m\\r\\u001b\[2Kcovered/);
      assert.match(synth.stderr, /"web\\n::error::name" is not a valid Service name/);
      // AND the report keeps the message as it was printed, and its JSON reads back
      const stale = synth.report.targets.find((t: { cluster: string }) => t.cluster === 'b');
      assert.match(stale.error, /denied\\n::error title=pwned::pwned/);
      assertNoCommands(readFileSync(repo.reportFile, 'utf8'), 'report file');

      // WHEN plan prints to stdout with the report on stdout too (--report -), and synth --strict fails on the bad names
      const plan = await repo.run(['plan', '--kubeconfig', stubs.kubeconfig, '--report', '-'], { env, report: false });
      assert.equal(plan.code, ExitCode.OK, plan.stderr);
      assertCleanLog(plan, 'plan');
      assert.equal(JSON.parse(plan.stdout).command, 'plan');
      const strict = await repo.run(['synth', '--kubeconfig', stubs.kubeconfig, '--strict'], { env });
      assert.notEqual(strict.code, ExitCode.OK, strict.stderr);
      assertCleanLog(strict, 'synth --strict');

      // THEN the job summary (three runs appended) has no command line or control, and renders no tag, link or image
      const md = readFileSync(summary, 'utf8');
      assert.match(md, /### mirrorc synth: ok[\s\S]*### mirrorc plan: ok[\s\S]*### mirrorc synth: exit/);
      assert.match(md, /<img src=x onerror=alert\(1\)>/, 'the words are shown, as code');
      assertNoCommands(md, 'summary');
      const html = new MarkdownIt({ html: true, linkify: true }).render(md);
      assert.doesNotMatch(html, /<(?:img|a|script|b|strong|em)[\s>]/, html);
      assert.match(html, /<td>b<\/td>\s*<td>target<\/td>\s*<td>[^<]+<\/td>\s*<td><code>cluster &quot;b&quot;/);
    } finally {
      await stubs.close();
      repo.remove();
    }
  });
});
