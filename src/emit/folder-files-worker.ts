/**
 * A worker thread of {@link folderFilesOnThreads}: walks the folders it is given (`workerData`, a
 * list of paths) with node:fs and posts back the {@link FolderFiles} record of each, in order
 * (undefined for a folder that has none). Nothing is written.
 */
import { lstatSync, readdirSync } from 'node:fs';
import { parentPort, workerData } from 'node:worker_threads';
import { folderFiles, type FolderFiles, type FolderReads } from './folder-files.js';

const reads: FolderReads = {
  readdirEntries: (path) => readdirSync(path, { withFileTypes: true }),
  lstat: (path) => lstatSync(path, { throwIfNoEntry: false }),
};

const records: (FolderFiles | undefined)[] = (workerData as string[]).map((dir) => folderFiles(dir, reads));
parentPort!.postMessage(records);
