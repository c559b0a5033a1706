/**
 * The README stays a front door (under 300 lines), and every relative link of README.md and
 * docs/**.md points to a file that exists and, with a #fragment into a Markdown file, to a heading
 * that exists there (GitHub's anchor of a heading). docs/reference/api/ is built by `npm run docs`,
 * not committed, so it is not checked here (TypeDoc validates its own links).
 */
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { test } from 'node:test';
import { headingAnchors, markdownLinks } from './support/markdown-links.js';

const ROOT = resolve('.');
const BUILT = join(ROOT, 'docs', 'reference', 'api');

/** Every Markdown file below `dir`, except the built API docs. */
function markdownFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const path = join(dir, e.name);
    if (e.isDirectory()) return path === BUILT ? [] : markdownFiles(path);
    return e.name.endsWith('.md') ? [path] : [];
  });
}

test('README.md is a front door: under 300 lines', () => {
  const lines = readFileSync(join(ROOT, 'README.md'), 'utf8').split('\n').length;
  assert.ok(lines < 300, `README.md has ${lines} lines; move detail into docs/ and link it`);
});

test('every relative link in README.md and docs/**/*.md points to an existing file and heading', () => {
  const files = [join(ROOT, 'README.md'), ...markdownFiles(join(ROOT, 'docs'))];
  assert.ok(files.length > 20, `only ${files.length} Markdown files found`);
  const anchors = new Map<string, Set<string>>();
  const anchorsOf = (file: string): Set<string> => {
    let set = anchors.get(file);
    if (!set) anchors.set(file, (set = headingAnchors(readFileSync(file, 'utf8'))));
    return set;
  };
  const broken: string[] = [];
  let checked = 0;
  for (const file of files) {
    for (const link of markdownLinks(readFileSync(file, 'utf8'))) {
      if (/^[a-z][a-z0-9+.-]*:/i.test(link.target)) continue; // https:, mailto:
      checked++;
      const [path = '', fragment] = link.target.split('#', 2) as [string, string | undefined];
      const where = `${relative(ROOT, file)}:${link.line}: ${link.target}`;
      const target = path === '' ? file : resolve(dirname(file), decodeURIComponent(path));
      if (!existsSync(target)) {
        broken.push(`${where}: no such file`);
        continue;
      }
      if (target.startsWith(BUILT)) broken.push(`${where}: docs/reference/api/ is not committed; link docs/reference/README.md`);
      if (fragment !== undefined && target.endsWith('.md') && statSync(target).isFile() && !anchorsOf(target).has(fragment)) {
        broken.push(`${where}: no heading with anchor #${fragment} in ${relative(ROOT, target)}`);
      }
    }
  }
  assert.ok(checked > 100, `only ${checked} relative links found: is the link parser broken?`);
  assert.deepEqual(broken, []);
});
