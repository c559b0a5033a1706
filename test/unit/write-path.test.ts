/** The run lock (in one process) and the faulting file-system host the write-path tests inject. */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, test } from 'node:test';
import { parseAllDocuments } from 'yaml';
import { acquireRunLock, holderInfoPath, RunLockBusyError } from '../../src/emit/run-lock.js';
import { WRITE_STEPS } from '../../src/emit/fs-host.js';
import { faultingHost, parseFault } from '../fixtures/faulting-host.js';
import { readTree, writeOutput } from '../../src/emit/write-output.js';
import { NODE_FS_HOST } from '../../src/emit/durable-fs.js';
import type { FsHost } from '../../src/emit/fs-host.js';
import { ExitCode } from '../../src/errors/exit-codes.js';
import { runSynth } from '../../src/pipeline/run-synth.js';

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

describe('faultingHost', () => {
  let root: string;
  beforeEach(() => {
    root = fs.mkdtempSync(path.join(os.tmpdir(), 'mirrorc-fault-'));
  });
  afterEach(() => {
    fs.rmSync(root, { recursive: true, force: true });
  });

  test('GIVEN an errno fault at a step number WHEN a write passes that step THEN it fails there once with that code, and counts every mutating step', () => {
    const outDir = path.join(root, 'dist');
    const lock = path.join(root, 'fleet.lock.json');
    const tree = new Map([['a/x.yaml', 'x: 1\n'], ['a/kustomization.yaml', 'resources: [x.yaml]\n']]);
    // A clean write through a host that never faults counts its steps (txn-begin, 3 staged files, sync, journal write and commit, ...).
    const counting = faultingHost('crash:1000');
    writeOutput(outDir, tree, { path: lock, text: 'lock-1\n' }, { host: counting });
    assert.ok(counting.steps >= 8, `${counting.steps} steps`);
    // WHEN the same write of a changed tree faults at its 2nd step (the first staged file)
    const faulting = faultingHost('errno:EIO:2');
    assert.throws(() => writeOutput(outDir, new Map([...tree, ['a/x.yaml', 'x: 2\n']]), { path: lock, text: 'lock-2\n' }, { host: faulting }),
      (e: unknown) => (e as NodeJS.ErrnoException).code === 'EIO' && /stage-file|nothing was changed/.test((e as Error).message));
    // THEN nothing changed, and the same host does not fault again
    assert.equal(fs.readFileSync(path.join(outDir, 'a', 'x.yaml'), 'utf8'), 'x: 1\n');
    writeOutput(outDir, new Map([...tree, ['a/x.yaml', 'x: 2\n']]), { path: lock, text: 'lock-2\n' }, { host: faulting });
    assert.equal(fs.readFileSync(path.join(outDir, 'a', 'x.yaml'), 'utf8'), 'x: 2\n');
  });

  test('GIVEN no fault injected WHEN synth writes through the real host THEN no environment variable can inject one (the old MIRRORC_FAULT path is gone)', () => {
    process.env.MIRRORC_FAULT = 'errno:ENOSPC:stage-file';
    try {
      const outDir = path.join(root, 'dist');
      writeOutput(outDir, new Map([['a/x.yaml', 'x: 1\n']]), { path: path.join(root, 'fleet.lock.json'), text: 'lock-1\n' });
      assert.equal(fs.readFileSync(path.join(outDir, 'a', 'x.yaml'), 'utf8'), 'x: 1\n');
    } finally {
      delete process.env.MIRRORC_FAULT;
    }
  });
});

describe('runSynth with an injected host', () => {
  let dir: string;
  beforeEach(() => {
    // A scratch copy of the example fleet's output, with a lock whose gateway address changed (one mirror file and the lock to write).
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mirrorc-host-'));
    fs.cpSync('dist', path.join(dir, 'dist'), { recursive: true });
    fs.cpSync('delivery', path.join(dir, 'delivery'), { recursive: true });
    fs.writeFileSync(path.join(dir, 'fleet.lock.json'), fs.readFileSync('clusters/fleet.lock.json', 'utf8').replace('198.51.100.7', '198.51.100.8'));
  });
  afterEach(() => {
    fs.rmSync(dir, { recursive: true, force: true });
  });
  const synth = (host: FsHost) => runSynth({ fleetFile: 'clusters/fleet.ts', lockFile: path.join(dir, 'fleet.lock.json'), outDir: path.join(dir, 'dist'), offline: true, log: () => {}, host });

  test('GIVEN a host that fails staging with ENOSPC WHEN synth writes a change THEN it exits 8 and dist/ and the lock are as before', async () => {
    const before = readTree(path.join(dir, 'dist'));
    const lock = fs.readFileSync(path.join(dir, 'fleet.lock.json'), 'utf8');
    const result = await synth(faultingHost('errno:ENOSPC:stage-file'));
    assert.equal(result.exitCode, ExitCode.WRITE_FAILED, result.error);
    assert.match(result.error ?? '', /the disk is full \(ENOSPC\); nothing was changed/);
    assert.deepEqual(readTree(path.join(dir, 'dist')), before);
    assert.equal(fs.readFileSync(path.join(dir, 'fleet.lock.json'), 'utf8'), lock);
  });

  test('GIVEN a host that records its calls WHEN synth writes a change THEN the run lock, the reads of dist/ and the lock, and every write went through it', async () => {
    const calls: string[] = [];
    const recording = Object.fromEntries(Object.entries(NODE_FS_HOST).map(([name, fn]) => [name, (...args: unknown[]) => {
      calls.push(`${name}${typeof args[0] === 'string' && !String(args[0]).startsWith('/') ? ` ${args[0]}` : ''}`);
      return (fn as (...a: unknown[]) => unknown)(...args);
    }])) as unknown as FsHost;
    const result = await synth(recording);
    assert.equal(result.exitCode, ExitCode.OK, result.error);
    for (const call of ['writeAtomically holder-info', 'readdirEntries', 'readFile', 'writeFile stage-file', 'rename journal-commit', 'rename apply-object', 'deleteQuietly']) {
      assert.ok(calls.includes(call), `${call} was not called through the host: ${[...new Set(calls)].join(', ')}`);
    }
    // (one file per mirror: the mirror's Endpoints is a document of its Service's file)
    const endpoints = parseAllDocuments(fs.readFileSync(path.join(dir, 'dist/west/from-east/shop/service-payments-east.yaml'), 'utf8'))
      .map((d) => d.toJS() as { kind: string; metadata: { name: string } })
      .filter((o) => o.kind === 'Endpoints' && o.metadata.name === 'payments-east');
    assert.equal(endpoints.length, 1, 'the mirror file holds one Endpoints payments-east');
    assert.match(JSON.stringify(endpoints[0]), /198\.51\.100\.8/);
  });
});
