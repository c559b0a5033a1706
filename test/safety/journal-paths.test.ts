/**
 * A write journal added by a commit (issue 16, finding 9): `.dist.txn/journal.json` and
 * `outside.json` live in the repository, so a commit can add them. Every path they name must lie
 * inside dist/, delivery/ or be the lock, with no `..`, no absolute path and no symbolic link on
 * the way out; otherwise the next run refuses the journal as a whole (exit 2), touches nothing,
 * and says what to delete. Each case runs the real CLI and asserts dist/ + lock by hash, the exit
 * code, the message and the report.
 */
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { ExitCode } from '../../src/errors/exit-codes.js';
import { SafetyRepo, assertNoStackTrace, assertOneOf, type CliRun } from './support.js';

const FLEET = `const a = new Cluster(fleet, 'a'); const b = new Cluster(fleet, 'b'); new Link(fleet, 'a-from-b', { source: a, target: b });`;
const LOCK = {
  format: 1,
  targets: {
    b: {
      selectors: ['mirror.linkerd.io/exported=remote-discovery', 'mirror.linkerd.io/exported=true', 'mirror.linkerd.io/federated=member'],
      services: [{ namespace: 'default', name: 'web', labels: { 'mirror.linkerd.io/exported': 'true' }, annotations: {}, type: 'ClusterIP', headless: false, ports: [{ name: 'http', protocol: 'TCP', port: 80 }] }],
      missingExplicitExports: [],
      gateway: { addresses: ['203.0.113.7'], port: 4143, identity: 'gw.example' },
    },
  },
  sources: { a: { namespaces: ['default'], foreignServices: [] } },
};

function assertRefused(run: CliRun, message: RegExp, context: string): void {
  assert.equal(run.code, ExitCode.INVALID_INPUT, `${context}: exit code\n${run.stderr}`);
  assertNoStackTrace(run.stderr);
  assert.match(run.stderr, message, `${context}: message`);
  assert.match(run.stderr, /refuses to complete or undo.*\n(.|\n)*Nothing was changed\. Delete \.dist\.txn/, `${context}: what to do`);
  assert.ok(run.report, `${context}: a report`);
  assert.equal(run.report.exitCode, ExitCode.INVALID_INPUT);
  assert.match(run.report.error ?? '', message, `${context}: report error`);
}

/** A repository with a good committed state, a file outside it, and a git hooks folder. */
async function repoWithState(): Promise<{ repo: SafetyRepo; outside: string; hook: string; old: string }> {
  const repo = new SafetyRepo();
  repo.writeFleet(FLEET);
  repo.writeLock(LOCK);
  const first = await repo.run(['synth', '--offline']);
  assert.equal(first.code, ExitCode.OK, first.stderr);
  assert.ok(existsSync(join(repo.outDir, 'a', 'from-b', 'default', 'service-web-b.yaml')));
  // The repository sits in a scratch folder: "outside" is a file beside it, the hook inside .git.
  const outside = join(repo.dir, '..', `${repo.dir.split('/').pop()}-outside.txt`);
  writeFileSync(outside, 'keep me\n');
  mkdirSync(join(repo.dir, '.git', 'hooks'), { recursive: true });
  return { repo, outside, hook: join(repo.dir, '.git', 'hooks', 'pre-commit'), old: repo.hash() };
}

/** Writes `.dist.txn/` with a committed journal of `ops` and one staged file. */
function writeJournal(repo: SafetyRepo, ops: unknown[], extra: (txn: string) => void = () => {}): void {
  const txn = join(repo.dir, '.dist.txn');
  mkdirSync(join(txn, 'files', '0'), { recursive: true });
  writeFileSync(join(txn, 'files', '0', '0'), '#!/bin/sh\necho pwned\n');
  extra(txn);
  writeFileSync(join(txn, 'journal.json'), JSON.stringify({ format: 1, ops }));
}

const STAGED = '.dist.txn/files/0/0';

