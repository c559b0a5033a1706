/**
 * synth streams: each source folder is staged into the write transaction as it is rendered, long
 * before the removal guard decides, and a unit folder that does not exist yet is staged whole and
 * renamed into place as one folder. These cases prove that neither weakens the write path: a cold
 * synth killed before any of its steps leaves the old (empty) or the new complete state, never a
 * kustomization.yaml listing a missing file; a run the removal guard refuses after staging leaves
 * nothing behind and changes nothing.
 */
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { before, describe, test } from 'node:test';
import { NODE_FS_HOST } from '../../src/emit/durable-fs.js';
import type { FsHost, WriteStep } from '../../src/emit/fs-host.js';
import { transactionDir } from '../../src/emit/write-transaction.js';
import { ExitCode } from '../../src/errors/exit-codes.js';
import { SafetyRepo, assertOneOf } from './support.js';
import { FLEET_A, LOCK_OLD, danglingKustomizationEntries, generatedLock, synthInProcess, writeLeftovers } from './write-path-fixtures.js';

/** A repository with a fleet and its lock and no dist/ yet: a cold synth. */
function coldRepo(): SafetyRepo {
  const repo = new SafetyRepo();
  repo.writeFleet(FLEET_A);
  repo.writeLock(LOCK_OLD);
  return repo;
}

/** The hashes of the cold repository before and after a complete synth. */
let states: { old: string; new: string };

before(async () => {
  const repo = coldRepo();
  try {
    const old = repo.hash();
    const done = await synthInProcess(repo, 'write');
    assert.equal(done.exitCode, 0, done.log.join('\n'));
    states = { old, new: repo.hash() };
    assert.notEqual(states.old, states.new);
  } finally {
    repo.remove();
  }
});

describe('a cold synth (every unit folder new)', () => {
  test('GIVEN an empty dist/ WHEN synth is killed right before it renames the first unit folder into place THEN its committed journal puts each new unit folder as one operation, plan reads the new complete state, and the next synth completes it', async () => {
    const repo = coldRepo();
    try {
      const crashed = await repo.run(['synth', '--offline'], { fault: 'crash:apply-folder' });
      // THEN the named step was reached (a run that put files one by one would never meet it and exit 0)
      assert.equal(crashed.code, null, crashed.stderr);
      const journal = JSON.parse(readFileSync(join(transactionDir(repo.outDir), 'journal.json'), 'utf8')) as { ops: { op: string; path: string; step: string }[] };
      const folders = journal.ops.filter((o) => o.op === 'put-dir').map((o) => o.path).sort();
      assert.deepEqual(folders, ['dist/a/base', 'dist/a/from-b', 'dist/b/base']);
      // AND only each cluster's kustomization.yaml and the lock are put file by file, after the folders
      assert.deepEqual(journal.ops.filter((o) => o.op === 'put').map((o) => `${o.step} ${o.path}`), ['apply-kustomization dist/a/kustomization.yaml', 'apply-kustomization dist/b/kustomization.yaml', 'apply-lock clusters/fleet.lock.json']);
      assert.ok(journal.ops.findIndex((o) => o.op === 'put') > journal.ops.map((o) => o.op).lastIndexOf('put-dir'));
      assert.equal(repo.committedHash(), states.new);
      assert.deepEqual(danglingKustomizationEntries(repo.outDir), []);
      const next = await synthInProcess(repo, 'write');
      assert.equal(next.exitCode, 0, next.log.join('\n'));
      assert.equal(repo.hash(), states.new);
      assert.deepEqual(writeLeftovers(repo), []);
    } finally {
      repo.remove();
    }
  });

  test('GIVEN an empty dist/ WHEN synth is killed before each single mutating step in turn THEN every crash leaves the old or the new committed state with valid kustomizations, and recovery always ends in the new state', async () => {
    let n = 1;
    const seen = new Set<string>();
    for (;; n++) {
      const repo = coldRepo();
      try {
        const crashed = await repo.run(['synth', '--offline'], { fault: `crash:${n}` });
        if (crashed.code === 0) {
          assert.equal(repo.hash(), states.new);
          break;
        }
        assert.equal(crashed.code, null, `step ${n}: ${crashed.stderr}`);
        seen.add(assertOneOf(repo.committedHash(), states, `step ${n}`));
        if (existsSync(repo.outDir)) assert.deepEqual(danglingKustomizationEntries(repo.outDir), [], `step ${n}`);
        const next = await synthInProcess(repo, 'write');
        assert.equal(next.exitCode, 0, next.log.join('\n'));
        assert.equal(repo.hash(), states.new, `step ${n}: recovery`);
        assert.deepEqual(writeLeftovers(repo), [], `step ${n}`);
      } finally {
        repo.remove();
      }
    }
    assert.ok(n > 10, `only ${n - 1} mutating steps`);
    assert.deepEqual([...seen].sort(), ['new', 'old']);
  });
});

test('GIVEN a written output WHEN a run stages the new folders and the removal guard then refuses it THEN the staging is discarded: dist/ and the lock are unchanged and no transaction is left', async () => {
  const repo = new SafetyRepo();
  try {
    repo.writeFleet(FLEET_A);
    repo.writeLock(generatedLock(40));
    const first = await synthInProcess(repo, 'write');
    assert.equal(first.exitCode, 0, first.log.join('\n'));
    // WHEN the target stops exporting most services (not confirmed)
    repo.writeLock(generatedLock(4));
    const stateBefore = repo.hash();
    const steps: WriteStep[] = [];
    const recording: FsHost = {
      ...NODE_FS_HOST,
      writeFile: (step, path, text, flush) => {
        steps.push(step);
        NODE_FS_HOST.writeFile(step, path, text, flush);
      },
      removeTree: (step, path) => {
        steps.push(step);
        NODE_FS_HOST.removeTree(step, path);
      },
      rename: (step, from, to) => {
        steps.push(step);
        NODE_FS_HOST.rename(step, from, to);
      },
    };
    const refused = await synthInProcess(repo, 'write', { host: recording });
    // THEN it is refused, after files were staged, and the staging was discarded before any commit
    assert.equal(refused.exitCode, ExitCode.REMOVAL_NOT_CONFIRMED, refused.log.join('\n'));
    assert.ok(steps.includes('stage-file'), steps.join(', '));
    assert.equal(steps.at(-1), 'discard', steps.join(', '));
    assert.ok(!steps.includes('journal-commit'), steps.join(', '));
    assert.equal(repo.hash(), stateBefore);
    assert.equal(existsSync(transactionDir(repo.outDir)), false);
    assert.deepEqual(writeLeftovers(repo), []);
  } finally {
    repo.remove();
  }
});
