/**
 * The only writers of mirrorc's lines to stdout and stderr (a unit test holds every other module to
 * that: test/unit/printable-text.test.ts). Each line has credentials redacted and is made printable
 * (src/util/printable-text.ts): no control characters, no CI commands, whatever text a target put
 * into it and whichever call site forgot to escape it.
 */
import { printableText } from './printable-text.js';
import { redact } from './redact.js';

/** `text` as it may be printed: credentials redacted, then every line made printable; idempotent. */
export function outputText(text: string): string {
  return printableText(redact(text));
}

/** Prints `text` and a line break on stdout. */
export function printOut(text: string): void {
  process.stdout.write(`${outputText(text)}\n`);
}

/** Prints `text` and a line break on stderr. */
export function printErr(text: string): void {
  process.stderr.write(`${outputText(text)}\n`);
}
