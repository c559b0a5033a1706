/**
 * The write path on a `dist/` that is a mount of its own (real mounts; the tests run as root in CI):
 * a bind mount of the same file system (same st_dev, but a rename into it from beside it fails with
 * EXDEV) and a tmpfs (another file system), while the repository is on the disk's file system. synth
 * must succeed, roll a killed run forward, write nothing on a second run; `check` must never say
 * "up to date" over a tree on disk that is not the committed one.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, renameSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { before, describe, test, type TestContext } from 'node:test';
import { ExitCode } from '../../src/errors/exit-codes.js';
import { NODE_FS_HOST } from '../../src/emit/durable-fs.js';
import { faultingHost } from '../fixtures/faulting-host.js';
import { readTree } from '../../src/emit/read-tree.js';
import { transactionDir } from '../../src/emit/write-transaction.js';
import { SafetyRepo, assertNoStackTrace, type CliRun } from './support.js';
import { FLEET_A, LOCK_NEW_TEXT, LOCK_OLD, danglingKustomizationEntries, synthInProcess, writeLeftovers } from './write-path-fixtures.js';

type MountKind = 'bind' | 'tmpfs';

/** Reference hashes: the complete state of a cold synth of LOCK_OLD, and of LOCK_NEW_TEXT after it, written on one file system. */
let states: { old: string; new: string };

before(async () => {
  const repo = new SafetyRepo();
  try {
    repo.writeFleet(FLEET_A);
    repo.writeLock(LOCK_OLD);
    assert.equal((await synthInProcess(repo, 'write')).exitCode, 0);
    const old = repo.hash();
    repo.writeLock(LOCK_NEW_TEXT);
    assert.equal((await synthInProcess(repo, 'write')).exitCode, 0);
    states = { old, new: repo.hash() };
  } finally {
    repo.remove();
  }
});

/**
 * A repository whose `dist/` is a mount point: a bind mount of a folder of the same file system, or a
 * tmpfs. Undefined (the case skipped, or failed under CI=true) when this machine cannot mount.
 */
function mountedRepo(t: TestContext, kind: MountKind): SafetyRepo | undefined {
  const repo = new SafetyRepo();
  mkdirSync(repo.outDir);
  let mounted = false;
  if (process.getuid?.() === 0) {
    try {
      if (kind === 'bind') {
        const backing = join(repo.dir, 'backing');
        mkdirSync(backing);
        execFileSync('mount', ['--bind', backing, repo.outDir], { stdio: 'pipe' });
      } else execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=16m', 'tmpfs', repo.outDir], { stdio: 'pipe' });
      mounted = true;
    } catch {
      mounted = false;
    }
  }
  if (!mounted) {
    repo.remove();
    const reason = `dist/ cannot be made a ${kind} mount here (mounting needs root)`;
    if (process.env.CI === 'true') assert.fail(`${reason}; with CI=true this case must run, not skip`);
    t.skip(reason);
    return undefined;
  }
  repo.writeFleet(FLEET_A);
  // GIVEN dist/ really is what the case says: the same device as its parent (bind) or another one (tmpfs)
  const same = statSync(repo.outDir).dev === statSync(repo.dir).dev;
  assert.equal(same, kind === 'bind', `dist/ is ${same ? 'on' : 'not on'} its parent's device`);
  if (kind === 'bind') assert.throws(() => renameProbe(repo), /EXDEV/, 'a rename from beside dist/ into it works: not a mount');
  return repo;
}

/** Renames a file from beside dist/ into it (throws EXDEV across mounts); removes what it made. */
function renameProbe(repo: SafetyRepo): void {
  const from = join(repo.dir, 'probe');
  writeFileSync(from, '');
  try {
    renameSync(from, join(repo.outDir, 'probe'));
    renameSync(join(repo.outDir, 'probe'), from);
  } finally {
    execFileSync('rm', ['-f', from]);
  }
}

function unmount(repo: SafetyRepo): void {
  execFileSync('umount', [repo.outDir]);
  repo.remove();
}

function assertOk(run: CliRun): void {
  assert.equal(run.code, 0, run.stderr);
  assertNoStackTrace(run.stderr);
  assert.equal(run.report?.exitCode, 0);
  assert.equal(run.report?.error, null);
}

