/**
 * Counts what a JSON answer will cost to parse while its bytes arrive, before anything parses it:
 * the values it holds (each becomes an object, array, string or number on the heap), the elements
 * of a list's `items` array, how deep it nests, and its longest string or number. The transport
 * (src/observe/bounded-http.ts) feeds it every chunk and destroys the connection the moment a
 * limit is passed, so an answer that would take more memory than the budget allows is never held
 * whole, never given to `JSON.parse`, and a deadline can stop it between chunks.
 *
 * It is a tokenizer of our own, not a library: no streaming JSON parser is among mirrorc's
 * dependencies, and this needs no parse tree, only counts, with a fixed state (a stack of at most
 * `maxDepth` container kinds, a 30-byte key buffer) whatever the answer. String contents, most of
 * any real answer, are skipped by a tight loop that only looks for a quote or a backslash. It does
 * not check the syntax: `JSON.parse` does, afterwards. It never counts less than `JSON.parse` would
 * build for the part of the answer that is valid JSON (a duplicate key's values count each time,
 * as `JSON.parse` builds each before it keeps the last), and `JSON.parse` builds nothing past the
 * first syntax error.
 */

/** What the scanner refuses above. */
export interface JsonScanLimits {
  /** Elements of the top-level object's `items` array (a list's items). */
  readonly maxItems: number;
  /** Values: objects, arrays, strings, numbers, `true`, `false`, `null` (object keys not counted). */
  readonly maxValues: number;
  /** Containers (objects, arrays) open at once. */
  readonly maxDepth: number;
  /** Bytes of one string (key or value, as sent: escapes count as written) or one number. */
  readonly maxTokenBytes: number;
}

/** Which of {@link JsonScanLimits} an answer passed. */
export type JsonScanLimit = keyof JsonScanLimits;

/** An answer passed one of the scanner's limits. */
export class JsonScanLimitError extends Error {
  constructor(public readonly limit: JsonScanLimit, public readonly value: number) {
    super(`the answer passed ${limit} ${value}`);
    this.name = 'JsonScanLimitError';
  }
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OBJECT = 1;
const ARRAY = 2;
/** The array that is the value of the top-level object's `items`. */
const ITEMS = 3;
/** Longest raw spelling of the key `items` (each letter as a `\uXXXX` escape). */
const MAX_ITEMS_KEY_BYTES = 30;

/** Bytes that end a number or literal: whitespace and the structural characters. */
const ENDS_BARE = new Uint8Array(256);
for (const c of ' \t\r\n,:[]{}"') ENDS_BARE[c.charCodeAt(0)] = 1;

/** Counts one JSON text, chunk by chunk; throws {@link JsonScanLimitError} at the first limit passed. */
export class JsonBudgetScanner {
  /** Values seen so far. */
  public values = 0;
  /** Items of the list seen so far. */
  public items = 0;
  private depth = 0;
  private readonly stack: Uint8Array;
  private expectKey = false;
  private inString = false;
  private stringIsKey = false;
  private inBare = false;
  private tokenBytes = 0;
  /** An odd run of backslashes ended the last chunk inside a string: the next byte is escaped. */
  private escaped = false;
  /** The raw bytes of the key being read at depth 1 (only as many as could spell `items`). */
  private readonly key = new Uint8Array(MAX_ITEMS_KEY_BYTES);
  private keyBytes = 0;
  /** The last key at depth 1 was `items`: an array as its value is the list's items. */
  private itemsKey = false;

  constructor(private readonly limits: JsonScanLimits) {
    this.stack = new Uint8Array(limits.maxDepth + 1);
  }

