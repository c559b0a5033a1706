import { compareStrings } from './order.js';

/**
 * Serialises with object keys sorted at every depth. Written by hand because JavaScript objects
 * always iterate integer-like keys ("9", "10") first, which `JSON.stringify` would follow.
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

/** JSON with object keys in code-unit order at every depth (arrays keep their order), 2-space indent, final newline. */
export function canonicalJson(value: unknown): string {
  return `${write(value, '')}\n`;
}