/** Nothing of a transaction is left: beside dist/, beside the lock, or staged inside dist/ itself. */
function assertNothingLeft(repo: SafetyRepo): void {
  assert.deepEqual(writeLeftovers(repo), []);
  assert.equal(existsSync(transactionDir(repo.outDir)), false);
  const inside = (dir: string): string[] => readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? [e.name, ...inside(join(dir, e.name)).map((n) => `${e.name}/${n}`)] : [e.name]));
  assert.deepEqual(inside(repo.outDir).filter((n) => /mirrorc-staged|mirrorc-rename-probe/.test(n)), []);
}

/** Each file of dist/ and the lock with its inode and mtime. */
function identities(repo: SafetyRepo): string[] {
  return [...readTree(repo.outDir).keys(), '../clusters/fleet.lock.json'].map((rel) => {
    const st = statSync(join(repo.outDir, rel));
    return `${rel} ${st.ino} ${st.mtimeMs}`;
  });
}

for (const kind of ['bind', 'tmpfs'] as const) {
  const what = kind === 'bind' ? 'a bind mount (same st_dev, a rename into it gives EXDEV)' : 'a tmpfs (another file system)';
  describe(`dist/ is ${what}`, () => {
    test('GIVEN an empty dist/ WHEN synth writes the fleet, runs again, then writes a change THEN every run exits 0, the tree and lock are exactly those of one file system, the second run writes nothing, nothing is left behind', async (t) => {
      const repo = mountedRepo(t, kind);
      if (!repo) return;
      try {
        repo.writeLock(LOCK_OLD);
        // WHEN a cold synth writes every unit folder (each staged whole, renamed into place as one)
        assertOk(await repo.run(['synth', '--offline']));
        assert.equal(repo.hash(), states.old);
        assertNothingLeft(repo);
        // WHEN it runs again with nothing to change THEN no file is touched
        const before = identities(repo);
        const again = await repo.run(['synth', '--offline']);
        assertOk(again);
        assert.match(again.stderr, /is up to date: no changes/);
        assert.deepEqual(identities(repo), before);
        // WHEN a change adds, changes and removes files THEN it lands whole
        repo.writeLock(LOCK_NEW_TEXT);
        assertOk(await repo.run(['synth', '--offline']));
        assert.equal(repo.hash(), states.new);
        assert.deepEqual(danglingKustomizationEntries(repo.outDir), []);
        assertNothingLeft(repo);
      } finally {
        unmount(repo);
      }
    });

    for (const [name, lock, step, expected] of [
      ['a cold synth', undefined, 'apply-folder', 'old'],
      ['a change', LOCK_NEW_TEXT, 'apply-object', 'new'],
    ] as const) {
      test(`GIVEN ${name} WHEN synth is killed right after its commit point (before ${step}) THEN the next synth rolls it forward: exit 0, the new complete state, nothing left behind`, async (t) => {
        const repo = mountedRepo(t, kind);
        if (!repo) return;
        try {
          repo.writeLock(LOCK_OLD);
          if (lock !== undefined) {
            assertOk(await repo.run(['synth', '--offline']));
            repo.writeLock(lock);
          }
          const crashed = await repo.run(['synth', '--offline'], { fault: `crash:${step}` });
          assert.equal(crashed.code, null, crashed.stderr);
          // (the committed journal names the new state)
          assert.equal(repo.committedHash(), states[expected]);
          const next = await repo.run(['synth', '--offline']);
          assertOk(next);
          assert.equal(repo.hash(), states[expected]);
          assert.deepEqual(danglingKustomizationEntries(repo.outDir), []);
          assertNothingLeft(repo);
        } finally {
          unmount(repo);
        }
      });
    }
  });
}

test('GIVEN dist/ a bind mount and a write committed with its files staged beside dist/ (as earlier versions staged them, where every apply then failed with EXDEV), its apply interrupted WHEN synth runs again THEN it rolls the write forward by copying (exit 0), the new complete state, nothing left behind', async (t) => {
  const repo = mountedRepo(t, 'bind');
  if (!repo) return;
  try {
    repo.writeLock(LOCK_OLD);
    // The state of the issue: staging decided by st_dev (the same device: staged in .dist.txn/), the
    // commit point passed, the apply stopped at its first rename into dist/.
    const host = faultingHost('errno:EIO:apply-folder', { ...NODE_FS_HOST, renameReaches: () => true });
    const stuck = await synthInProcess(repo, 'write', { host });
    assert.equal(stuck.exitCode, ExitCode.WRITE_FAILED, stuck.log.join('\n'));
    assert.match(stuck.log.join('\n'), /committed/);
    assert.ok(readdirSync(join(transactionDir(repo.outDir), 'folders')).length > 0, 'no unit folder staged in .dist.txn/');
    assert.equal(repo.committedHash(), states.old);
    // WHEN the next synth runs THEN the renames into the other mount fail with EXDEV, and it copies instead
    const next = await repo.run(['synth', '--offline']);
    assertOk(next);
    assert.equal(repo.hash(), states.old);
    assert.deepEqual(danglingKustomizationEntries(repo.outDir), []);
    assertNothingLeft(repo);
  } finally {
    unmount(repo);
  }
});