  /** Scans the next chunk of the answer. @throws JsonScanLimitError */
  public write(chunk: Buffer): void {
    const n = chunk.length;
    let i = 0;
    if (this.inString) i = this.continueString(chunk, 0);
    else if (this.inBare) i = this.continueBare(chunk, 0);
    const stack = this.stack;
    while (i < n) {
      const c = chunk[i]!;
      if (c === QUOTE) {
        const key = this.expectKey;
        this.expectKey = false;
        if (!key) this.value();
        // Most strings end in the chunk they start in, without an escape: skipped here, in one loop.
        let j = i + 1;
        let d = 0;
        while (j < n && (d = chunk[j]!) !== QUOTE && d !== BACKSLASH) j++;
        if (d === QUOTE && j < n && !(key && this.depth === 1)) {
          if (j - i - 1 > this.limits.maxTokenBytes) throw new JsonScanLimitError('maxTokenBytes', this.limits.maxTokenBytes);
          i = j + 1;
          continue;
        }
        this.stringIsKey = key;
        this.keyBytes = 0;
        this.inString = true;
        this.tokenBytes = 0;
        i = this.continueString(chunk, i + 1);
      } else if (c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09 || c === 0x3a /* : */) {
        i++;
      } else if (c === 0x2c /* , */) {
        this.expectKey = this.depth > 0 && stack[this.depth - 1] === OBJECT;
        i++;
      } else if (c === 0x7b /* { */ || c === 0x5b /* [ */) {
        const items = c === 0x5b && this.depth === 1 && this.itemsKey && stack[0] === OBJECT;
        this.value();
        if (this.depth >= this.limits.maxDepth) throw new JsonScanLimitError('maxDepth', this.limits.maxDepth);
        stack[this.depth++] = c === 0x7b ? OBJECT : items ? ITEMS : ARRAY;
        this.expectKey = c === 0x7b;
        i++;
      } else if (c === 0x7d /* } */ || c === 0x5d /* ] */) {
        if (this.depth > 0) this.depth--;
        this.expectKey = false;
        i++;
      } else {
        this.value();
        this.expectKey = false;
        this.inBare = true;
        this.tokenBytes = 0;
        i = this.continueBare(chunk, i);
      }
    }
  }

  /** A value starts (not a key): count it, and as an item when it is an element of the list's items. */
  private value(): void {
    if (++this.values > this.limits.maxValues) throw new JsonScanLimitError('maxValues', this.limits.maxValues);
    if (this.depth === 2 && this.stack[1] === ITEMS && ++this.items > this.limits.maxItems) throw new JsonScanLimitError('maxItems', this.limits.maxItems);
    if (this.depth === 1) this.itemsKey = false;
  }

  /** Skips string bytes from `from` to the closing quote (returns the index after it) or the chunk's end. */
  private continueString(chunk: Buffer, from: number): number {
    const n = chunk.length;
    let i = from;
    if (this.escaped && i < n) {
      this.escaped = false;
      i++;
    }
    for (;;) {
      if (i >= n) {
        // An escape whose second byte is in the next chunk leaves i one past the end.
        this.escaped = i > n;
        this.stringBytes(chunk, from, n);
        return n;
      }
      const c = chunk[i]!;
      if (c === QUOTE) break;
      i += c === BACKSLASH ? 2 : 1;
    }
    this.stringBytes(chunk, from, i);
    this.inString = false;
    if (this.stringIsKey && this.depth === 1) this.itemsKey = this.keyIsItems();
    return i + 1;
  }

  private stringBytes(chunk: Buffer, from: number, to: number): void {
    this.countToken(to - from);
    if (this.stringIsKey && this.depth === 1) this.captureKey(chunk, from, to);
  }

  private captureKey(chunk: Buffer, from: number, to: number): void {
    for (let j = from; j < to && this.keyBytes <= MAX_ITEMS_KEY_BYTES; j++) {
      if (this.keyBytes < MAX_ITEMS_KEY_BYTES) this.key[this.keyBytes] = chunk[j]!;
      this.keyBytes++;
    }
  }

  private keyIsItems(): boolean {
    if (this.keyBytes > MAX_ITEMS_KEY_BYTES) return false;
    const raw = Buffer.from(this.key.buffer, 0, this.keyBytes).toString('latin1');
    if (raw === 'items') return true;
    if (!raw.includes('\\')) return false;
    try {
      return JSON.parse(`"${raw}"`) === 'items';
    } catch {
      return false;
    }
  }

  /** Skips a number or literal from `from` to its end (returns that index) or the chunk's end. */
  private continueBare(chunk: Buffer, from: number): number {
    let i = from;
    while (i < chunk.length && ENDS_BARE[chunk[i]!] === 0) i++;
    this.countToken(i - from);
    if (i < chunk.length) this.inBare = false;
    return i;
  }

  private countToken(bytes: number): void {
    this.tokenBytes += bytes;
    if (this.tokenBytes > this.limits.maxTokenBytes) throw new JsonScanLimitError('maxTokenBytes', this.limits.maxTokenBytes);
  }
}
