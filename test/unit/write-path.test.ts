/** The run lock (in one process) and the fault-injection hook of the write path. */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, test } from 'node:test';
import { acquireRunLock, holderInfoPath, RunLockBusyError } from '../../src/emit/run-lock.js';
import { parseFault, WRITE_STEPS } from '../../src/emit/fault-injection.js';

describe('acquireRunLock', () => {
  let root: string;
  beforeEach(() => {
    root = fs.mkdtempSync(path.join(os.tmpdir(), 'mirrorc-lock-'));
  });
  afterEach(() => {
    fs.rmSync(root, { recursive: true, force: true });
  });

  test('GIVEN a held lock WHEN a second taker does not wait THEN it fails naming the holder; after release it succeeds', async () => {
    const outDir = path.join(root, 'dist');
    const first = await acquireRunLock(outDir, { waitSeconds: 0, command: 'synth --offline' });
    try {
      const info = JSON.parse(fs.readFileSync(holderInfoPath(outDir), 'utf8'));
      assert.equal(info.pid, process.pid);
      await assert.rejects(acquireRunLock(outDir, { waitSeconds: 0 }), (e: unknown) =>
        e instanceof RunLockBusyError && new RegExp(`pid ${process.pid} on host .*"synth --offline", since `).test(e.message) && /--wait 0/.test(e.message));
    } finally {
      first.release();
    }
    // THEN the holder information is gone and the lock can be taken again
    assert.equal(fs.existsSync(holderInfoPath(outDir)), false);
    const second = await acquireRunLock(outDir, { waitSeconds: 0 });
    second.release();
  });

  test('GIVEN a held lock WHEN another taker waits THEN it gets the lock as soon as the holder releases it', async () => {
    const outDir = path.join(root, 'dist');
    const first = await acquireRunLock(outDir, { waitSeconds: 0 });
    let waited = '';
    const second = acquireRunLock(outDir, { waitSeconds: 600, onWait: (holder) => { waited = holder; first.release(); } });
    (await second).release();
    assert.match(waited, new RegExp(`pid ${process.pid}`));
  });

  test('two output folders have two independent locks, and a path with a symlinked parent is the same folder', async () => {
    fs.mkdirSync(path.join(root, 'real'));
    fs.symlinkSync(path.join(root, 'real'), path.join(root, 'link'));
    const a = await acquireRunLock(path.join(root, 'real', 'dist'), { waitSeconds: 0 });
    try {
      const b = await acquireRunLock(path.join(root, 'other-dist'), { waitSeconds: 0 });
      b.release();
      await assert.rejects(acquireRunLock(path.join(root, 'link', 'dist'), { waitSeconds: 0 }), RunLockBusyError);
    } finally {
      a.release();
    }
  });
});

describe('acquireRunLock with a pid file (platforms without abstract sockets)', () => {
  let root: string;
  beforeEach(() => {
    root = fs.mkdtempSync(path.join(os.tmpdir(), 'mirrorc-lock-'));
  });
  afterEach(() => {
    fs.rmSync(root, { recursive: true, force: true });
  });

  test('GIVEN a held pid-file lock WHEN a second taker does not wait THEN it fails naming the holder; after release it succeeds', async () => {
    const outDir = path.join(root, 'dist');
    const first = await acquireRunLock(outDir, { waitSeconds: 0, mechanism: 'pid-file', command: 'synth' });
    try {
      await assert.rejects(acquireRunLock(outDir, { waitSeconds: 0, mechanism: 'pid-file' }), (e: unknown) =>
        e instanceof RunLockBusyError && new RegExp(`pid ${process.pid} on host `).test(e.message));
    } finally {
      first.release();
    }
    (await acquireRunLock(outDir, { waitSeconds: 0, mechanism: 'pid-file' })).release();
  });

  test('GIVEN a pid file left by a process that is gone WHEN a run takes the lock THEN it takes it over', async () => {
    const outDir = path.join(root, 'dist');
    // A pid that is not running: the largest pid Linux can hand out, plus one.
    fs.writeFileSync(holderInfoPath(outDir), JSON.stringify({ pid: 4194305, host: os.hostname(), command: 'synth', since: '2026-01-01T00:00:00.000Z' }));
    const lock = await acquireRunLock(outDir, { waitSeconds: 0, mechanism: 'pid-file' });
    assert.equal(JSON.parse(fs.readFileSync(holderInfoPath(outDir), 'utf8')).pid, process.pid);
    lock.release();
  });

  test('GIVEN a pid file of another host WHEN a run takes the lock THEN it does not take it over (it cannot tell whether that run is alive)', async () => {
    const outDir = path.join(root, 'dist');
    fs.writeFileSync(holderInfoPath(outDir), JSON.stringify({ pid: 4194305, host: 'elsewhere', command: 'synth', since: '2026-01-01T00:00:00.000Z' }));
    await assert.rejects(acquireRunLock(outDir, { waitSeconds: 0, mechanism: 'pid-file' }), /pid 4194305 on host elsewhere/);
  });
});

describe('parseFault', () => {
  test('reads crash and errno faults at a step name or a step number', () => {
    assert.deepEqual(parseFault('crash:journal-commit'), { kind: 'crash', at: 'journal-commit' });
    assert.deepEqual(parseFault('crash:7'), { kind: 'crash', at: 7 });
    assert.deepEqual(parseFault('errno:ENOSPC:stage-file'), { kind: 'errno', code: 'ENOSPC', at: 'stage-file' });
  });

  test('refuses an unknown step or a malformed fault, listing the steps', () => {
    assert.throws(() => parseFault('crash:somewhere'), new RegExp(WRITE_STEPS.join(', ')));
    assert.throws(() => parseFault('errno:enospc:stage-file'), /is not crash:<step\|n> or errno:<CODE>:<step\|n>/);
    assert.throws(() => parseFault('crash:0'));
  });
});
