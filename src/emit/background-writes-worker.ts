/**
 * The thread of {@link BackgroundWriter} (background-writes.ts): writes each batch of files it is
 * sent, in order, and counts it finished in the shared counters. After a failed write it reports the
 * error once (on the `failures` port) and skips every write until the main thread has read it.
 */
import { writeFileSync } from 'node:fs';
import { parentPort, workerData, type MessagePort } from 'node:worker_threads';
import type { WriteBatch, WriteFailure } from './background-writes.js';

const { shared, failures } = workerData as { shared: SharedArrayBuffer; failures: MessagePort };
const counters = new Int32Array(shared);
const DONE = 0;
const FAILED = 1;
const READY = 2;

parentPort!.on('message', (batch: WriteBatch) => {
  try {
    if (Atomics.load(counters, FAILED) !== 0) return;
    for (const [path, text] of batch) {
      try {
        writeFileSync(path, text);
      } catch (e) {
        const err = e as NodeJS.ErrnoException;
        const failure: WriteFailure = {
          message: String(err?.message ?? err),
          ...(typeof err?.code === 'string' ? { code: err.code } : {}),
          ...(typeof err?.errno === 'number' ? { errno: err.errno } : {}),
          ...(typeof err?.syscall === 'string' ? { syscall: err.syscall } : {}),
          ...(typeof err?.path === 'string' ? { path: err.path } : { path }),
        };
        // Reported before it is counted: the main thread reads it once every batch is counted.
        failures.postMessage(failure);
        Atomics.store(counters, FAILED, 1);
        return;
      }
    }
  } finally {
    Atomics.add(counters, DONE, 1);
    Atomics.notify(counters, DONE);
  }
});
Atomics.store(counters, READY, 1);
Atomics.notify(counters, READY);
