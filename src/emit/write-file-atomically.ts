/** Replaces one file atomically (write beside it, then rename): readers see the old or the new file, never a partial one. */
import { renameSync, rmSync, writeFileSync } from 'node:fs';

/** Writes `text` to `path` through `<path>.<pid>.tmp` and a rename; on failure the old file stays and the temp file is removed. */
export function writeFileAtomically(path: string, text: string): void {
  // The pid keeps two processes writing the same file from sharing one temp file.
  const tmp = `${path}.${process.pid}.tmp`;
  try {
    writeFileSync(tmp, text);
    renameSync(tmp, path);
  } catch (e) {
    rmSync(tmp, { force: true });
    throw e;
  }
}
