/**
 * Ordering, canonical JSON and bounded concurrency helpers (src/util).
 */
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { addressAt, canonicalIp, ipRangeProblem, offsetOf, parseIpRange, rangeContains, rangeWithin } from '../../src/util/ip-range.js';
import { canonicalJson } from '../../src/util/canonical-json.js';
import { mapLimit } from '../../src/util/map-limit.js';
import { compareBy, compareStrings, sortedRecord, sortedUnique } from '../../src/util/order.js';

describe('compareStrings', () => {
  test('upper case sorts before lower case (code-point order, not alphabetical)', () => {
    assert.ok(compareStrings('B', 'a') < 0);
    assert.ok(compareStrings('a', 'B') > 0);
    assert.ok(compareStrings('Z', 'a') < 0);
  });

  test('orders punctuation and digits by code point', () => {
    // '-' (0x2D) < '.' (0x2E) < '/' (0x2F) < '0' (0x30) < 'A' (0x41) < '_' (0x5F) < 'a' (0x61)
    const shuffled = ['a', '_', 'A', '0', '/', '.', '-'];
    assert.deepEqual([...shuffled].sort(compareStrings), ['-', '.', '/', '0', 'A', '_', 'a']);
  });

  test('a prefix sorts before the longer string, and equal strings compare 0', () => {
    assert.ok(compareStrings('web', 'web-west') < 0);
    assert.ok(compareStrings('web-west', 'web') > 0);
    assert.equal(compareStrings('same', 'same'), 0);
    assert.equal(compareStrings('', ''), 0);
    assert.ok(compareStrings('', 'a') < 0);
  });

  test('does not follow locale collation', () => {
    // GIVEN pairs that locale collation orders the other way round
    const pairs: [string, string][] = [
      ['B', 'a'],
      ['Z', 'ä'],
      ['z', 'ä'],
      ['a-b', 'a_b'],
    ];
    for (const [lower, higher] of pairs) {
      // THEN code-point order holds regardless of what localeCompare says
      assert.ok(compareStrings(lower, higher) < 0, `${lower} < ${higher}`);
      assert.ok(compareStrings(higher, lower) > 0, `${higher} > ${lower}`);
    }
    // AND at least one pair differs from the (en) locale order, so the test can tell them apart
    assert.ok(pairs.some(([a, b]) => a.localeCompare(b, 'en') > 0));
  });

  test('compares UTF-16 code units, the documented order ("～" U+FF5E after "😀" U+1F600)', () => {
    assert.equal(compareStrings('\u{FF5E}', '\u{1F600}'), 1);
  });
});

describe('compareBy', () => {
  test('the first differing key decides, later keys break ties', () => {
    const items = [
      { ns: 'b', name: 'a' },
      { ns: 'a', name: 'z' },
      { ns: 'a', name: 'B' },
      { ns: 'a', name: 'b' },
    ];
    const sorted = [...items].sort(compareBy((i) => i.ns, (i) => i.name));
    assert.deepEqual(sorted.map((i) => `${i.ns}/${i.name}`), ['a/B', 'a/b', 'a/z', 'b/a']);
  });

  test('equal on every key compares 0', () => {
    assert.equal(compareBy<{ k: string }>((i) => i.k)({ k: 'x' }, { k: 'x' }), 0);
  });
});

describe('sortedRecord', () => {
  test('returns a copy whose keys are in code-point order', () => {
    // GIVEN a record with keys in arbitrary order
    const input = { zeta: 1, Alpha: 2, alpha: 3, 'a.b/c': 4, 'a-b/c': 5 };
    // WHEN sorted
    const out = sortedRecord(input);
    // THEN the keys iterate in code-point order and values follow their keys
    assert.deepEqual(Object.keys(out), ['Alpha', 'a-b/c', 'a.b/c', 'alpha', 'zeta']);
    assert.deepEqual(out, input);
    // AND the input is a different, untouched object
    assert.notEqual(out, input);
    assert.deepEqual(Object.keys(input), ['zeta', 'Alpha', 'alpha', 'a.b/c', 'a-b/c']);
  });

});

