/** Locale-independent ordering helpers: output must not depend on the machine's locale. */

/** UTF-16 code-unit order, the same on every machine (`localeCompare` would depend on the locale). */
export function compareStrings(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** Compares by a list of string keys, first difference wins. */
export function compareBy<T>(...keys: ((item: T) => string)[]): (a: T, b: T) => number {
  return (a, b) => {
    for (const key of keys) {
      const c = compareStrings(key(a), key(b));
      if (c !== 0) return c;
    }
    return 0;
  };
}

/**
 * A copy of `record` whose keys are inserted in code-unit order. (JavaScript still iterates
 * integer-like keys first; {@link canonicalJson} serialises in true sorted order.)
 */
export function sortedRecord<V>(record: Readonly<Record<string, V>>): Record<string, V> {
  const out: Record<string, V> = {};
  for (const key of Object.keys(record).sort(compareStrings)) out[key] = record[key]!;
  return out;
}

/** Unique values of `items`, sorted in code-unit order. */
export function sortedUnique(items: Iterable<string>): string[] {
  return [...new Set(items)].sort(compareStrings);
}
