/**
 * examples/github-actions/mirrorc-publish.sh (the workflows' publish step) against a real local bare
 * git repository whose `main` refuses pushes (an `update` hook, like a protected branch): PR mode
 * pushes a branch with dist/, delivery/ and the lock (removals included) and opens a pull request;
 * direct-push mode fails clearly and leaves main alone. `gh` cannot reach GitHub here, so the test
 * puts a stub `gh` first on PATH that records its arguments (only `gh` is stubbed; git is real).
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { after, before, describe, test } from 'node:test';

const SCRIPT = resolve('examples/github-actions/mirrorc-publish.sh');

describe('the publish script against a bare repository whose main refuses pushes', () => {
  let root: string;
  let origin: string;
  let stubBin: string;
  let ghLog: string;
  const git = (cwd: string, ...args: string[]): string => {
    const r = spawnSync('git', args, { cwd, encoding: 'utf8', env: { ...process.env, GIT_TERMINAL_PROMPT: '0' } });
    assert.equal(r.status, 0, `git ${args.join(' ')}: ${r.stderr}`);
    return r.stdout.trim();
  };
  const write = (dir: string, rel: string, text: string): void => {
    mkdirSync(join(dir, rel, '..'), { recursive: true });
    writeFileSync(join(dir, rel), text);
  };

  before(() => {
    root = mkdtempSync(join(tmpdir(), 'mirrorc-publish-'));
    origin = join(root, 'origin.git');
    git(root, 'init', '-q', '--bare', '-b', 'main', origin);
    // The fleet repository's first state, pushed before main is protected.
    const seed = join(root, 'seed');
    git(root, 'clone', '-q', origin, seed);
    git(seed, 'checkout', '-q', '-b', 'main');
    write(seed, 'clusters/fleet.lock.json', '{"format":1}\n');
    write(seed, 'dist/london/service-a.yaml', 'a: 1\n');
    write(seed, 'dist/london/service-old.yaml', 'old: 1\n');
    write(seed, 'delivery/argocd/applicationset-mirrorc.yaml', 'v: 1\n');
    git(seed, 'add', '-A');
    git(seed, '-c', 'user.name=t', '-c', 'user.email=t@example.com', 'commit', '-q', '-m', 'initial');
    git(seed, 'push', '-q', 'origin', 'main');
    // Protect main: the server rejects every update of refs/heads/main.
    writeFileSync(join(origin, 'hooks', 'update'), '#!/bin/sh\nif [ "$1" = refs/heads/main ]; then echo "main is protected: open a pull request" >&2; exit 1; fi\n');
    chmodSync(join(origin, 'hooks', 'update'), 0o755);
    // A stub gh: records each call; `gh pr list` answers with the number in $GH_STUB_OPEN.
    stubBin = join(root, 'bin');
    ghLog = join(root, 'gh.log');
    mkdirSync(stubBin);
    writeFileSync(join(stubBin, 'gh'), `#!/usr/bin/env bash\nprintf '%s\\n' "$*" >> "${ghLog}"\nif [ "$1 $2" = "pr list" ]; then echo "\${GH_STUB_OPEN:-0}"; fi\n`);
    chmodSync(join(stubBin, 'gh'), 0o755);
  });
  after(() => rmSync(root, { recursive: true, force: true }));

  /** A fresh clone of main with synth's new output: one file changed, one removed, delivery and lock changed. */
  const checkoutWithChanges = (name: string, changed = true): string => {
    const ws = join(root, name);
    git(root, 'clone', '-q', '-b', 'main', origin, ws);
    if (changed) {
      write(ws, 'dist/london/service-a.yaml', 'a: 2\n');
      rmSync(join(ws, 'dist/london/service-old.yaml'));
      write(ws, 'delivery/argocd/applicationset-mirrorc.yaml', 'v: 2\n');
      write(ws, 'clusters/fleet.lock.json', '{"format":1,"x":2}\n');
    }
    return ws;
  };
  const publish = (ws: string, env: Record<string, string>) => spawnSync('bash', [SCRIPT], {
    cwd: ws, encoding: 'utf8',
    env: { ...process.env, PATH: `${stubBin}:${process.env.PATH}`, GIT_TERMINAL_PROMPT: '0', MIRRORC_BASE: 'main', ...env },
  });
  const ghCalls = (): string[] => (existsSync(ghLog) ? readFileSync(ghLog, 'utf8').trim().split('\n').filter((l) => l !== '') : []);
  const mainHead = (): string => git(origin, 'rev-parse', 'refs/heads/main');

  test('direct push mode: main refuses, the script fails clearly, main is unchanged', () => {
    const before = mainHead();
    const r = publish(checkoutWithChanges('push'), { MIRRORC_PUBLISH: 'push' });
    assert.equal(r.status, 1, r.stdout + r.stderr);
    assert.match(r.stderr, /main is protected/);
    assert.match(r.stderr, /the push to main was refused .*\n.*use MIRRORC_PUBLISH=pr/);
    assert.equal(mainHead(), before);
  });

  test('PR mode (the default): a branch with dist/, delivery/ and the lock, and a pull request; main is unchanged', () => {
    rmSync(ghLog, { force: true });
    const before = mainHead();
    const r = publish(checkoutWithChanges('pr'), {});
    assert.equal(r.status, 0, r.stdout + r.stderr);
    assert.equal(mainHead(), before);
    // The branch holds exactly synth's changes, the removal included
    const files = git(origin, 'diff', '--name-status', 'refs/heads/main', 'refs/heads/mirrorc/update').split('\n').sort();
    assert.deepEqual(files, ['D\tdist/london/service-old.yaml', 'M\tclusters/fleet.lock.json', 'M\tdelivery/argocd/applicationset-mirrorc.yaml', 'M\tdist/london/service-a.yaml']);
    assert.equal(git(origin, 'rev-parse', 'refs/heads/mirrorc/update^'), before);
    const calls = ghCalls();
    assert.equal(calls.length, 2, calls.join('\n'));
    assert.match(calls[0]!, /^pr list --head mirrorc\/update --base main --state open/);
    assert.match(calls[1]!, /^pr create --base main --head mirrorc\/update --title mirrorc: update mirrors/);
  });

  test('PR mode with a pull request already open: the branch is updated (force), no second pull request', () => {
    rmSync(ghLog, { force: true });
    const ws = checkoutWithChanges('pr-again');
    write(ws, 'dist/london/service-b.yaml', 'b: 1\n');
    const r = publish(ws, { GH_STUB_OPEN: '1' });
    assert.equal(r.status, 0, r.stdout + r.stderr);
    assert.match(r.stdout, /the open pull request for mirrorc\/update now has this update/);
    assert.match(git(origin, 'ls-tree', '-r', '--name-only', 'refs/heads/mirrorc/update'), /dist\/london\/service-b\.yaml/);
    assert.deepEqual(ghCalls().map((c) => c.split(' ').slice(0, 2).join(' ')), ['pr list']);
  });

  test('nothing changed: no commit, no push, no gh call, exit 0', () => {
    rmSync(ghLog, { force: true });
    const branchBefore = git(origin, 'rev-parse', 'refs/heads/mirrorc/update');
    const r = publish(checkoutWithChanges('unchanged', false), {});
    assert.equal(r.status, 0, r.stderr);
    assert.match(r.stdout, /no changes/);
    assert.equal(git(origin, 'rev-parse', 'refs/heads/mirrorc/update'), branchBefore);
    assert.deepEqual(ghCalls(), []);
  });
});