describe('sortedUnique', () => {
  test('removes duplicates and sorts in code-point order', () => {
    assert.deepEqual(sortedUnique(['b', 'a', 'B', 'b', 'a']), ['B', 'a', 'b']);
    assert.deepEqual(sortedUnique(new Set(['x'])), ['x']);
    assert.deepEqual(sortedUnique([]), []);
  });
});

describe('canonicalJson', () => {
  test('sorts object keys at every depth and keeps array order', () => {
    const value = { b: { d: 1, c: [{ z: 1, y: 2 }, 'x', 3] }, a: null, B: true };
    assert.equal(
      canonicalJson(value),
      '{\n  "B": true,\n  "a": null,\n  "b": {\n    "c": [\n      {\n        "y": 2,\n        "z": 1\n      },\n      "x",\n      3\n    ],\n    "d": 1\n  }\n}\n',
    );
  });

  test('equal values built in different key orders give the same text', () => {
    const one = { x: { p: 1, q: [1, 2] }, y: 'v' };
    const two = { y: 'v', x: { q: [1, 2], p: 1 } };
    assert.equal(canonicalJson(one), canonicalJson(two));
  });

  test('different array orders give different text', () => {
    assert.notEqual(canonicalJson({ a: [1, 2] }), canonicalJson({ a: [2, 1] }));
  });

  test('omits undefined properties like JSON.stringify, and keeps null', () => {
    assert.equal(canonicalJson({ a: undefined, b: null }), '{\n  "b": null\n}\n');
  });

  test('renders scalars and empty containers with the final newline', () => {
    assert.equal(canonicalJson('x'), '"x"\n');
    assert.equal(canonicalJson(1), '1\n');
    assert.equal(canonicalJson([]), '[]\n');
    assert.equal(canonicalJson({}), '{}\n');
  });

  test('parses back to an equal value', () => {
    const value = { s: 'a"b\\c\n', n: -1.5, list: [{ k: 'v' }, [], {}], t: false };
    assert.deepEqual(JSON.parse(canonicalJson(value)), value);
  });

  // Same cause as sortedRecord: canonicalJson({ '10': 1, '9': 2 }) writes "9" first.
  test('integer-like keys are written in code-point order ("10" before "9")', () => {
    assert.equal(canonicalJson({ '9': 2, '10': 1 }), '{\n  "10": 1,\n  "9": 2\n}\n');
  });
});

