/**
 * Turns an exception thrown by the user's fleet module (while it is imported, or while its default
 * function runs) into one plain line naming the file, line and column where it happened, plus a
 * hint; never a stack trace. These are the user's mistakes, not mirrorc's bugs.
 */
import { realpathSync } from 'node:fs';
import { isAbsolute, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { typeCheckCommand } from '../diagnostics/type-check-command.js';

/** mirrorc's own code, its sources and their compiled copies: frames there are not where the user's mistake is. */
const MIRRORC_CODE = ['src', 'lib'].map((dir) => resolve(import.meta.dirname, '..', '..', dir) + sep);

/** `    at fn (/path/file.ts:12:5)` or `    at file:///path/file.ts:12:5`. */
const STACK_FRAME = /^\s*at (?:.*? \()?(.+?):(\d+):(\d+)\)?\s*$/;

/** One error of esbuild (tsx's compiler): `/path/file.ts:2:11: ERROR: Expected ";" but found "x"`. */
const TRANSFORM_ERROR = /^(.+?):(\d+):(\d+): ERROR: (.+)$/gm;

/** constructs' duplicate-id message. */
const DUPLICATE_ID = /^There is already a Construct with name '(.*)' in (\S+) \[(.*)\]$/;

/** While loading the module (top-level code, syntax, imports) or while its default function ran. */
export type FleetCodePhase = 'load' | 'define';

/** `path` as the user knows it: relative to the working directory when inside it. */
function displayPath(path: string): string {
  const rel = relative(process.cwd(), path);
  return rel !== '' && !rel.startsWith('..') && !isAbsolute(rel) ? rel : path;
}

function realPath(path: string): string {
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

function hintFor(error: Error, phase: FleetCodePhase, file: string): string {
  const code = (error as { code?: unknown }).code;
  if (code === 'ERR_MODULE_NOT_FOUND' || code === 'MODULE_NOT_FOUND') return 'check the import paths at the top of the fleet file';
  if (error.name === 'SyntaxError') return `fix the syntax there (${typeCheckCommand(file)} lists every error)`;
  if (error.name === 'ReferenceError') return 'a name is misspelled, or used before it is defined or imported';
  if (error.name === 'TypeError') return `a value has the wrong type; ${typeCheckCommand(file)} shows type errors (the fleet file runs without type checks)`;
  return phase === 'load' ? 'the fleet file threw this while it was loaded' : 'the fleet definition function threw this';
}

/** The message for an exception `thrown` by the fleet module `fleetFile`. */
export function fleetCodeErrorMessage(thrown: unknown, fleetFile: string, phase: FleetCodePhase): string {
  const file = displayPath(resolve(fleetFile));
  if (!(thrown instanceof Error)) {
    const shown = typeof thrown === 'string' ? JSON.stringify(thrown) : String(thrown);
    return `${file}: the fleet definition threw ${shown} (a ${thrown === null ? 'null' : typeof thrown}, not an Error, so no line is known); fix it, and throw Error objects`;
  }
  const transform = [...thrown.message.matchAll(TRANSFORM_ERROR)];
  if (transform.length > 0) {
    const lines = transform.map((t) => `${displayPath(realPath(t[1]!))}:${t[2]}:${t[3]}: SyntaxError: ${t[4]}`);
    return `${lines.join('\n')}\n  hint: fix the syntax there (${typeCheckCommand(file)} lists every error)`;
  }
  const where = userCodeLocation(thrown.stack ?? '') ?? file;
  const firstLine = thrown.message.split('\n')[0] ?? '';
  const duplicate = DUPLICATE_ID.exec(firstLine);
  if (duplicate) {
    return `${where}: two constructs in ${duplicate[3]} have the id "${duplicate[1]}"\n  hint: give each Cluster, Link and ExplicitExport an id of its own (the second argument of new Cluster(fleet, id))`;
  }
  return `${where}: ${thrown.name}: ${firstLine}\n  hint: ${hintFor(thrown, phase, file)}`;
}
