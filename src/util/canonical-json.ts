import { compareStrings } from './order.js';

/**
 * Serialises with object keys sorted at every depth. Written by hand because JavaScript objects
 * always iterate integer-like keys ("9", "10") first, which `JSON.stringify` would follow. This is
 * the reference writer: {@link canonicalJson} takes it only for the values the fast path cannot
 * render exactly.
 */
function write(value: unknown, indent: string): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value) ?? 'null';
  const inner = `${indent}  `;
  if (Array.isArray(value)) {
    if (value.length === 0) return '[]';
    return `[\n${value.map((v) => inner + write(v === undefined ? null : v, inner)).join(',\n')}\n${indent}]`;
  }
  const keys = Object.keys(value).filter((k) => (value as Record<string, unknown>)[k] !== undefined).sort(compareStrings);
  if (keys.length === 0) return '{}';
  return `{\n${keys.map((k) => `${inner}${JSON.stringify(k)}: ${write((value as Record<string, unknown>)[k], inner)}`).join(',\n')}\n${indent}}`;
}

/** A key the engine iterates before every other (an array index): a sorted copy could not keep it in code-unit order. */
const INTEGER_LIKE = /^(?:0|[1-9][0-9]*)$/;

/**
 * Whether JSON.stringify writes `value` exactly as {@link write} does: it holds only strings, numbers,
 * booleans, null, arrays and plain objects whose own keys, in the order the engine iterates them, are
 * in code-unit order, and no undefined (so no toJSON method, function, symbol or bigint either).
 */
function inCanonicalOrder(value: unknown): boolean {
  if (value === null) return true;
  const type = typeof value;
  if (type === 'string' || type === 'number' || type === 'boolean') return true;
  if (type !== 'object') return false;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const item: unknown = value[i];
      if (item === undefined || !inCanonicalOrder(item)) return false;
    }
    return true;
  }
  if (Object.getPrototypeOf(value) !== Object.prototype) return false;
  let previous: string | undefined;
  for (const key in value) {
    if (!Object.prototype.hasOwnProperty.call(value, key)) return false;
    // (An integer-like key needs no test of its own: the engine iterates such keys first, in numeric
    // order, and JSON.stringify writes them in that order, which this check accepts only when it is
    // code-unit order as well.)
    if (previous !== undefined && !(previous < key)) return false;
    const item: unknown = (value as Record<string, unknown>)[key];
    if (item === undefined || !inCanonicalOrder(item)) return false;
    previous = key;
  }
  return true;
}

/**
 * JSON with object keys in code-unit order at every depth (arrays keep their order), 2-space indent, final newline.
 *
 * `JSON.stringify` with a 2-space indent lays text out exactly as {@link write} does; a replacer
 * hands it each object with its keys in code-unit order (the object itself when they are already,
 * as in a parsed canonical file), so the text is written natively, several times faster than by
 * hand — the lock of a large fleet is tens of MiB. Whatever that path cannot render identically
 * (an integer-like key, which the engine would move first; a `toJSON` method; a function or symbol
 * value) sends the whole value to the reference writer instead.
 */
export function canonicalJson(value: unknown): string {
  // A value whose keys are in code-unit order already (a parsed canonical file, records built sorted)
  // is written by JSON.stringify alone, without a replacer call per value: the same text, faster.
  if (inCanonicalOrder(value)) return `${JSON.stringify(value, null, 2) ?? 'null'}\n`;
  let exact = true;
  const text = JSON.stringify(value, function (this: Record<string, unknown>, key: string, v: unknown): unknown {
    const type = typeof v;
    if (type === 'function' || type === 'symbol' || type === 'bigint') exact = false;
    // JSON.stringify called a toJSON method: the reference writer would not have.
    if (this[key] !== v) exact = false;
    if (v === null || type !== 'object') return v;
    if (Array.isArray(v)) return v;
    const keys = Object.keys(v as object);
    let sorted = true;
    for (let i = 0; i < keys.length; i++) {
      if (INTEGER_LIKE.test(keys[i]!)) exact = false;
      if (i > 0 && keys[i - 1]! > keys[i]!) sorted = false;
    }
    if (sorted || !exact) return v;
    const copy: Record<string, unknown> = {};
    for (const k of keys.sort(compareStrings)) copy[k] = (v as Record<string, unknown>)[k];
    return copy;
  }, 2);
  return exact ? `${text ?? 'null'}\n` : `${write(value, '')}\n`;
}
