/**
 * The human lines of a run's findings: one line per finding, except that a code found three times
 * or more becomes one line naming the count and what it concerns ("9 clusters (ap, east, ...):
 * kubeconfig ~/.kube/config does not exist; ..."), with every single message in `details` (shown
 * with --verbose; the JSON report always carries each).
 */
import type { Diagnostic } from './diagnostic.js';
import { allDiagnostics } from './diagnostic-codes.js';
import { compareStrings } from '../util/order.js';

/** Findings of one code at least this often are grouped. */
export const GROUP_FROM = 3;

/** At most this many subjects are named in a grouped line. */
const MAX_NAMED = 10;

/** The lines to print: `lines` always, `details` at verbose level. */
export interface GroupedLines {
  readonly lines: readonly string[];
  readonly details: readonly string[];
}

/**
 * Lines for `diagnostics`, in the order each code first appears.
 * @param prefix put before each line, e.g. `warning: ` or `  - `
 */
export function groupedLines(diagnostics: readonly Diagnostic[], prefix: string): GroupedLines {
  const byCode = new Map<string, Diagnostic[]>();
  for (const d of diagnostics) byCode.set(d.code, [...(byCode.get(d.code) ?? []), d]);
  const lines: string[] = [];
  const details: string[] = [];
  for (const [code, found] of byCode) {
    if (found.length < GROUP_FROM) {
      for (const d of found) lines.push(`${prefix}${d.message} [${code}]`);
      continue;
    }
    const subjects = [...new Set(found.map(subjectLabel))].sort(compareStrings);
    const named = subjects.slice(0, MAX_NAMED).join(', ') + (subjects.length > MAX_NAMED ? `, and ${subjects.length - MAX_NAMED} more` : '');
    const noun = found.every((d) => d.service === undefined) ? `cluster${subjects.length === 1 ? '' : 's'}` : `finding${found.length === 1 ? '' : 's'}`;
    const count = noun.startsWith('cluster') ? subjects.length : found.length;
    const same = new Set(found.map(withoutSubject));
    // The same words for every one of them: say them once. Otherwise the code's title and hint.
    const what = same.size === 1 ? [...same][0]! : `${titleOf(code)}; ${found[0]!.hint} (--verbose or the JSON report lists each)`;
    lines.push(`${prefix}${count} ${noun} (${named}): ${what} [${code}]`);
    for (const d of found) details.push(`    ${d.message}`);
  }
  return { lines, details };
}

/** What a finding concerns, shortly: `london` or `london: paris/shop/api`. */
function subjectLabel(d: Diagnostic): string {
  if (d.service === undefined) return d.cluster ?? d.target ?? '(fleet)';
  return `${d.cluster ?? '?'}: ${d.target !== undefined ? `${d.target}/` : ''}${d.namespace !== undefined ? `${d.namespace}/` : ''}${d.service}`;
}

/** The message without its leading `cluster "x": `, `target cluster "x": ` or `x: ` naming its cluster. */
function withoutSubject(d: Diagnostic): string {
  if (d.cluster === undefined) return d.message;
  const name = d.cluster.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  return d.message.replace(new RegExp(`^(?:(?:target|source) )?(?:cluster "${name}"|${name}): `), '');
}

function titleOf(code: string): string {
  return allDiagnostics().find((d) => d.code === code)?.title ?? code;
}
