/**
 * The GitHub Actions job summary: when `$GITHUB_STEP_SUMMARY` names a file, each run appends a short
 * Markdown section to it (what changed per source cluster, which clusters are stale since when — a
 * target held back by the removal guard says `held back` and why —, the outcome), so a stale or failing fleet is visible on the run's page without reading logs.
 */
import { appendFileSync } from 'node:fs';
import type { RunReport } from './report.js';
import type { RunLog } from './run-log.js';
import { markdownCode, markdownText } from './markdown-text.js';
import { outputText } from '../util/print.js';
import { appendAll } from '../util/append-all.js';

/**
 * Markdown of one run for the job summary; built from the (already redacted) report only. Messages
 * (which carry a target's words) are code spans and names plain escaped text (markdown-text.ts), so
 * nothing a target returned renders as markup; every line is then made printable like a log line.
 */
export function jobSummaryMarkdown(report: RunReport): string {
  const cell = (s: string): string => markdownCode(s, 'cell');
  const outcome = report.exitCode === 0 ? 'ok' : `exit ${report.exitCode}`;
  const lines = [`### mirrorc ${report.command}${report.offline ? ' --offline' : ''}: ${outcome}`, ''];
  if (report.error !== null) appendAll(lines, errorQuote(report.error)).push('');
  const compiled = report.sources.filter((s) => s.compiled);
  if (compiled.length > 0) {
    lines.push(`| source | added | changed | removed | unchanged |`, '|---|---:|---:|---:|---:|');
    for (const s of compiled) lines.push(`| ${markdownText(s.cluster)} | ${s.added.length} | ${s.changed.length} | ${s.removed.length} | ${s.unchanged} |`);
    lines.push('');
  }
  const stale = [...report.targets.map((t) => ({ ...t, role: 'target' })), ...report.sources.map((s) => ({ ...s, role: 'source' }))]
    .filter((c) => c.stale);
  if (stale.length > 0) {
    lines.push('| stale cluster | role | stale since | this run |', '|---|---|---|---|');
    const thisRun = (c: (typeof stale)[number]): string =>
      c.error !== null ? cell(c.error) : 'heldBack' in c && c.heldBack !== undefined ? `held back: ${cell(c.heldBack)}` : c.observed ? 'ok' : 'not observed';
    for (const c of stale) lines.push(`| ${markdownText(c.cluster)} | ${c.role} | ${c.staleSince !== null ? markdownText(c.staleSince) : '-'} | ${thisRun(c)} |`);
    lines.push('');
  } else if (report.targets.length + report.sources.length > 0) {
    lines.push('No stale clusters.', '');
  }
  lines.push(`Lock ${report.lockChanged ? (report.command === 'synth' || report.command === 'observe' ? 'updated' : 'would change') : 'unchanged'}. mirrorc ${markdownText(report.mirrorcVersion)}.`, '');
  return outputText(`${lines.join('\n')}\n`);
}

/**
 * The run's error as a blockquote that keeps its shape: each line a code span of its own, a line
 * `- item` an item of a list (a more deeply indented line under it, such as `because: …`, an item
 * nested in it), any other line a paragraph. (One code span of the whole message flattened the
 * removal guard's list of sources into one run-on line.)
 */
function errorQuote(error: string): string[] {
  const out: string[] = [];
  let inItem = false;
  for (const raw of error.split('\n')) {
    const text = raw.trim();
    if (text === '') continue;
    const indent = raw.length - raw.trimStart().length;
    if (text.startsWith('- ')) {
      out.push(`> - ${markdownCode(text.slice(2), 'paragraph')}`);
      inItem = true;
    } else if (inItem && indent >= 4) {
      out.push(`>   - ${markdownCode(text, 'paragraph')}`);
    } else {
      if (out.length > 0) out.push('>');
      out.push(`> ${markdownCode(text, 'paragraph')}`);
      inItem = false;
    }
  }
  return out;
}

/** Appends the run's summary to `$GITHUB_STEP_SUMMARY` when set; a failure to write is a warning, never a failed run. */
export function appendJobSummary(report: RunReport, log: Pick<RunLog, 'always'>, env: NodeJS.ProcessEnv = process.env): void {
  const file = env.GITHUB_STEP_SUMMARY;
  if (!file) return;
  try {
    appendFileSync(file, jobSummaryMarkdown(report));
  } catch (e) {
    log.always(`warning: the job summary ${file} could not be written: ${(e as Error).message}`);
  }
}
