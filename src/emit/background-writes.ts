/**
 * Staged files written on a worker thread while the main thread renders the next ones: the real
 * host's `writeFile` of the `stage-file` step (src/emit/durable-fs.ts). A cold synth of a large fleet
 * creates hundreds of thousands of files (545,801 at 20×500), and creating a file is mostly the
 * kernel's work (ext4 allocates an inode, a folder entry, the data blocks): on the main thread it was
 * more than half of the run, beside rendering that needs the same thread. On a thread of its own it
 * runs on the other core.
 *
 * Nothing about the write path's guarantees changes: a staged file is invisible until the
 * transaction commits, and the commit's first step (`stage-sync`, the host's `flush`) waits for every
 * background write and throws the first one that failed, exactly as the synchronous write would have
 * thrown it earlier (its error code and path: the transaction names the output path). Every other
 * mutating call of the host waits for the background writes first as well, so nothing renames,
 * deletes or removes a folder while a write into it is under way.
 *
 * The first {@link SYNC_WRITES} files after each wait are written on the calling thread: a small run
 * (most tests, a one-change synth) never starts the thread. The writes queued at any time are bounded
 * ({@link MAX_QUEUED_CHARS}): the renderer waits rather than holding the output in memory.
 */
import { writeFileSync } from 'node:fs';
import { MessageChannel, receiveMessageOnPort, Worker, type MessagePort } from 'node:worker_threads';
import { workerEntry } from '../util/worker-entry.js';

/** Files written on the calling thread after each wait before the worker thread takes over. */
export const SYNC_WRITES = 2_000;
/** A batch goes to the thread when it holds this many characters of text... */
const BATCH_CHARS = 512 * 1024;
/** ...or this many files. */
const BATCH_FILES = 512;
/** The most characters queued for the thread; the caller waits for it beyond that. */
export const MAX_QUEUED_CHARS = 16 * 1024 * 1024;

/** One batch sent to the thread: `[path, text]` pairs, written in order. */
export type WriteBatch = readonly (readonly [string, string])[];

/** A failed write as the thread reports it: the properties of the node:fs error. */
export interface WriteFailure {
  readonly message: string;
  readonly code?: string;
  readonly errno?: number;
  readonly syscall?: string;
  readonly path?: string;
}

/** The shared counters: [0] batches the thread has finished (written or skipped), [1] 1 once a write failed, [2] 1 once the thread runs. */
const DONE = 0;
const FAILED = 1;
const READY = 2;
/**
 * How long the first use waits for the thread to run (its module loaded) before writing on the
 * calling thread instead. Only a thread that cannot start at all waits this long; a thread that runs
 * is waited for without limit, as a synchronous write would be.
 */
const START_TIMEOUT_MS = 60_000;

/** The node:fs error a failure stands for (code, errno, syscall and path as the failed call reported them). */
function failureError(f: WriteFailure): NodeJS.ErrnoException {
  const e: NodeJS.ErrnoException = new Error(f.message);
  if (f.code !== undefined) e.code = f.code;
  if (f.errno !== undefined) e.errno = f.errno;
  if (f.syscall !== undefined) e.syscall = f.syscall;
  if (f.path !== undefined) e.path = f.path;
  return e;
}

/** Options of a {@link BackgroundWriter}. */
export interface BackgroundWriterProps {
  /**
   * Files written on the calling thread after each wait before the thread takes over.
   * @default SYNC_WRITES
   */
  readonly syncWrites?: number;
  /**
   * The most characters queued for the thread; the caller waits beyond that.
   * @default MAX_QUEUED_CHARS
   */
  readonly maxQueuedChars?: number;
}

/** Writes files on one worker thread, in order; see the module comment. */
export class BackgroundWriter {
  /** Files handed to the thread so far (not the ones written on the calling thread). */
  handedOver = 0;
  private readonly syncWrites: number;
  private readonly maxQueuedChars: number;
  private worker: Worker | undefined;
  private failures: MessagePort | undefined;
  private counters: Int32Array | undefined;
  /** The thread could not be started: every write is synchronous. */
  private unavailable = false;
  private batch: [string, string][] = [];
  private batchChars = 0;
  /** Batches sent, and the characters of each batch not yet known finished. */
  private sent = 0;
  private finished = 0;
  private readonly queued: number[] = [];
  private queuedChars = 0;
  /** Files written since the last wait (the first {@link SYNC_WRITES} on the calling thread). */
  private sinceWait = 0;

