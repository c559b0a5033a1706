/** Replaces one file atomically (write beside it, then rename): readers see the old or the new file, never a partial one. */
import { renameSync, rmSync, writeFileSync } from 'node:fs';

/** Writes `text` to `path` through `<path>.tmp` and a rename; on failure the old file stays and the temp file is removed. */
export function writeFileAtomically(path: string, text: string): void {
  const tmp = `${path}.tmp`;
  writeFileSync(tmp, text);
  try {
    renameSync(tmp, path);
  } catch (e) {
    rmSync(tmp, { force: true });
    throw e;
  }
}
