/**
 * {@link FolderFiles} records of many folders, walked on worker threads: the real host's
 * `folderFiles` (src/emit/durable-fs.ts). The walk of a large output is mostly system calls (a
 * listing per folder, an lstat per file); on threads of their own they run beside whatever the main
 * thread does meanwhile (the load stage imports the fleet module and parses the lock). A thread that
 * cannot be started or fails has its folders walked on the calling thread instead: the records are
 * the same either way.
 */
import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';
import { workerEntry } from '../util/worker-entry.js';
import { folderFiles, type FolderFiles, type FolderReads } from './folder-files.js';

/** At most this many walking threads: the walk is bound by the file system, which two threads already keep busy. */
export const MAX_WALK_THREADS = 2;

/**
 * The record of each folder of `dirs`, in order (undefined: none, see {@link folderFiles}), walked
 * on up to `threads` worker threads; `fallback`: the reads of a walk on this thread.
 */
export async function folderFilesOnThreads(dirs: readonly string[], fallback: FolderReads, threads = Math.min(MAX_WALK_THREADS, availableParallelism())): Promise<(FolderFiles | undefined)[]> {
  const count = Math.max(1, Math.min(threads, dirs.length));
  if (dirs.length === 0) return [];
  // Interleaved, so that each thread gets folders of every size.
  const chunks = Array.from({ length: count }, (_, t) => dirs.filter((_, i) => i % count === t));
  const walked = await Promise.all(chunks.map((chunk) => walkOnThread(chunk).catch(() => chunk.map((dir) => folderFiles(dir, fallback)))));
  return dirs.map((_, i) => walked[i % count]![Math.floor(i / count)]);
}

/** The records of `dirs`, walked by one worker thread; rejects when the thread fails. */
function walkOnThread(dirs: readonly string[]): Promise<(FolderFiles | undefined)[]> {
  return new Promise((resolve, reject) => {
    let result: (FolderFiles | undefined)[] | undefined;
    const worker = new Worker(workerEntry('folder-files-worker', import.meta.url), { workerData: dirs });
    worker.once('message', (records: (FolderFiles | undefined)[]) => {
      result = records;
    });
    worker.once('error', reject);
    worker.once('exit', (code) => {
      if (result !== undefined && result.length === dirs.length) resolve(result);
      else reject(new Error(`folder walk thread exited with code ${code} before it answered`));
    });
  });
}
