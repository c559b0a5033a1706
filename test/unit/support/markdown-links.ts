/** Links and heading anchors of a Markdown text, as GitHub renders them (for test/unit/docs-links.test.ts). */

/** A link of the text: its target as written and its 1-based line. */
export interface MarkdownLink {
  readonly target: string;
  readonly line: number;
}

/** The lines outside fenced code blocks, with inline code spans blanked; code is not rendered as links or headings. */
function proseLines(text: string): { line: number; text: string; raw: string }[] {
  const out: { line: number; text: string; raw: string }[] = [];
  let fence: string | undefined;
  text.split('\n').forEach((line, i) => {
    const open = /^\s*(```+|~~~+)/.exec(line)?.[1];
    if (fence !== undefined) {
      if (open !== undefined && open[0] === fence[0] && open.length >= fence.length) fence = undefined;
      return;
    }
    if (open !== undefined) {
      fence = open;
      return;
    }
    out.push({ line: i + 1, text: line.replace(/(`+)[^`]*?\1/g, ''), raw: line });
  });
  return out;
}

/** Inline links `[label](target)` and images, outside code. */
export function markdownLinks(text: string): MarkdownLink[] {
  const links: MarkdownLink[] = [];
  for (const { line, text: prose } of proseLines(text)) {
    for (const m of prose.matchAll(/\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)) links.push({ target: m[1]!, line });
  }
  return links;
}

/** GitHub's anchor of a heading text: lower case, punctuation dropped, spaces to hyphens. */
export function headingSlug(heading: string): string {
  const plain = heading
    .replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1') // a link keeps its label
    .replace(/<[^>]+>/g, '') // inline HTML
    .trim()
    .toLowerCase();
  return plain.replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, '').replace(/ /g, '-');
}

/** The anchors of every heading (a repeated one gets -1, -2, … as on GitHub) and of `<a name|id="...">`. */
export function headingAnchors(text: string): Set<string> {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  for (const { text: prose, raw } of proseLines(text)) {
    for (const m of prose.matchAll(/<a\s+(?:name|id)="([^"]+)"/g)) anchors.add(m[1]!);
    const heading = /^ {0,3}#{1,6}\s+(.*?)\s*#*\s*$/.exec(raw);
    if (!heading) continue;
    const slug = headingSlug(heading[1]!);
    const n = seen.get(slug) ?? 0;
    seen.set(slug, n + 1);
    anchors.add(n === 0 ? slug : `${slug}-${n}`);
  }
  return anchors;
}
