/**
 * The YAML writer of every generated file: strings any YAML reader (1.1, 1.2, Go's) could take for
 * something else are double-quoted, and strings Go's readers would not read back from the yaml
 * library's output are written in escaped one-line double quotes. See docs/safety/metadata-policy.md.
 */
import YAML from 'yaml';

const GO_INT = /^[-+]?(0[bB][01_]+|0[oO][0-7_]+|0[xX][0-9a-fA-F_]+|[0-9][0-9_]*)$/;
const GO_FLOAT = /^[-+]?([0-9][0-9_]*)?\.?[0-9_]*([eE][-+]?[0-9]+)?$/;
/** strconv.ParseInt/ParseUint with base 0 (range aside), as go-yaml tries them. */
const GO_STRCONV_INT = /^[-+]?(0[bB][01]+|0[oO][0-7]+|0[xX][0-9a-fA-F]+|[0-9]+)$/;
/** go-yaml's `yamlStyleFloat` (resolve.go). */
const GO_YAML_STYLE_FLOAT = /^[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?$/;

/**
 * Whether go-yaml (v2 and v3) reads a plain scalar as a number after its own first step: for a scalar
 * starting with a digit or sign it drops every `_` and then tries strconv (`0_x1F` is 31, `5E49_` a float).
 */
function isGoNumberWithoutUnderscores(value: string): boolean {
  if (!/^[-+0-9]/.test(value) || !value.includes('_')) return false;
  const plain = value.replaceAll('_', '');
  return GO_STRCONV_INT.test(plain) || GO_YAML_STYLE_FLOAT.test(plain);
}

/**
 * The plain-scalar patterns of YAML 1.1 (Kubernetes' go-yaml heritage) and 1.2 (go-yaml v3 reads
 * `0o12` as 10), as the yaml library resolves them: a plain scalar matching one is read as a null,
 * bool, int, float or timestamp.
 */
const YAML_TYPE_PATTERNS: readonly RegExp[] = (['1.1', '1.2'] as const).flatMap((version) =>
  new YAML.Document(null, { version }).schema.tags.flatMap((tag) => ('test' in tag && tag.default === true && tag.test ? [tag.test] : [])),
);

/**
 * Plain scalars that would not be read back as one string: a leading blank (space or tab), flow or other
 * indicator; a leading `-`, `?` or `:` block indicator; a document marker; `: ` (a mapping), ` #` (a
 * comment), a trailing blank or colon; a line break (folded into a space). The yaml library itself quotes
 * strings with other control characters.
 */
const PLAIN_STRUCTURE = /^[ \t,[\]{}#&*!|>'"%@`]|^[-?:](?:[ \t]|$)|^(?:---|\.\.\.)(?:[ \t]|$)|:[ \t]|[ \t]#|[ \t:]$|\n/;

/**
 * Strings that the yaml library would write in a form Go's YAML readers (sigs.k8s.io/yaml, go-yaml v2
 * and v3, kustomize's kyaml) do not read back as written: holding DEL or a C1 control character (written
 * raw: go-yaml refuses them, and reads NEL as a line break), U+2028 or U+2029 (line breaks to go-yaml),
 * the BOM, the non-characters U+FFFE/U+FFFF (refused) or an unpaired surrogate; or a line holding only a
 * space (`\n \n`, which the library's line folding of long double-quoted strings corrupts). These are
 * written by {@link goDoubleQuoted}; other control characters the library escapes correctly.
 */
const GO_EXACT_NEEDED = /[\x7f-\x9f\u2028\u2029\ufeff\ufffe\uffff\u{d800}-\u{dfff}]|\n \n/u;

/** Escapes go-yaml reads in double-quoted scalars, for the characters that get a named one. */
const NAMED_ESCAPES: Readonly<Record<string, string>> = {
  '\0': '\\0', '\x07': '\\a', '\b': '\\b', '\t': '\\t', '\n': '\\n', '\v': '\\v', '\f': '\\f', '\r': '\\r',
  '\x1b': '\\e', '"': '\\"', '\\': '\\\\', '\x85': '\\N', '\u2028': '\\L', '\u2029': '\\P',
};

/** A string that cannot be written so that Go's YAML readers (and hence the Kubernetes API) get it back. */
export class UnwritableStringError extends Error {
  constructor(public readonly value: string, public readonly detail: string) {
    super(detail);
    this.name = 'UnwritableStringError';
  }
}

/**
 * `value` as a one-line double-quoted scalar that go-yaml v2 and v3 read back exactly: every
 * control character, NEL, U+2028/U+2029, the BOM and U+FFFE/U+FFFF escaped, everything else as is.
 * Unpaired surrogates have no such form (go-yaml refuses `\\uD800`, UTF-8 cannot hold them): they throw.
 */
export function goDoubleQuoted(value: string): string {
  let out = '"';
  for (const ch of value) {
    const code = ch.codePointAt(0)!;
    const named = NAMED_ESCAPES[ch];
    if (named !== undefined) out += named;
    else if (code < 0x20 || (code >= 0x7f && code <= 0x9f)) out += `\\x${code.toString(16).padStart(2, '0')}`;
    else if (code === 0xfeff || code === 0xfffe || code === 0xffff) out += `\\u${code.toString(16)}`;
    else if (code >= 0xd800 && code <= 0xdfff) {
      throw new UnwritableStringError(value, `holds an unpaired UTF-16 surrogate (U+${code.toString(16).toUpperCase()}), which neither YAML nor the Kubernetes API can carry`);
    } else out += ch;
  }
  return `${out}"`;
}

/** Scalar format that selects {@link GO_EXACT_STRING}. */
const GO_EXACT_FORMAT = 'go-exact';

/** The string tag again, writing the scalars the visitor marks with {@link GO_EXACT_FORMAT} through {@link goDoubleQuoted}. */
const GO_EXACT_STRING = {
  tag: 'tag:yaml.org,2002:str',
  default: true,
  format: GO_EXACT_FORMAT,
  identify: (value: unknown): boolean => typeof value === 'string',
  resolve: (value: string): string => value,
  stringify: (item: { value: unknown }): string => goDoubleQuoted(String(item.value)),
};

/**
 * Whether the plain scalar `value` could be read back as something other than this string by some YAML
 * reader: YAML 1.1 or 1.2, or Go's readers, which parse numbers with strconv (base prefixes 0b/0o/0x in
 * any case, signs, '_' anywhere once dropped) and accept more than either schema.
 */
export function isAmbiguousPlain(value: string): boolean {
  return (
    GO_INT.test(value) || GO_FLOAT.test(value) || isGoNumberWithoutUnderscores(value) ||
    PLAIN_STRUCTURE.test(value) || YAML_TYPE_PATTERNS.some((p) => p.test(value))
  );
}

/**
 * YAML text for `value`: strings that a reader could take for a number, bool, null or structure are
 * double-quoted, and strings holding characters that Go's readers would not read back are written
 * in escaped one-line double quotes (see {@link goDoubleQuoted}).
 *
 * Most objects (maps, lists, whole numbers, booleans and strings of letters, digits and `_./-=+,`)
 * are written by {@link fastStringifyYaml}, which writes exactly what the yaml library writes for
 * them, about 20 times faster; anything else goes through the library ({@link libraryStringifyYaml}).
 */
export function stringifyYaml(value: unknown): string {
  return fastStringifyYaml(value) ?? libraryStringifyYaml(value);
}

/** A string of only these characters, not starting or ending with a space, is written by the fast path. */
const FAST_STRING = /^[A-Za-z0-9_./=+,-](?:[A-Za-z0-9_./=+, -]*[A-Za-z0-9_./=+,-])?$/;

/** Quoting decisions of the fast path, by string (labels and keys repeat across thousands of objects). */
const fastScalarCache = new Map<string, string>();
const FAST_SCALAR_CACHE_LIMIT = 100_000;

/** Strings whose text is not one line wherever it stands (a multi-line or explicit-key form): the whole value goes to the library. */
const MULTI_LINE = '\n';

/**
 * `value` as the yaml library writes it as a mapping key (`asKey`) or as a value in block style, or
 * undefined when that text is not one line (then the whole value goes to the library). Strings of
 * {@link FAST_STRING} characters are decided here; any other string is written once by the library
 * in a one-entry map and its text taken from there (one line does not depend on the indentation).
 */
function fastScalar(value: string, asKey = false): string | undefined {
  const cache = asKey ? fastKeyCache : fastScalarCache;
  const cached = cache.get(value);
  if (cached !== undefined) return cached === MULTI_LINE ? undefined : cached;
  let text: string;
  // (A key longer than 1024 characters is written in the explicit `? key` form by the library.)
  if (FAST_STRING.test(value) && (!asKey || value.length <= 1000)) {
    // These characters need no escape, so the double-quoted form is the string between quotes.
    text = isAmbiguousPlain(value) ? `"${value}"` : value;
  } else {
    text = libraryScalar(value, asKey) ?? MULTI_LINE;
  }
  if (cache.size >= FAST_SCALAR_CACHE_LIMIT) cache.clear();
  cache.set(value, text);
  return text === MULTI_LINE ? undefined : text;
}

/** Quoting decisions of the fast path for mapping keys (a key may be written differently from a value). */
const fastKeyCache = new Map<string, string>();

/** The library's one-line text for the string `value` as a key or a value, or undefined when it is not one line. */
function libraryScalar(value: string, asKey: boolean): string | undefined {
  const text = asKey ? libraryStringifyYaml({ [value]: 0 }) : libraryStringifyYaml({ k: value });
  const [prefix, suffix] = asKey ? ['', ': 0\n'] : ['k: ', '\n'];
  if (!text.startsWith(prefix) || !text.endsWith(suffix)) return undefined;
  const scalar = text.slice(prefix.length, text.length - suffix.length);
  return scalar.includes('\n') || scalar === '' ? undefined : scalar;
}

/** Thrown inside the fast path to hand the whole value to the library. */
const NOT_FAST = Symbol('not fast');

/**
 * The yaml library's text (block style, 2-space indents, sequences indented under their key, line
 * width 0) for a map whose values are maps, lists, whole numbers, booleans, null and
 * {@link FAST_STRING} strings; undefined for anything else (the caller then uses the library).
 * Its equality with {@link libraryStringifyYaml} is tested on fixtures, the example fleet, generated
 * fleets with hostile metadata and random values (test/unit/yaml-writer.test.ts).
 */
export function fastStringifyYaml(value: unknown): string | undefined {
  if (!isPlainMap(value)) return undefined;
  try {
    // (Built by string concatenation: V8 joins the pieces once, when the text is first read.)
    const text = writeMapEntries(value, '');
    return text === '' ? undefined : text;
  } catch (e) {
    if (e === NOT_FAST) return undefined;
    throw e;
  }
}

function isPlainMap(v: unknown): v is Record<string, unknown> {
  if (v === null || typeof v !== 'object' || Array.isArray(v)) return false;
  const proto = Object.getPrototypeOf(v);
  return proto === Object.prototype || proto === null;
}

/** A scalar's text, or undefined when `v` is a map or list; throws {@link NOT_FAST} for anything the fast path does not write. */
function scalarText(v: unknown): string | undefined {
  switch (typeof v) {
    case 'string': {
      const text = fastScalar(v);
      if (text === undefined) throw NOT_FAST;
      return text;
    }
    case 'number':
      if (!Number.isSafeInteger(v) || Object.is(v, -0)) throw NOT_FAST;
      return String(v);
    case 'boolean':
      return v ? 'true' : 'false';
    case 'object':
      if (v === null) return 'null';
      if (Array.isArray(v)) return v.length === 0 ? '[]' : undefined;
      if (!isPlainMap(v)) throw NOT_FAST;
      return hasEntries(v) ? undefined : '{}';
    default:
      throw NOT_FAST;
  }
}

function hasEntries(map: Record<string, unknown>): boolean {
  for (const k in map) if (map[k] !== undefined) return true;
  return false;
}

/** The lines of the entries of a map, each starting with `indent` (the first with `firstPrefix` when given); '' when the map is empty (written as `{}` by the caller). */
function writeMapEntries(map: Record<string, unknown>, indent: string, firstPrefix?: string): string {
  let out = '';
  let first = true;
  for (const key of Object.keys(map)) {
    const v = map[key];
    if (v === undefined) continue;
    const k = fastScalar(key, true);
    if (k === undefined) throw NOT_FAST;
    out += first && firstPrefix !== undefined ? firstPrefix : indent;
    out += k;
    first = false;
    const text = scalarText(v);
    if (text !== undefined) out += `: ${text}\n`;
    else if (Array.isArray(v)) out += `:\n${writeSequence(v, `${indent}  `)}`;
    else out += `:\n${writeMapEntries(v as Record<string, unknown>, `${indent}  `)}`;
  }
  return out;
}

/** The lines of the items of a non-empty list, each `- ` at `indent`. */
function writeSequence(list: readonly unknown[], indent: string): string {
  let out = '';
  for (const item of list) {
    if (item === undefined) throw NOT_FAST;
    const text = scalarText(item);
    if (text !== undefined) out += `${indent}- ${text}\n`;
    else if (Array.isArray(item)) throw NOT_FAST;
    else out += writeMapEntries(item as Record<string, unknown>, `${indent}  `, `${indent}- `);
  }
  return out;
}

/** {@link stringifyYaml} through the yaml library alone: the reference the fast path is tested against. */
export function libraryStringifyYaml(value: unknown): string {
  const doc = new YAML.Document(value, { version: '1.1', aliasDuplicateObjects: false, customTags: [GO_EXACT_STRING] });
  YAML.visit(doc, {
    Scalar(_key, node) {
      if (typeof node.value !== 'string') return;
      if (GO_EXACT_NEEDED.test(node.value)) node.format = GO_EXACT_FORMAT;
      else if (isAmbiguousPlain(node.value)) node.type = 'QUOTE_DOUBLE';
    },
  });
  return doc.toString({ lineWidth: 0 });
}
