/**
 * The escape of what a target controls: no control character, no CI command and no live Markdown
 * reaches the terminal, the CI log, the job summary or the report (src/util/printable-text.ts,
 * src/util/print.ts, src/report/markdown-text.ts; docs/safety/boundary-validation.md).
 */
import assert from 'node:assert/strict';
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, test } from 'node:test';
import MarkdownIt from 'markdown-it';
import { ObservationError } from '../../src/observe/observation-error.js';
import { jobSummaryMarkdown } from '../../src/report/job-summary.js';
import { markdownCode, markdownText } from '../../src/report/markdown-text.js';
import type { RunReport } from '../../src/report/report.js';
import { runLog } from '../../src/report/run-log.js';
import { quote } from '../../src/util/k8s-names.js';
import { outputText } from '../../src/util/print.js';
import { printableJson, printableLine, printableText, targetText } from '../../src/util/printable-text.js';

/** Every character class the escape must take out, one example each (and its name for the message). */
const CONTROLS: readonly (readonly [string, string])[] = [
  ['NUL', '\u0000'], ['BEL', '\u0007'], ['backspace', '\b'], ['ESC', '\u001b'], ['CR', '\r'], ['LF', '\n'], ['vertical tab', '\v'], ['form feed', '\f'],
  ['DEL', '\u007f'], ['C1 NEL', '\u0085'], ['C1 CSI', '\u009b'], ['C1 OSC', '\u009d'],
  ['ALM', '\u061c'], ['zero width space', '\u200b'], ['LRM', '\u200e'], ['RLM', '\u200f'], ['line separator', '\u2028'], ['paragraph separator', '\u2029'],
  ['LRE', '\u202a'], ['RLO', '\u202e'], ['word joiner', '\u2060'], ['LRI', '\u2066'], ['PDI', '\u2069'], ['BOM', '\ufeff'],
];

/** Any character of the classes above but TAB (which a printed line may keep). */
const RAW_UNSAFE = /[\u0000-\u0008\u000a-\u001f\u007f-\u009f\u061c\u200b-\u200f\u2028-\u202e\u2060-\u2069\ufeff]/;

/** What a CI runner would take for a command in one line: GitHub's `::` (after leading white space), `##[`, Azure's `##vso[`, TeamCity's `##teamcity[`. */
function ciCommand(line: string): string | undefined {
  if (/^\s*::/.test(line)) return 'workflow command';
  return /##(?:vso|teamcity)?\[/i.exec(line)?.[0];
}

/** Asserts that no line of `text` is or holds a CI command and that it has no raw control character. */
function assertPrintable(text: string, context: string): void {
  for (const line of text.split('\n')) {
    assert.equal(ciCommand(line), undefined, `${context}: a CI command in ${JSON.stringify(line)}`);
    assert.doesNotMatch(line, RAW_UNSAFE, `${context}: a raw control in ${JSON.stringify(line)}`);
  }
}

const HOSTILE_LINES = [
  '::error::pwned',
  '  ::error file=a.ts,line=1::pwned',
  '\u00a0::add-mask::x',
  '::stop-commands::abc123',
  '::set-output name=x::y',
  '##[error]pwned',
  'text ##[group]pwned',
  '##vso[task.setvariable variable=x]pwned',
  '##VSO[task.complete result=Failed;]x',
  '##teamcity[buildStatus text=\'x\']',
];

describe('targetText: one value a target controls', () => {
  for (const [name, c] of CONTROLS) {
    test(`GIVEN a value with ${name} WHEN escaped THEN the character is gone and shown as an escape`, () => {
      const out = targetText(`a${c}b`);
      assert.doesNotMatch(out, RAW_UNSAFE);
      assert.match(out, /^a\\(?:u[0-9a-f]{4}|[nrt])b$/);
    });
  }

  test('GIVEN a TAB in a value WHEN escaped THEN it is \\t (a value never lays out a line)', () => {
    assert.equal(targetText('a\tb'), 'a\\tb');
  });

  test('GIVEN an ESC colour sequence, CR and a newline with a workflow command WHEN escaped THEN one line, nothing a terminal or runner acts on', () => {
    const out = targetText('denied\n::error::pwned \u001b[31mred\u001b[0m\rcover');
    assert.equal(out, 'denied\\n::error::pwned \\u001b[31mred\\u001b[0m\\rcover');
    assertPrintable(out, 'targetText');
  });

  for (const line of HOSTILE_LINES) {
    test(`GIVEN the value ${JSON.stringify(line)} WHEN escaped THEN it is no CI command, and escaping again changes nothing`, () => {
      const out = targetText(line);
      assertPrintable(out, line);
      assert.equal(targetText(out), out);
    });
  }

  test('GIVEN ordinary message text WHEN escaped THEN it is unchanged', () => {
    for (const text of ['list services: HTTP 403: services is forbidden: User "system:anonymous" cannot list resource "services"', 'a:b::c', '#1 [x] (y) <z> `w`', 'naïve — ünïcödé ✓']) {
      assert.equal(targetText(text), text);
    }
  });
});