describe('a write journal added by a commit', () => {
  const cases: [string, (ctx: { repo: SafetyRepo; outside: string }) => unknown[], RegExp, ((txn: string, repo: SafetyRepo) => void)?][] = [
    ['a delete of a file outside the repository ("..")', ({ outside }) => [{ op: 'delete', path: `../${outside.split('/').pop()}`, step: 'apply-delete' }, { op: 'delete', path: 'dist/a/from-b/default/service-web-b.yaml', step: 'apply-delete' }], /operation 1: delete "\.\.\/.*-outside\.txt" is outside dist\/ and is not the lock/],
    ['a put of a git hook (inside the repository, outside dist/)', () => [{ op: 'put', path: '.git/hooks/pre-commit', staged: STAGED, step: 'apply-object' }], /operation 1: put "\.git\/hooks\/pre-commit" is outside dist\/ and is not the lock clusters\/fleet\.lock\.json/],
    ['a git hook disguised as the lock', () => [{ op: 'put', path: '.git/hooks/pre-commit', staged: STAGED, step: 'apply-lock' }], /operation 1: put "\.git\/hooks\/pre-commit" is outside dist\/ and is not the lock/],
    ['an inner ".." (dist/../.git/hooks)', () => [{ op: 'put', path: 'dist/../.git/hooks/pre-commit', staged: STAGED, step: 'apply-object' }], /operation 1: path "dist\/\.\.\/\.git\/hooks\/pre-commit" is not in canonical form/],
    ['an absolute path', ({ outside }) => [{ op: 'delete', path: outside, step: 'apply-delete' }], /operation 1: path ".*-outside\.txt" is absolute/],
    ['a staged file outside the transaction (read into dist/)', ({ outside }) => [{ op: 'put', path: 'dist/a/from-b/default/stolen.yaml', staged: `../${outside.split('/').pop()}`, step: 'apply-object' }], /operation 1: staged file "\.\.\/.*" is neither inside \.dist\.txn\/ nor beside its target/],
    ['a folder put over the git hooks', () => [{ op: 'put-dir', path: '.git/hooks', staged: '.dist.txn/files/0', step: 'apply-folder' }], /operation 1: put-dir "\.git\/hooks" is outside dist\//],
    ['a folder put into dist/ from outside the transaction (the .git folder)', () => [{ op: 'put-dir', path: 'dist/a/stolen', staged: '.git', step: 'apply-folder' }], /operation 1: a folder is put only inside dist\/, from inside \.dist\.txn\/ or from beside itself/],
    ['a path through a symbolic link inside dist/ that points out', () => [{ op: 'put', path: 'dist/escape/hooks/pre-commit', staged: STAGED, step: 'apply-object' }], /operation 1: put "dist\/escape\/hooks\/pre-commit": dist\/escape on its way is a symbolic link/, (_txn, repo) => symlinkSync(join(repo.dir, '.git'), join(repo.outDir, 'escape'))],
  ];
  for (const [name, ops, message, extra] of cases) {
    for (const command of ['synth', 'plan'] as const) {
      test(`GIVEN a committed journal with ${name} WHEN ${command} runs THEN it is refused with exit 2, nothing outside dist/ is touched, dist/ and the lock are the old state`, async () => {
        const { repo, outside, hook, old } = await repoWithState();
        try {
          writeJournal(repo, ops({ repo, outside }), extra ? (txn) => extra(txn, repo) : undefined);
          const run = await repo.run([command, '--offline']);
          assertRefused(run, message, `${name} (${command})`);
          // THEN the file outside survives, no hook is installed, dist/ and the lock are exactly the old state
          assert.equal(readFileSync(outside, 'utf8'), 'keep me\n');
          assert.ok(!existsSync(hook), 'no git hook installed');
          assert.ok(!existsSync(join(repo.outDir, 'a', 'from-b', 'default', 'stolen.yaml')));
          assertOneOf(repo.hash(), { old }, name);
          // AND the journal is left for the user to inspect and delete
          assert.ok(existsSync(join(repo.dir, '.dist.txn', 'journal.json')));
        } finally {
          repo.remove();
          try {
            (await import('node:fs')).rmSync(outside, { force: true });
          } catch {}
        }
      });
    }
  }

  test('GIVEN an uncommitted transaction whose outside.json lists a file outside the repository WHEN synth runs THEN it is refused with exit 2 and the file survives', async () => {
    const { repo, outside, old } = await repoWithState();
    try {
      const txn = join(repo.dir, '.dist.txn');
      mkdirSync(txn, { recursive: true });
      writeFileSync(join(txn, 'outside.json'), JSON.stringify([`../${outside.split('/').pop()}`, 'clusters/fleet.ts']));
      const run = await repo.run(['synth', '--offline']);
      assertRefused(run, /outside\.json entry 1: "\.\.\/.*" is not a file staged by mirrorc(.|\n)*outside\.json entry 2: "clusters\/fleet\.ts" is not a file staged by mirrorc/, 'outside.json');
      assert.equal(readFileSync(outside, 'utf8'), 'keep me\n');
      assert.ok(existsSync(join(repo.dir, 'clusters', 'fleet.ts')));
      assertOneOf(repo.hash(), { old }, 'outside.json');
    } finally {
      repo.remove();
      (await import('node:fs')).rmSync(outside, { force: true });
    }
  });

  test('GIVEN a committed journal that only replaces a file of dist/ and the lock WHEN synth runs THEN it is rolled forward as before (the check refuses nothing legitimate)', async () => {
    const { repo, outside } = await repoWithState();
    try {
      const lockText = readFileSync(repo.lockFile, 'utf8');
      mkdirSync(join(repo.dir, '.dist.txn', 'files', '0'), { recursive: true });
      writeFileSync(join(repo.dir, '.dist.txn', 'files', '0', '0'), '# replaced\n');
      writeFileSync(join(repo.dir, '.dist.txn', 'files', '0', '1'), lockText);
      writeFileSync(join(repo.dir, '.dist.txn', 'journal.json'), JSON.stringify({ format: 1, ops: [
        { op: 'put', path: 'dist/a/from-b/default/service-web-b.yaml', staged: '.dist.txn/files/0/0', step: 'apply-object' },
        { op: 'put', path: 'clusters/fleet.lock.json', staged: '.dist.txn/files/0/1', step: 'apply-lock' },
      ] }));
      // plan reads the committed state: the replaced file differs from what synth writes
      const plan = await repo.run(['plan', '--offline']);
      assert.equal(plan.code, ExitCode.OK, plan.stderr);
      assert.match(plan.stdout, /~ from-b\/default\/service-web-b\.yaml/);
      // synth completes the journal, then writes the compiled tree again
      const run = await repo.run(['synth', '--offline']);
      assert.equal(run.code, ExitCode.OK, run.stderr);
      assert.ok(!existsSync(join(repo.dir, '.dist.txn')));
      assert.doesNotMatch(readFileSync(join(repo.outDir, 'a', 'from-b', 'default', 'service-web-b.yaml'), 'utf8'), /# replaced/);
    } finally {
      repo.remove();
      (await import('node:fs')).rmSync(outside, { force: true });
    }
  });
});