  constructor(props: BackgroundWriterProps = {}) {
    this.syncWrites = props.syncWrites ?? SYNC_WRITES;
    this.maxQueuedChars = props.maxQueuedChars ?? MAX_QUEUED_CHARS;
  }

  /** Writes `text` to `path` (created or truncated), on the thread once enough files were written since the last wait. */
  write(path: string, text: string): void {
    if (this.sinceWait++ < this.syncWrites || this.unavailable) {
      writeFileSync(path, text);
      return;
    }
    this.batch.push([path, text]);
    this.batchChars += text.length;
    if (this.batchChars >= BATCH_CHARS || this.batch.length >= BATCH_FILES) this.send();
  }

  /**
   * Waits until every write handed over is done; returns the first that failed since the last wait
   * (the writes after it were skipped), or undefined.
   */
  settle(): NodeJS.ErrnoException | undefined {
    this.sinceWait = 0;
    if (this.batch.length > 0) this.send();
    if (this.sent === 0) return undefined;
    this.waitUntil(this.sent);
    const counters = this.counters!;
    if (Atomics.load(counters, FAILED) === 0) return undefined;
    const failure = receiveMessageOnPort(this.failures!)?.message as WriteFailure | undefined;
    // Drain any other report and start afresh: the next transaction's writes are written again.
    while (receiveMessageOnPort(this.failures!) !== undefined);
    Atomics.store(counters, FAILED, 0);
    return failureError(failure ?? { message: 'a staged file could not be written (the writing thread gave no reason)', code: 'EIO' });
  }

  /** {@link settle}, throwing the failure. */
  drain(): void {
    const failure = this.settle();
    if (failure) throw failure;
  }

  private send(): void {
    const batch = this.batch;
    const chars = this.batchChars;
    this.batch = [];
    this.batchChars = 0;
    const worker = this.thread();
    if (!worker) {
      for (const [path, text] of batch) writeFileSync(path, text);
      return;
    }
    worker.postMessage(batch);
    this.handedOver += batch.length;
    this.sent++;
    this.queued.push(chars);
    this.queuedChars += chars;
    while (this.queuedChars > this.maxQueuedChars) this.waitUntil(this.finished + 1);
  }

  /** Blocks until the thread has finished `count` batches in all. */
  private waitUntil(count: number): void {
    const counters = this.counters!;
    for (let done = Atomics.load(counters, DONE); done < count; done = Atomics.load(counters, DONE)) Atomics.wait(counters, DONE, done);
    const done = Atomics.load(counters, DONE);
    while (this.finished < done) {
      this.queuedChars -= this.queued.shift() ?? 0;
      this.finished++;
    }
  }

  /** The thread, started on first use; undefined when it cannot be (the writes are then synchronous). */
  private thread(): Worker | undefined {
    if (this.worker || this.unavailable) return this.worker;
    try {
      const shared = new SharedArrayBuffer(3 * Int32Array.BYTES_PER_ELEMENT);
      const { port1, port2 } = new MessageChannel();
      const worker = new Worker(workerEntry('background-writes-worker', import.meta.url), { workerData: { shared, failures: port2 }, transferList: [port2] });
      // The thread never keeps the process alive: whatever it has not written yet belongs to a transaction that was not committed.
      worker.unref();
      port1.unref();
      // A thread that dies reports nothing more: the waits must not hang. Its death counts as a failure of everything sent.
      worker.on('error', (e) => this.threadDied(e));
      worker.on('exit', (code) => this.threadDied(new Error(`the file-writing thread exited with code ${code}`)));
      const counters = new Int32Array(shared);
      // Used only once it runs: a thread whose module cannot load would never count a batch.
      if (Atomics.wait(counters, READY, 0, START_TIMEOUT_MS) === 'timed-out' && Atomics.load(counters, READY) === 0) {
        void worker.terminate();
        port1.close();
        this.unavailable = true;
        return undefined;
      }
      this.worker = worker;
      this.failures = port1;
      this.counters = counters;
    } catch {
      this.unavailable = true;
    }
    return this.worker;
  }

  private threadDied(e: Error): void {
    // Only reached between waits (events are delivered to an idle main thread); the next wait reports it.
    if (!this.worker) return;
    this.worker = undefined;
    this.unavailable = true;
    const counters = this.counters!;
    Atomics.store(counters, FAILED, 1);
    Atomics.store(counters, DONE, this.sent);
    this.failures?.close();
    const { port1, port2 } = new MessageChannel();
    port2.postMessage({ message: e.message, code: 'EIO' } satisfies WriteFailure);
    this.failures = port1;
  }
}