describe('printableText: every line that leaves the process', () => {
  test('GIVEN a message whose value slipped in raw (newline, workflow commands, controls) WHEN printed THEN each line is safe, the line breaks stay', () => {
    const out = printableText(`warning: cluster "b": ${HOSTILE_LINES.join('\n')}\n\u001b]0;title\u0007\u202eevil`);
    assert.equal(out.split('\n').length, HOSTILE_LINES.length + 1);
    assertPrintable(out, 'printableText');
    assert.equal(printableText(out), out, 'idempotent');
  });

  test('GIVEN our own lines (tabs, indentation, colons) WHEN printed THEN they are unchanged', () => {
    const text = 'dist/a/: 1 added, 0 changed, 0 removed\n  + from-b/default/web.yaml\n\tcol\tumns\nerror: x: y';
    assert.equal(printableText(text), text);
    assert.equal(printableLine('  - cluster "b": ok'), '  - cluster "b": ok');
  });

  test('GIVEN a credential and a workflow command on one line WHEN made output THEN the credential is *** and the command neutralised', () => {
    const out = outputText('::error::Authorization: Bearer abc.def\nhttps://u:p@h/x?token=t');
    assert.doesNotMatch(out, /abc\.def|u:p@|token=t/);
    assertPrintable(out, 'outputText');
  });

  test('GIVEN a run log WHEN a hostile line is written at any level THEN the sink gets it printable', () => {
    const got: string[] = [];
    const log = runLog((l) => got.push(l), 'verbose');
    for (const write of [log.always, log.info, log.detail]) write('x\n::error::pwned\u001b[2J');
    assert.equal(got.length, 3);
    for (const l of got) assertPrintable(l, 'run log');
  });

  test('GIVEN a name from a lying API server WHEN quoted for a warning THEN it is JSON-quoted and holds no control or CI command', () => {
    for (const name of ['web\n::error::x', '##[error]x', 'a\u009b31mb', 'ab\u202ecod.exe', 'x\u2028::warning::y']) {
      assertPrintable(quote(name), name);
      assert.ok(quote(name).startsWith('"'));
    }
  });

  test('GIVEN an API server Status message WHEN it becomes an ObservationError THEN message and detail are printable', () => {
    const e = new ObservationError('b', 'forbidden', 'list services: permission denied: no\n::error::pwned \u001b[31mx\r##vso[task.setvariable variable=a]1');
    assertPrintable(e.message, 'message');
    assertPrintable(e.detail, 'detail');
    assert.match(e.message, /no\\n::error::pwned \\u001b\[31mx\\r##vso\\\[task/);
  });
});

describe('printableJson: the report keeps exact values', () => {
  test('GIVEN values with every control class and CI commands WHEN written THEN JSON reads back the same values, and the text is printable', () => {
    const values = { message: `${CONTROLS.map(([, c]) => c).join('')}|${HOSTILE_LINES.join('\n')}`, names: HOSTILE_LINES, plain: 'ok' };
    for (const json of [JSON.stringify(values), JSON.stringify(values, null, 2)]) {
      const text = printableJson(json);
      assert.deepEqual(JSON.parse(text), values);
      assertPrintable(text, 'json');
      assert.equal(printableJson(text), text, 'idempotent');
    }
    const plain = JSON.stringify({ a: 'b', c: [1, 2] }, null, 2);
    assert.equal(printableJson(plain), plain, 'ordinary JSON unchanged');
  });
});

/** The HTML a Markdown renderer with raw HTML and autolinks on makes of `md` (markdown-it: CommonMark with GFM tables). */
function render(md: string): string {
  return new MarkdownIt({ html: true, linkify: true }).render(md);
}

/** Markup a target must never get into the summary. */
const PAYLOADS = [
  '<img src=x onerror=alert(1)>',
  '<script>alert(1)</script>',
  '![pixel](https://evil.example/p.png)',
  '[click](https://evil.example/phish)',
  'see https://evil.example/a and www.evil.example',
  '**bold** _em_ `code` ~~s~~',
  '# heading',
  '| a | b |',
  '`` ` `` <b>x</b> ```',
  '\\| <i>after a backslash-pipe</i>',
  '<!-- comment --><a href="https://evil.example">a</a>',
];

describe('markdown-text: nothing a target wrote renders as markup', () => {
  for (const payload of PAYLOADS) {
    test(`GIVEN ${JSON.stringify(payload)} WHEN put into a paragraph and a table cell THEN the renderer shows it as code, with no tag, link or image`, () => {
      const md = `> ${markdownCode(payload, 'paragraph')}\n\n| a | b |\n|---|---|\n| x | ${markdownCode(payload, 'cell')} |\n`;
      const html = render(md);
      assert.doesNotMatch(html, /<(?:img|a|script|b|i|strong|em|s|del|h1)[\s>]/, html);
      assert.equal((html.match(/<td>/g) ?? []).length, 2, `one row of two cells: ${html}`);
      assert.equal((html.match(/<code>/g) ?? []).length, 2, html);
      // AND the code shows the payload itself (the renderer's HTML escaping undone)
      const shown = [...html.matchAll(/<code>(.*?)<\/code>/g)].map((m) => m[1]!.replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&quot;/g, '"').replace(/&amp;/g, '&'));
      assert.deepEqual(shown, [payload, payload]);
    });
  }

  test('GIVEN a name with markup WHEN written as text THEN it renders as the same characters, no markup', () => {
    const name = '<img src=x>[a](b)!*_#|`x`';
    const html = render(`| ${markdownText(name)} |\n|---|\n`);
    assert.doesNotMatch(html, /<(?:img|a|em|strong|code)[\s>]/, html);
    assert.match(html, /&lt;img src=x&gt;\[a\]\(b\)!\*_#\|`x`/);
    assert.equal(markdownText('london-2'), 'london-2');
    assert.equal(markdownText('2025-03-01T10:00:00Z'), '2025-03-01T10:00:00Z');
  });

  test('GIVEN a report whose errors carry a target\'s words WHEN the job summary is built THEN no live markup, no control, no CI command', () => {
    const words = `denied\n::error::pwned \u001b[31m\r ${PAYLOADS.join(' ')}`;
    const cluster = { observed: true, reachable: false, stale: true, staleSince: '2025-03-01T10:00:00Z', error: `cluster "b": ${words}` };
    const report: RunReport = {
      reportFormat: 1, mirrorcVersion: '0.1.0', command: 'synth', exitCode: 3, error: `compile failed: ${words}`, offline: false, shard: null, lockChanged: false, warnings: [], diagnostics: [],
      targets: [{ cluster: 'b', ...cluster, exportedServices: 1 }],
      sources: [{ cluster: 'a', ...cluster, compiled: true, added: [], changed: [], removed: [], unchanged: 1 }],
    };
    const md = jobSummaryMarkdown(report);
    assertPrintable(md, 'summary');
    const html = render(md);
    assert.doesNotMatch(html, /<(?:img|a|script|b|i|strong|em|s|del|h1)[\s>]/, html);
    assert.match(html, /<td>b<\/td>\s*<td>target<\/td>\s*<td>2025-03-01T10:00:00Z<\/td>\s*<td><code>/);
  });
});

describe('one choke point for stdout and stderr', () => {
  test('GIVEN the sources WHEN searched THEN only src/util/print.ts writes to process.stdout or process.stderr (and bin.ts\'s Node.js version line), no console', () => {
    const root = join(import.meta.dirname, '..', '..', 'src');
    const allowed = new Set(['util/print.ts', 'cli/bin.ts']);
    const offenders: string[] = [];
    const walk = (dir: string): void => {
      for (const entry of readdirSync(dir)) {
        const path = join(dir, entry);
        if (statSync(path).isDirectory()) walk(path);
        else if (path.endsWith('.ts') && !allowed.has(relative(root, path))) {
          const text = readFileSync(path, 'utf8');
          if (/process\.(?:stdout|stderr)\.write|console\.(?:log|error|warn|info|debug)\(/.test(text)) offenders.push(relative(root, path));
        }
      }
    };
    walk(root);
    assert.deepEqual(offenders, [], 'these write around src/util/print.ts');
  });
});
