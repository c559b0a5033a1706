/**
 * The streaming JSON budget scanner (src/observe/json-budget-scanner.ts): its counts equal what
 * JSON.parse builds, however the answer is cut into chunks (escapes, multi-byte characters and
 * tokens split across chunk boundaries), and it refuses at the first value, item, level or byte
 * over a limit, without a parse. Random texts come from a seeded generator: deterministic.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { JsonBudgetScanner, JsonScanLimitError, type JsonScanLimits } from '../../src/observe/json-budget-scanner.js';
import { seededRandom } from '../../bench/seeded-random.js';

const NONE: JsonScanLimits = { maxItems: Infinity, maxValues: Infinity, maxDepth: 1000, maxTokenBytes: Infinity };


const PIECES = ['a', 'items', '\\"', '\\\\', '\\u0069', 'é', '😀', '\\n', ' ', '"', '\\\\\\"', '\\/'];

/** A random JSON text (no duplicate keys: JSON.parse keeps only the last, the scanner counts each): strings full of escapes and multi-byte characters, whitespace anywhere, and a top-level `items` spelled plainly or with escapes. */
function randomJson(rnd: () => number): string {
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rnd() * xs.length)]!;
  const ws = (): string => (rnd() < 0.3 ? pick([' ', '\n', '\t ', '\r\n  ']) : '');
  const str = (): string => {
    let s = '';
    const n = Math.floor(rnd() * 6);
    for (let i = 0; i < n; i++) {
      const p = pick(PIECES);
      s += p === '"' ? '\\"' : p;
    }
    return `"${s}"`;
  };
  const value = (depth: number): string => {
    const r = rnd();
    if (depth > 5 || r < 0.35) return pick([str(), '0', '-12.5e3', 'true', 'false', 'null', '123456789']);
    if (r < 0.7) {
      const n = Math.floor(rnd() * 5);
      return `[${ws()}${Array.from({ length: n }, () => `${ws()}${value(depth + 1)}${ws()}`).join(',')}]`;
    }
    const n = Math.floor(rnd() * 5);
    return `{${ws()}${Array.from({ length: n }, (_, i) => `${ws()}${str().replace(/^"/, `"${i}`)}${ws()}:${ws()}${value(depth + 1)}`).join(',')}}`;
  };
  const itemsKey = pick(['"items"', '"it\\u0065ms"', '"\\u0069\\u0074\\u0065\\u006d\\u0073"', '"item"', '"items "']);
  const items = Array.from({ length: Math.floor(rnd() * 8) }, () => value(2)).join(`,${ws()}`);
  return `${ws()}{${ws()}"kind":${ws()}"List",${ws()}"metadata":{"a":[1,{"items":[1,2]}]},${itemsKey}${ws()}:${ws()}[${items}]${ws()},"other":${value(1)}}${ws()}`;
}

/** What JSON.parse builds: values, the top-level `items` length, the deepest nesting. */
function reference(text: string): { values: number; items: number; depth: number } {
  const parsed: unknown = JSON.parse(text);
  let values = 0;
  let depth = 0;
  const walk = (v: unknown, d: number): void => {
    values++;
    if (v !== null && typeof v === 'object') {
      depth = Math.max(depth, d + 1);
      for (const x of Object.values(v)) walk(x, d + 1);
    }
  };
  walk(parsed, 0);
  const items = (parsed as { items?: unknown }).items;
  return { values, items: Array.isArray(items) ? items.length : 0, depth };
}

/** The longest string (as sent, without its quotes) or number of `text`. */
function longestToken(text: string): number {
  let longest = 0;
  for (const m of text.matchAll(/"((?:[^"\\]|\\.)*)"|-?[0-9][0-9.eE+-]*|true|false|null/g)) longest = Math.max(longest, Buffer.byteLength(m[1] ?? m[0]));
  return longest;
}

/** Scans `bytes` in chunks cut at random places (often one byte). */
function scan(bytes: Buffer, limits: JsonScanLimits, rnd: () => number): JsonBudgetScanner {
  const scanner = new JsonBudgetScanner(limits);
  for (let i = 0; i < bytes.length;) {
    const n = rnd() < 0.3 ? 1 : 1 + Math.floor(rnd() * 17);
    scanner.write(bytes.subarray(i, i + n));
    i += n;
  }
  return scanner;
}

const refusal = (f: () => unknown): JsonScanLimitError | undefined => {
  try {
    f();
    return undefined;
  } catch (e) {
    assert.ok(e instanceof JsonScanLimitError, String(e));
    return e;
  }
};

describe('the streaming JSON budget scanner', () => {
  test('counts exactly the values, list items and nesting JSON.parse builds, for 2,000 random texts cut into random chunks', () => {
    const rnd = seededRandom(33);
    for (let n = 0; n < 2_000; n++) {
      const text = randomJson(rnd);
      const want = reference(text);
      const scanner = scan(Buffer.from(text), NONE, rnd);
      assert.deepEqual({ values: scanner.values, items: scanner.items }, { values: want.values, items: want.items }, text);
      // THEN at exactly the reference's depth it passes, one below it refuses
      assert.equal(refusal(() => scan(Buffer.from(text), { ...NONE, maxDepth: want.depth }, rnd)), undefined, text);
      assert.equal(refusal(() => scan(Buffer.from(text), { ...NONE, maxDepth: want.depth - 1 }, rnd))?.limit, 'maxDepth', text);
      const longest = longestToken(text);
      assert.equal(refusal(() => scan(Buffer.from(text), { ...NONE, maxTokenBytes: longest }, rnd)), undefined, text);
      if (longest > 0) assert.equal(refusal(() => scan(Buffer.from(text), { ...NONE, maxTokenBytes: longest - 1 }, rnd))?.limit, 'maxTokenBytes', text);
      if (want.items > 0) assert.equal(refusal(() => scan(Buffer.from(text), { ...NONE, maxItems: want.items - 1 }, rnd))?.limit, 'maxItems', text);
      assert.equal(refusal(() => scan(Buffer.from(text), { ...NONE, maxValues: want.values - 1 }, rnd))?.limit, 'maxValues', text);
    }
  });

  test('refuses 21 million tiny items at the first item over the limit, having read only that far', () => {
    const scanner = new JsonBudgetScanner({ ...NONE, maxItems: 50_000 });
    const chunk = Buffer.from('{},'.repeat(1 << 16));
    const error = refusal(() => {
      scanner.write(Buffer.from('{"kind":"ServiceList","items":['));
      for (let sent = 0; sent < 21_000_000; sent += 1 << 16) scanner.write(chunk);
    });
    assert.equal(error?.limit, 'maxItems');
    assert.equal(scanner.items, 50_001);
  });

  test('items are only the elements of the top-level object\'s `items`: nested `items` keys and values inside items do not count', () => {
    const scanner = new JsonBudgetScanner(NONE);
    scanner.write(Buffer.from('{"metadata":{"items":[1,2,3]},"items":[{"items":[4,5]},[6,7],"x"],"after":[8]}'));
    assert.equal(scanner.items, 3);
  });
});
