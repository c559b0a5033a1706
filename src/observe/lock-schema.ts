/**
 * The lock file's schema (src/snapshot/snapshot-schema.ts, re-exported here) and its problems as
 * plain lines with their JSON paths: what a refused lock or observation is refused with.
 */
import type { z } from 'zod';
import { quote } from '../util/k8s-names.js';

export * from '../snapshot/snapshot-schema.js';

/** At most this many problems are listed; the rest are counted. */
export const MAX_LISTED_PROBLEMS = 20;

/** `$.targets.paris.services[3].namespace`: where in the lock a problem is. */
export function jsonPath(path: readonly PropertyKey[]): string {
  let out = '$';
  for (const part of path) {
    if (typeof part === 'number') out += `[${part}]`;
    else if (typeof part === 'string' && /^[A-Za-z_][A-Za-z0-9_-]*$/.test(part)) out += `.${part}`;
    else out += `[${JSON.stringify(String(part))}]`;
  }
  return out;
}

/** One issue as a plain line: its JSON path and what is wrong. */
function issueLine(issue: z.core.$ZodIssue, prefix: readonly PropertyKey[]): string {
  const where = jsonPath([...prefix, ...issue.path]);
  switch (issue.code) {
    case 'invalid_type':
      return `${where}: ${issue.input === undefined ? 'is missing' : `${quote(issue.input)} is not ${article(issue.expected)}`}`;
    case 'unrecognized_keys':
      return `${where}: unknown field${issue.keys.length === 1 ? '' : 's'} ${issue.keys.map((k) => quote(k)).join(', ')} (this version of mirrorc never writes ${issue.keys.length === 1 ? 'it' : 'them'}; remove ${issue.keys.length === 1 ? 'it' : 'them'})`;
    case 'invalid_value':
      return `${where}: ${quote(issue.input)} is not ${issue.values.map((v) => quote(v)).join(' or ')}`;
    default:
      return `${where}: ${issue.message}`;
  }
}

function article(expected: string): string {
  return /^[aeiou]/.test(expected) ? `an ${expected}` : `a ${expected}`;
}

/** Every problem of `value` against `schema`, one line each with its JSON path (below `prefix`), at most {@link MAX_LISTED_PROBLEMS} plus a count. */
export function schemaProblems(schema: z.ZodType, value: unknown, prefix: readonly PropertyKey[] = []): string[] {
  const result = schema.safeParse(value, { reportInput: true });
  if (result.success) return [];
  const lines = result.error.issues.map((issue) => issueLine(issue, prefix));
  if (lines.length <= MAX_LISTED_PROBLEMS) return lines;
  return [...lines.slice(0, MAX_LISTED_PROBLEMS), `... and ${lines.length - MAX_LISTED_PROBLEMS} more`];
}
