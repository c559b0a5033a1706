/**
 * `mirrorc <command> --help`: each command's own help, cut from the general {@link USAGE} (its
 * description, the options that apply to it, the exit codes), so the two never disagree.
 */
import { USAGE } from './options.js';

/** Commands with a help text of their own. */
export const HELP_COMMANDS = ['synth', 'plan', 'check', 'observe', 'init', 'explain', 'status'] as const;

/** Options of the general usage that a command does not take (init takes none but --help). */
const NOT_FOR: Readonly<Record<string, readonly string[]>> = {
  synth: ['--json', '--output'],
  plan: ['--wait', '--json', '--output'],
  check: ['--wait', '--json', '--output'],
  observe: ['--json', '--output'],
};

/** The only options of a command that takes few (explain compiles offline and writes nothing). */
export const ONLY_FOR: Readonly<Record<string, readonly string[]>> = {
  explain: ['--fleet', '--lock', '--out', '--json', '--help', '-h'],
  status: ['--fleet', '--lock', '--out', '--kubeconfig', '--timeout', '--output', '--help', '-h'],
};

/** The exit codes of a command that has only a few of them. */
const EXIT_CODES: Readonly<Record<string, string>> = {
  explain: 'exit codes: 0 explained, 1 unexpected failure, 2 invalid input (a fleet or lock error, or a service the lock and <out>/ do not know)',
  status: 'exit codes: 0 no problem, 1 unexpected failure, 2 invalid input (a fleet or lock error); else the first class found of\n' +
    '            10 a mirror missing, unexpected or differing live, 11 a mirror with no ready endpoint,\n' +
    '            12 Flux behind the lock\'s commit or not Ready, 13 a cluster stale in the lock,\n' +
    '            14 a cluster or its GitOps objects not readable with the reader identity, 15 a gateway failing its probe from here',
};

/** The usage line of a command whose arguments are not just options. */
const USAGE_LINE: Readonly<Record<string, string>> = {
  explain: 'usage: mirrorc explain <cluster>/<namespace>/<service> [options]',
};

/** The lines of USAGE from the one starting with `start` (included or not) up to the next blank line. */
function section(start: string, included: boolean): string[] {
  const lines = USAGE.split('\n');
  const from = lines.findIndex((l) => l.startsWith(start));
  if (from < 0) return [];
  const to = lines.findIndex((l, i) => i > from && l.trim() === '');
  return lines.slice(included ? from : from + 1, to < 0 ? undefined : to);
}

/** Entries of a section: a line indented by two spaces, with the more deeply indented lines that continue it. */
function entries(lines: readonly string[]): string[][] {
  const out: string[][] = [];
  for (const line of lines) {
    if (/^ {2}\S/.test(line) || out.length === 0) out.push([line]);
    else out[out.length - 1]!.push(line);
  }
  return out;
}

/** The option names of one option entry (`-q, --quiet` → ['-q', '--quiet']). */
function optionNames(entry: readonly string[]): string[] {
  return (entry[0]!.trim().split(/\s{2,}/)[0] ?? '').split(/,\s*/).map((n) => n.split(' ')[0]!);
}

/** The help text of `command` (one of {@link HELP_COMMANDS}). */
export function commandHelp(command: (typeof HELP_COMMANDS)[number]): string {
  const description = entries(section('  synth ', true)).find((e) => e[0]!.startsWith(`  ${command} `));
  const about = (description ?? [`  ${command}`]).map((l, i) => (i === 0 ? l.replace(new RegExp(`^  ${command}\\s+`), '  ') : `  ${l.trim()}`)).join('\n');
  if (command === 'init') {
    return `usage: mirrorc init [dir]\n\n${about}\n\noptions:\n  -h, --help           show this help`;
  }
  const skip = NOT_FOR[command] ?? [];
  const only = ONLY_FOR[command];
  const options = entries(section('options:', false))
    .filter((e) => !optionNames(e).some((n) => skip.includes(n)))
    .filter((e) => only === undefined || optionNames(e).some((n) => only.includes(n)))
    .map((e) => (optionNames(e).includes('--help') ? ['  -h, --help           show this help'] : e).join('\n'));
  const exitCodes = EXIT_CODES[command] ?? USAGE.slice(USAGE.indexOf('exit codes:'));
  return `${USAGE_LINE[command] ?? `usage: mirrorc ${command} [options]`}\n\n${about}\n\noptions:\n${options.join('\n')}\n\n${exitCodes}`;
}