test('GIVEN dist/ a bind mount and such a stuck write WHEN the synth that copies it into place is killed before each single mutating step in turn THEN the next synth still completes it: exit 0, the new complete state, nothing left behind', async (t) => {
  let n = 1;
  for (;; n++) {
    const repo = mountedRepo(t, 'bind');
    if (!repo) return;
    try {
      repo.writeLock(LOCK_OLD);
      const stuck = await synthInProcess(repo, 'write', { host: faultingHost('errno:EIO:apply-folder', { ...NODE_FS_HOST, renameReaches: () => true }) });
      assert.equal(stuck.exitCode, ExitCode.WRITE_FAILED, stuck.log.join('\n'));
      const crashed = await repo.run(['synth', '--offline'], { fault: `crash:${n}` });
      if (crashed.code === 0) {
        // Past the last step: the roll-forward completed in that run.
        assert.equal(repo.hash(), states.old);
        assertNothingLeft(repo);
        break;
      }
      assert.equal(crashed.code, null, `step ${n}: ${crashed.stderr}`);
      assert.equal(repo.committedHash(), states.old, `step ${n}`);
      assert.deepEqual(danglingKustomizationEntries(repo.outDir), [], `step ${n}`);
      const next = await repo.run(['synth', '--offline']);
      assertOk(next);
      assert.equal(repo.hash(), states.old, `step ${n}: recovery`);
      assertNothingLeft(repo);
    } finally {
      unmount(repo);
    }
  }
  // (three unit folders copied: a removal, the copy, a rename and a removal each, then the rest of the apply)
  assert.ok(n > 12, `only ${n - 1} mutating steps: the copy was not exercised`);
});

describe('check compares what is on disk', () => {
  test('GIVEN dist/ a bind mount and the lock changed WHEN check, synth, check run THEN the first check fails (5), synth writes the change (0), and only then check passes', async (t) => {
    const repo = mountedRepo(t, 'bind');
    if (!repo) return;
    try {
      repo.writeLock(LOCK_OLD);
      assertOk(await repo.run(['synth', '--offline']));
      repo.writeLock(LOCK_NEW_TEXT);
      assert.equal((await repo.run(['check', '--offline'])).code, ExitCode.CHECK_FAILED);
      assertOk(await repo.run(['synth', '--offline']));
      assert.equal(repo.hash(), states.new);
      assertOk(await repo.run(['check', '--offline']));
    } finally {
      unmount(repo);
    }
  });

  test('GIVEN a synth killed right after its commit point (the tree on disk not the committed one yet) WHEN check runs THEN it fails (5) naming the unfinished write, and passes once synth has completed it', async () => {
    const repo = new SafetyRepo();
    try {
      repo.writeFleet(FLEET_A);
      repo.writeLock(LOCK_OLD);
      assertOk(await repo.run(['synth', '--offline']));
      repo.writeLock(LOCK_NEW_TEXT);
      const crashed = await repo.run(['synth', '--offline'], { fault: 'crash:apply-object' });
      assert.equal(crashed.code, null, crashed.stderr);
      assert.notEqual(repo.hash(), states.new, 'the kill left a tree on disk that is not the new one');
      const check = await repo.run(['check', '--offline']);
      assert.equal(check.code, ExitCode.CHECK_FAILED, check.stderr);
      assert.match(check.stderr, /an interrupted synth committed a write of dist\/ that is not in place yet/);
      assert.equal(check.report?.exitCode, ExitCode.CHECK_FAILED);
      assertOk(await repo.run(['synth', '--offline']));
      assertOk(await repo.run(['check', '--offline']));
    } finally {
      repo.remove();
    }
  });
});