describe('mapLimit', () => {
  /** Gives way `turns` times (microtasks only: no timer, so nothing depends on the machine's speed or load). */
  const yieldTurns = async (turns: number): Promise<void> => {
    for (let i = 0; i < turns; i++) await Promise.resolve();
  };

  test('never runs more than `limit` calls at once, and reaches the limit', async () => {
    // GIVEN 12 tasks of varied lengths (in turns) and a limit of 3
    let inFlight = 0;
    let peak = 0;
    const durations = [8, 1, 5, 2, 9, 1, 3, 7, 1, 4, 6, 2];
    // WHEN they run through mapLimit
    await mapLimit(durations, 3, async (ms) => {
      inFlight++;
      peak = Math.max(peak, inFlight);
      await yieldTurns(ms);
      inFlight--;
      return ms;
    });
    // THEN at most 3 ran at once, and 3 did run concurrently
    assert.equal(peak, 3);
    assert.equal(inFlight, 0);
  });

  test('a limit of 1 runs the calls one after the other, in input order', async () => {
    const started: number[] = [];
    let inFlight = 0;
    await mapLimit([3, 1, 2], 1, async (x) => {
      assert.equal(inFlight, 0, 'a second call started while one was running');
      inFlight++;
      started.push(x);
      await yieldTurns(x);
      inFlight--;
    });
    assert.deepEqual(started, [3, 1, 2]);
  });

  test('results keep the input order even when later items finish first', async () => {
    // GIVEN four calls that the test finishes itself, in reverse order (no timers: nothing depends on scheduling)
    const items = [30, 20, 10, 0];
    const release = new Map<number, () => void>();
    const finished: number[] = [];
    const mapped = mapLimit(items, 4, async (x) => {
      await new Promise<void>((resolve) => release.set(x, resolve));
      finished.push(x);
      return `r${x}`;
    });
    // WHEN every call has started and they are finished last to first
    for (let turn = 0; turn < 100 && release.size < items.length; turn++) await Promise.resolve();
    assert.equal(release.size, items.length, 'all four calls run at once');
    for (const x of [...items].reverse()) {
      release.get(x)!();
      await Promise.resolve();
    }
    const results = await mapped;
    // THEN the calls finished out of order but the results are in input order
    assert.deepEqual(finished, [0, 10, 20, 30]);
    assert.deepEqual(results, ['r30', 'r20', 'r10', 'r0']);
  });

  test('calls fn exactly once per item, even with a limit above the item count', async () => {
    const calls: string[] = [];
    const results = await mapLimit(['a', 'b'], 10, async (x) => {
      calls.push(x);
      return x.toUpperCase();
    });
    assert.deepEqual(calls.sort(), ['a', 'b']);
    assert.deepEqual(results, ['A', 'B']);
  });

  test('an empty input gives an empty result without calling fn', async () => {
    let called = false;
    const results = await mapLimit([], 4, async () => {
      called = true;
    });
    assert.deepEqual(results, []);
    assert.equal(called, false);
  });

  test('a limit below 1 still makes progress, one call at a time', async () => {
    let inFlight = 0;
    let peak = 0;
    const results = await mapLimit([1, 2, 3], 0, async (x) => {
      inFlight++;
      peak = Math.max(peak, inFlight);
      await yieldTurns(1);
      inFlight--;
      return x * 2;
    });
    assert.deepEqual(results, [2, 4, 6]);
    assert.equal(peak, 1);
  });

  test('a failing call rejects the whole map with its error', async () => {
    await assert.rejects(
      mapLimit([1, 2, 3], 2, async (x) => {
        if (x === 2) throw new Error('boom 2');
        return x;
      }),
      /boom 2/,
    );
  });
});

describe('ip-range', () => {
  test('parses IPv4 and IPv6 blocks and rejects non-blocks with a reason', () => {
    // GIVEN CIDRs, good and bad
    // WHEN parsed THEN sizes and problems are right
    assert.equal(parseIpRange('10.96.0.0/24').size, 256n);
    assert.equal(parseIpRange('fd00:10:96::/120').size, 256n);
    assert.match(ipRangeProblem('10.96.0.1/24') ?? '', /not the first address of a \/24 block/);
    assert.match(ipRangeProblem('10.96.0.0') ?? '', /not a CIDR block/);
    assert.match(ipRangeProblem('10.96.0.0/33') ?? '', /longer than 32/);
    assert.match(ipRangeProblem('10.300.0.0/16') ?? '', /not an IP address/);
  });

  test('addresses, containment and canonical IPv6 text', () => {
    // GIVEN an IPv6 block
    const v6 = parseIpRange('fd00:10:96::/112');
    // WHEN addresses are computed THEN they are compressed and contained
    assert.equal(addressAt(v6, 1n), 'fd00:10:96::1');
    assert.equal(addressAt(v6, 0xffffn), 'fd00:10:96::ffff');
    assert.equal(rangeContains(v6, 'FD00:10:96:0:0:0:0:2'), true);
    assert.equal(rangeContains(v6, 'fd00:10:97::2'), false);
    assert.equal(rangeContains(v6, '10.96.0.1'), false);
    assert.equal(canonicalIp('fd00:0010:0096:0000:0000:0000:0000:0001'), 'fd00:10:96::1');
    assert.equal(canonicalIp('::ffff:10.0.0.1'), '::ffff:a00:1');
    const v4 = parseIpRange('10.96.0.0/28');
    assert.equal(addressAt(v4, 15n), '10.96.0.15');
    assert.equal(rangeContains(v4, '10.96.0.16'), false);
  });

  test('offsets of an address and blocks within blocks', () => {
    const v4 = parseIpRange('10.96.0.0/16');
    assert.equal(offsetOf(v4, '10.96.1.0'), 256n);
    assert.equal(offsetOf(v4, '10.95.255.255'), -1n);
    assert.equal(offsetOf(v4, 'fd00::1'), undefined);
    assert.equal(offsetOf(parseIpRange('fd00:10:96::/108'), 'fd00:10:96::1:0'), 65536n);
    assert.equal(rangeWithin(parseIpRange('10.96.255.0/24'), v4), true);
    assert.equal(rangeWithin(v4, v4), true);
    assert.equal(rangeWithin(parseIpRange('10.96.0.0/15'), v4), false);
    assert.equal(rangeWithin(parseIpRange('10.97.0.0/24'), v4), false);
    assert.equal(rangeWithin(parseIpRange('fd00::/120'), v4), false);
  });
});

