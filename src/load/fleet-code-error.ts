/**
 * Turns an exception thrown by the user's fleet module (while it is imported, or while its default
 * function runs) into one plain line naming the file, line and column where it happened, plus a
 * hint; never a stack trace. These are the user's mistakes, not mirrorc's bugs.
 */
import { resolve } from 'node:path';
import { typeCheckCommand } from '../diagnostics/type-check-command.js';
import { displayPath, realPath, userCodeLocation } from '../util/user-code-location.js';

export { userCodeLocation } from '../util/user-code-location.js';

/** One error of esbuild (tsx's compiler): `/path/file.ts:2:11: ERROR: Expected ";" but found "x"`. */
const TRANSFORM_ERROR = /^(.+?):(\d+):(\d+): ERROR: (.+)$/gm;

/** constructs' duplicate-id message. */
const DUPLICATE_ID = /^There is already a Construct with name '(.*)' in (\S+) \[(.*)\]$/;

/** While loading the module (top-level code, syntax, imports) or while its default function ran. */
export type FleetCodePhase = 'load' | 'define';

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
