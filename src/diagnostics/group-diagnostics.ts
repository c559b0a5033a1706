/**
 * The human lines of a run's findings: one line per finding, except that findings of one code that
 * say the same words about different clusters (three or more) become one line naming the count and
 * which ("9 clusters (ap, east, ...): kubeconfig ~/.kube/config does not exist; ..."), and that a
 * code found ten times or more with different words becomes one line of its title and hint. Every
 * single message of a group is in `details` (shown with --verbose; the JSON report carries each).
 */
import type { Diagnostic } from './diagnostic.js';
import { allDiagnostics } from './diagnostic-codes.js';
import { compareStrings } from '../util/order.js';

/** Findings of one code with the same words (but for their cluster) are grouped from this many. */
export const GROUP_FROM = 3;

/** Findings of one code with different words are grouped from this many (fewer: each is worth its line). */
export const GROUP_DIFFERENT_FROM = 10;

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
  for (const d of diagnostics) {
    const list = byCode.get(d.code);
    if (list) list.push(d);
    else byCode.set(d.code, [d]);
  }
  const lines: string[] = [];
  const details: string[] = [];
  for (const [code, found] of byCode) {
    const same = new Set(found.map(withoutSubject));
    if (found.length < (same.size === 1 ? GROUP_FROM : GROUP_DIFFERENT_FROM)) {
      for (const d of found) lines.push(`${prefix}${d.message} [${code}]`);
      continue;
    }
    const subjects = [...new Set(found.map(subjectLabel))].sort(compareStrings);
    const named = subjects.slice(0, MAX_NAMED).join(', ') + (subjects.length > MAX_NAMED ? `, and ${subjects.length - MAX_NAMED} more` : '');
    const noun = found.every((d) => d.service === undefined) ? `cluster${subjects.length === 1 ? '' : 's'}` : `finding${found.length === 1 ? '' : 's'}`;
    const count = noun.startsWith('cluster') ? subjects.length : found.length;
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
  let subject = subjectPatterns.get(d.cluster);
  if (!subject) {
    const name = d.cluster.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
    subjectPatterns.set(d.cluster, (subject = new RegExp(`^(?:(?:target|source) )?(?:cluster "${name}"|${name}): `)));
  }
  return d.message.replace(subject, '');
}

/** The pattern of each cluster's subject prefix, made once (a large fleet reports thousands of findings). */
const subjectPatterns = new Map<string, RegExp>();

function titleOf(code: string): string {
  return allDiagnostics().find((d) => d.code === code)?.title ?? code;
}
