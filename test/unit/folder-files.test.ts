/**
 * The integrity check's walk (src/emit/folder-files.ts): the record of a folder's files (count,
 * bytes, digest of sorted `<path>\0<size>\n` lines), the same on worker threads as on the calling
 * thread, and none for a folder holding a link or missing.
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { NODE_FS_HOST } from '../../src/emit/durable-fs.js';
import { folderFiles, type FolderReads } from '../../src/emit/folder-files.js';
import { folderFilesOnThreads } from '../../src/emit/folder-files-threads.js';

/** Reads that fail: a walk that falls back to them finds no folder. */
const NO_READS: FolderReads = {
  readdirEntries: () => {
    throw new Error('walked on the calling thread');
  },
  lstat: () => undefined,
};

function fixture(): { root: string; plain: string; nested: string; linked: string; missing: string } {
  const root = mkdtempSync(join(tmpdir(), 'mirrorc-folder-files-'));
  const plain = join(root, 'plain');
  mkdirSync(plain);
  writeFileSync(join(plain, 'b.yaml'), 'hello');
  writeFileSync(join(plain, 'a.yaml'), 'abc');
  const nested = join(root, 'nested');
  mkdirSync(join(nested, 'ns', 'deep'), { recursive: true });
  writeFileSync(join(nested, 'kustomization.yaml'), '');
  writeFileSync(join(nested, 'ns', 'deep', 'x.yaml'), 'xyzxyz');
  writeFileSync(join(nested, 'ns-file.yaml'), '1234567');
  const linked = join(root, 'linked');
  mkdirSync(linked);
  writeFileSync(join(linked, 'a.yaml'), 'abc');
  symlinkSync(join(plain, 'a.yaml'), join(linked, 'b.yaml'));
  return { root, plain, nested, linked, missing: join(root, 'missing') };
}

const sha256 = (text: string): string => createHash('sha256').update(text).digest('hex');

test('GIVEN folders of files, a link and a missing folder WHEN walked on worker threads THEN each folder has the record of its sorted names and sizes, in order, and the others none', async () => {
  const f = fixture();
  try {
    // More folders than threads, so that the answers of several threads are put back in order.
    const dirs = [f.plain, f.linked, f.nested, f.missing, f.plain];
    const records = await folderFilesOnThreads(dirs, NO_READS, 2);
    const plain = { count: 2, bytes: 8, digest: sha256('a.yaml\u00003\nb.yaml\u00005\n') };
    const nested = { count: 3, bytes: 13, digest: sha256('kustomization.yaml\u00000\nns-file.yaml\u00007\nns/deep/x.yaml\u00006\n') };
    assert.deepEqual(records, [plain, undefined, nested, undefined, plain]);
  } finally {
    rmSync(f.root, { recursive: true, force: true });
  }
});

test('GIVEN the same folders WHEN walked on the calling thread THEN the records are those of the threads', async () => {
  const f = fixture();
  try {
    const dirs = [f.plain, f.linked, f.nested, f.missing];
    assert.deepEqual(dirs.map((d) => folderFiles(d, NODE_FS_HOST)), await folderFilesOnThreads(dirs, NO_READS, 1));
    assert.deepEqual(await NODE_FS_HOST.folderFiles([]), []);
  } finally {
    rmSync(f.root, { recursive: true, force: true });
  }
});
