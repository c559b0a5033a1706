/**
 * Staged files written on a worker thread (src/emit/background-writes.ts): every file handed over
 * is on disk with its text after a wait; a failed write is reported at the next wait with the
 * node:fs error's code and path, the writes after it are skipped, and the writer works again after
 * the report; the queue's bound makes the caller wait, not lose writes. And a failure reported at
 * the transaction's flush names the output path the staged file was for.
 */
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, sep } from 'node:path';
import { test } from 'node:test';
import { BackgroundWriter } from '../../src/emit/background-writes.js';
import { NODE_FS_HOST } from '../../src/emit/durable-fs.js';
import type { FsHost } from '../../src/emit/fs-host.js';
import { StagedTransaction } from '../../src/emit/write-transaction.js';
import { WriteFailedError } from '../../src/emit/write-failure.js';

function scratch(): string {
  return mkdtempSync(join(tmpdir(), 'mirrorc-background-writes-'));
}

test('every file handed to the thread is written, in full, by the next wait', () => {
  const dir = scratch();
  try {
    const writer = new BackgroundWriter({ syncWrites: 3 });
    const texts = new Map<string, string>();
    for (let i = 0; i < 1500; i++) {
      const path = join(dir, `f${i}.yaml`);
      // Texts of every size, some beyond one batch, with characters of more than one UTF-8 byte.
      const text = `${i}: ${'ä漢'.repeat(i % 7 === 0 ? 100_000 : i % 50)}\n`;
      texts.set(path, text);
      writer.write(path, text);
    }
    writer.drain();
    assert.equal(writer.handedOver, 1497, 'all but the first 3 go to the thread');
    assert.equal(readdirSync(dir).length, 1500);
    for (const [path, text] of texts) assert.equal(readFileSync(path, 'utf8'), text, path);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('the first files after each wait are written on the calling thread: a small run starts no thread', () => {
  const dir = scratch();
  try {
    const writer = new BackgroundWriter({ syncWrites: 10 });
    for (let i = 0; i < 10; i++) writer.write(join(dir, `a${i}`), 'x');
    assert.equal(writer.handedOver, 0);
    // Written already, before any wait.
    assert.equal(readdirSync(dir).length, 10);
    writer.drain();
    for (let i = 0; i < 10; i++) writer.write(join(dir, `b${i}`), 'y');
    assert.equal(writer.handedOver, 0, 'the count starts again after a wait');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('a failed write is reported at the next wait with its code and path; later writes are skipped; the writer works again afterwards', () => {
  const dir = scratch();
  try {
    const writer = new BackgroundWriter({ syncWrites: 0 });
    writer.write(join(dir, 'before.yaml'), 'ok');
    const missing = join(dir, 'no-such-folder', 'x.yaml');
    writer.write(missing, 'lost');
    writer.write(join(dir, 'after.yaml'), 'skipped');
    const failure = writer.settle();
    assert.ok(failure instanceof Error);
    assert.equal(failure.code, 'ENOENT');
    assert.equal(failure.path, missing);
    assert.equal(readFileSync(join(dir, 'before.yaml'), 'utf8'), 'ok');
    assert.equal(existsSync(join(dir, 'after.yaml')), false, 'a write after the failure is skipped (it would be discarded anyway)');
    // Reported once; the next batch is written.
    assert.equal(writer.settle(), undefined);
    writer.write(join(dir, 'again.yaml'), 'again');
    writer.drain();
    assert.equal(readFileSync(join(dir, 'again.yaml'), 'utf8'), 'again');
    // drain throws what settle returns.
    writer.write(missing, 'lost');
    assert.throws(() => writer.drain(), (e: NodeJS.ErrnoException) => e.code === 'ENOENT' && e.path === missing);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('a full queue makes the caller wait: nothing is dropped with a queue of one batch', () => {
  const dir = scratch();
  try {
    const writer = new BackgroundWriter({ syncWrites: 0, maxQueuedChars: 1 });
    for (let i = 0; i < 3000; i++) writer.write(join(dir, `q${i}`), `${i}`.repeat(300));
    writer.drain();
    assert.equal(readdirSync(dir).length, 3000);
    assert.equal(readFileSync(join(dir, 'q2999'), 'utf8'), '2999'.repeat(300));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('a staged file that failed in the background is named by the output path it was for, and nothing changes', () => {
  const root = scratch();
  try {
    const out = join(root, 'dist');
    mkdirSync(join(out, 'west', 'from-east', 'shop'), { recursive: true });
    // The real host, except that the flush reports what a background write reports: the staged file's path.
    const stagedPaths: string[] = [];
    const host: FsHost = {
      ...NODE_FS_HOST,
      writeFile: (step, path, text, flush) => {
        if (step === 'stage-file') stagedPaths.push(path);
        NODE_FS_HOST.writeFile(step, path, text, flush);
      },
      flush: () => {
        const inFolder = stagedPaths.find((p) => p.includes(`${sep}folders${sep}`))!;
        const e: NodeJS.ErrnoException = new Error(`ENOSPC: no space left on device, open '${inFolder}'`);
        e.code = 'ENOSPC';
        e.path = inFolder;
        throw e;
      },
    };
    const txn = new StagedTransaction(out, host);
    // A file in an existing unit folder (staged alone) and a new unit folder (staged whole).
    txn.stage({
      dir: out,
      before: new Map([['west/from-east/shop/a.yaml', 'old']]),
      after: new Map([
        ['west/from-east/shop/a.yaml', 'new'],
        ['west/shared/shop/b.yaml', 'b'],
      ]),
    });
    assert.equal(stagedPaths.length, 2);
    assert.throws(
      () => txn.commit([]),
      (e: unknown) => e instanceof WriteFailedError && e.message.includes(join('west', 'shared', 'shop', 'b.yaml')) && e.message.includes('nothing was changed'),
    );
    assert.equal(existsSync(join(out, 'west', 'shared')), false);
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});
