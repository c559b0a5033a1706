/**
 * The YAML writer as it was before issue #9 (two full YAML.parse calls per string scalar), kept
 * verbatim as the reference oracle of test/unit/yaml-writer.test.ts: the new writer must produce the
 * same bytes, except for the strings it now writes in Go-exact double quotes.
 */
import YAML from 'yaml';

const GO_INT = /^[-+]?(0[bB][01_]+|0[oO][0-7_]+|0[xX][0-9a-fA-F_]+|[0-9][0-9_]*)$/;
const GO_FLOAT = /^[-+]?([0-9][0-9_]*)?\.?[0-9_]*([eE][-+]?[0-9]+)?$/;

/** The old quoting check. */
export function referenceIsAmbiguousPlain(value: string): boolean {
  if (GO_INT.test(value) || GO_FLOAT.test(value)) return true;
  if (value.startsWith('{') || value.startsWith('[')) return true;
  for (const version of ['1.1', '1.2'] as const) {
    try {
      if (YAML.parse(value, { version }) !== value) return true;
    } catch {
      return true;
    }
  }
  return false;
}

/** The old writer; `alsoQuote` (not in the old writer) double-quotes more strings, to state an intended difference. */
export function referenceStringifyYaml(value: unknown, alsoQuote: (s: string) => boolean = () => false): string {
  const doc = new YAML.Document(value, { version: '1.1', aliasDuplicateObjects: false });
  YAML.visit(doc, {
    Scalar(_key, node) {
      if (typeof node.value === 'string' && (referenceIsAmbiguousPlain(node.value) || alsoQuote(node.value))) node.type = 'QUOTE_DOUBLE';
    },
  });
  return doc.toString({ lineWidth: 0 });
}