describe('canonicalJson (native fast path)', () => {
  // The reference writer, as canonicalJson was before its fast path: keys sorted by code unit at every depth.
  const reference = (value: unknown, indent = ''): string => {
    if (value === null || typeof value !== 'object') return JSON.stringify(value) ?? 'null';
    const inner = `${indent}  `;
    if (Array.isArray(value)) return value.length === 0 ? '[]' : `[\n${value.map((v) => inner + reference(v === undefined ? null : v, inner)).join(',\n')}\n${indent}]`;
    const keys = Object.keys(value).filter((k) => (value as Record<string, unknown>)[k] !== undefined).sort(compareStrings);
    return keys.length === 0 ? '{}' : `{\n${keys.map((k) => `${inner}${JSON.stringify(k)}: ${reference((value as Record<string, unknown>)[k], inner)}`).join(',\n')}\n${indent}}`;
  };

  test('integer-like keys are written in code-unit order ("10" before "9"), not the engine order', () => {
    const value = { labels: { '9': 'a', '10': 'b', x: 'c', '0': 'd' }, list: [{ '2': 1, '11': 2 }] };
    assert.equal(canonicalJson(value), `${reference(value)}\n`);
    assert.ok(canonicalJson(value).indexOf('"10"') < canonicalJson(value).indexOf('"9"'));
  });

  test('values with toJSON, functions or unsorted keys give the reference text', () => {
    const cases: unknown[] = [
      { b: 1, a: { d: [3, { z: undefined, y: 'q' }], c: null } },
      { when: new Date(0), a: 1 },
      { f: () => 1, a: [() => 2, undefined] },
      [{ b: 2, a: 1 }, [], {}, 'x'],
      { 'a/b': { 'c.d': 1, 'c-d': 2, C: 3 } },
    ];
    for (const value of cases) assert.equal(canonicalJson(value), `${reference(value)}\n`);
  });

  test('values whose keys are sorted already, and values that only look so, give the reference text', () => {
    const nullPrototype = Object.assign(Object.create(null) as Record<string, unknown>, { a: 1, b: 2 });
    const cases: unknown[] = [
      { a: 1, b: [1, { c: 2, d: null }, 'x'], c: { d: true, e: -0, f: Number.NaN } },
      { a: undefined, b: 1 },
      { a: [undefined, 1] },
      nullPrototype,
      { a: new Date(0), b: 1 },
      { a: 1, toJSON: () => 'x' },
      { '1': 'one', a: 'a' },
      { A: 1, B: 2, a: 3, b: 4 },
      { a: 1, a0: 2, 'a-': 3 },
      JSON.parse('{"z": 1, "__proto__": {"b": 1, "a": 2}, "a": [{"y": 1, "x": 2}, {"p": 1}]}'),
      { a: { c: 1, b: 2 }, b: [new Date(0)] },
      [{ b: 1, a: 2 }, { a: 1 }, null, 'x'],
      { a: Object.assign([1, 2], { toJSON: () => 'x' }) },
    ];
    for (const value of cases) assert.equal(canonicalJson(value), `${reference(value)}\n`);
  });

  test('a parsed canonical text renders back to itself', () => {
    const text = canonicalJson({ z: { b: [1, { y: 2, x: 1 }], a: 'é\u2028"' }, a: 1.5 });
    assert.equal(canonicalJson(JSON.parse(text)), text);
  });
});
