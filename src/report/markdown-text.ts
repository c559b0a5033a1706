/**
 * Text put into Markdown (the GitHub job summary) so that nothing of it renders as markup: no
 * image, link, autolink, HTML tag, mention, heading or table cell of a target's making.
 */
import { targetText } from '../util/printable-text.js';

/** What a value is put into: a table cell splits at an unescaped `|`, a paragraph does not. */
export type MarkdownPlace = 'cell' | 'paragraph';

/** The longest run of backticks in `text` (0 when none). */
function longestBacktickRun(text: string): number {
  let longest = 0;
  for (const run of text.match(/`+/g) ?? []) longest = Math.max(longest, run.length);
  return longest;
}

/**
 * `value` as a Markdown code span, shown exactly (once made one printable line): inside a code span
 * CommonMark and GitHub render no emphasis, link, image, autolink, HTML, mention or emoji. The fence
 * is one backtick longer than any run in the value, so the value cannot close it; a space pads each
 * side (CommonMark strips one from each), so a value starting or ending with a backtick stays in.
 * In a table cell each `|` is written `\|`: GFM splits cells before it parses code spans, and
 * absorbs a backslash-pipe into the cell whatever precedes it (the span shows `|` again).
 */
export function markdownCode(value: string, place: MarkdownPlace): string {
  const line = targetText(value.replace(/\s*\n\s*/g, ' '));
  const fence = '`'.repeat(longestBacktickRun(line) + 1);
  return `${fence} ${place === 'cell' ? line.replace(/\|/g, '\\|') : line} ${fence}`;
}

/**
 * A short value of mirrorc's own vocabulary (a cluster name, a time) as plain Markdown text: every
 * character that could begin markup backslash-escaped (CommonMark renders an escaped ASCII
 * punctuation character as itself), `|` included. Cluster names are DNS labels and times are
 * ISO 8601, so for them this changes nothing; it is here for a value that is not what it should be.
 */
export function markdownText(value: string): string {
  return targetText(value).replace(/[\\`*_{}[\]()<>!|#~&$@]/g, '\\$&');
}
