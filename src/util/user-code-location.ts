/**
 * Where in the user's own code something happened: the innermost stack frame in the fleet file or a
 * helper it imports (not a dependency, not Node itself, not mirrorc), as `file:line:column`.
 */
import { realpathSync } from 'node:fs';
import { isAbsolute, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

/** mirrorc's own code, its sources and their compiled copies: frames there are not where the user's mistake is. */
const MIRRORC_CODE = ['src', 'lib'].map((dir) => resolve(import.meta.dirname, '..', '..', dir) + sep);

/** `    at fn (/path/file.ts:12:5)` or `    at file:///path/file.ts:12:5`. */
const STACK_FRAME = /^\s*at (?:.*? \()?(.+?):(\d+):(\d+)\)?\s*$/;

/** `path` as the user knows it: relative to the working directory when inside it. */
export function displayPath(path: string): string {
  const rel = relative(process.cwd(), path);
  return rel !== '' && !rel.startsWith('..') && !isAbsolute(rel) ? rel : path;
}

/** `path` with symbolic links resolved, or as given when it cannot be. */
export function realPath(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return resolve(path);
  }
}

function framePath(location: string): string | undefined {
  if (location.startsWith('file://')) {
    try {
      return fileURLToPath(location);
    } catch {
      return undefined;
    }
  }
  return isAbsolute(location) ? location : undefined;
}

/**
 * `file:line:column` of the innermost stack frame in the user's own code (the fleet file or a helper
 * it imports; not a dependency, not Node itself, not mirrorc): where the mistake is. Undefined when
 * the stack has none.
 */
export function userCodeLocation(stack: string): string | undefined {
  for (const line of stack.split('\n')) {
    const m = STACK_FRAME.exec(line);
    const path = m ? framePath(m[1]!) : undefined;
    if (!m || !path) continue;
    const real = realPath(path);
    if (MIRRORC_CODE.some((dir) => real.startsWith(dir)) || real.split(sep).includes('node_modules')) continue;
    return `${displayPath(real)}:${m[2]}:${m[3]}`;
  }
  return undefined;
}
