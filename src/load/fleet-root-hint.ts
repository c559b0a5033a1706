/**
 * A fleet file that does not exist where it was looked for, relative to the working directory: run
 * from a subdirectory of the fleet repository, the same relative path exists in a folder above it.
 * The hint names that folder (the repository root), so the user need not guess `--fleet ../../x`.
 */
import { existsSync } from 'node:fs';
import { dirname, isAbsolute, join, relative, resolve } from 'node:path';

/** The hint for `file` (relative, missing in `cwd`), or '' when no folder above `cwd` holds it. */
export function fleetRootHint(file: string, cwd: string): string {
  if (isAbsolute(file)) return '';
  for (let dir = dirname(resolve(cwd)); ; dir = dirname(dir)) {
    if (existsSync(join(dir, file))) {
      return `; ${join(dir, file)} exists: ${dir} seems to be the fleet repository's root, run mirrorc there (cd ${relative(cwd, dir)})`;
    }
    if (dirname(dir) === dir) return '';
  }
}
