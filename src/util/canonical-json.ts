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

/** What {@link canonicalView} returns for a value JSON.stringify cannot write as {@link write} does. */
const NOT_NATIVE = Symbol('not native');

/**
 * `value` as JSON.stringify writes exactly as {@link write} does: the value itself where its object
 * keys are in code-unit order already (a parsed canonical file), else a copy of the objects on the
 * way to those that are not, with their keys sorted; {@link NOT_NATIVE} when some part cannot be
 * written that way (a toJSON method, a function, symbol or bigint, an object of a class, or an
 * integer-like key in an object that must be sorted: the engine iterates such keys first).
 */
function canonicalView(value: unknown): unknown {
  if (value === null || value === undefined) return value;
  const type = typeof value;
  if (type === 'string' || type === 'number' || type === 'boolean') return value;
  if (type !== 'object') return NOT_NATIVE;
  // JSON.stringify would call a toJSON method (of an array too); the reference writer does not.
  if (typeof (value as { toJSON?: unknown }).toJSON === 'function') return NOT_NATIVE;
  if (Array.isArray(value)) {
    let copy: unknown[] | undefined;
    for (let i = 0; i < value.length; i++) {
      const item: unknown = value[i];
      const view = canonicalView(item);
      if (view === NOT_NATIVE) return NOT_NATIVE;
      if (view !== item) (copy ??= value.slice())[i] = view;
    }
    return copy ?? value;
  }
  const prototype: unknown = Object.getPrototypeOf(value);
  if (prototype !== Object.prototype && prototype !== null) return NOT_NATIVE;
  const record = value as Record<string, unknown>;
  const keys = Object.keys(record);
  // (Sorted in the order the engine iterates them, integer-like keys included, JSON.stringify writes them so.)
  let sorted = true;
  for (let i = 1; i < keys.length && sorted; i++) if (!(keys[i - 1]! < keys[i]!)) sorted = false;
  if (!sorted && keys.some((k) => INTEGER_LIKE.test(k))) return NOT_NATIVE;
  let changed = false;
  const views: unknown[] = [];
  for (const key of keys) {
    const item = record[key];
    const view = canonicalView(item);
    if (view === NOT_NATIVE) return NOT_NATIVE;
    views.push(view);
    if (view !== item) changed = true;
  }
  if (sorted && !changed) return value;
  const order = keys.map((_, i) => i);
  if (!sorted) order.sort((a, b) => compareStrings(keys[a]!, keys[b]!));
  // Without a prototype, so that a "__proto__" key is a key like any other.
  const copy = Object.create(null) as Record<string, unknown>;
  for (const i of order) copy[keys[i]!] = views[i];
  return copy;
}

/**
 * JSON with object keys in code-unit order at every depth (arrays keep their order), 2-space indent, final newline.
 *
 * `JSON.stringify` with a 2-space indent lays text out exactly as {@link write} does; it is given
 * the value itself where its keys are in code-unit order already (a parsed canonical file) and sorted
 * copies of the objects that are not ({@link canonicalView}), so the text is written natively, with
 * no replacer call per value, several times faster than by hand — the lock of a large fleet is tens
 * of MiB. Whatever that path cannot render identically (an integer-like key in an object to sort,
 * which the engine would move first; a `toJSON` method; a function, symbol or bigint value) sends
 * the whole value to the reference writer instead.
 */
export function canonicalJson(value: unknown): string {
  const view = canonicalView(value);
  if (view === NOT_NATIVE) return `${write(value, '')}\n`;
  return `${JSON.stringify(view, null, 2) ?? 'null'}\n`;
}
