/**
 * Makes text safe to print where a terminal, a CI runner or a log viewer would act on it. A target
 * cluster controls some of what mirrorc prints (an API server's error message, the names a lying
 * API server returns): printed raw, a line of it could be a CI command (`::error::`,
 * `::add-mask::`, `::stop-commands::` of GitHub Actions, `##vso[` of Azure Pipelines), and a control
 * character could recolour, hide or overwrite what the operator reads (ESC sequences, CR, bidi
 * overrides).
 *
 * Two layers (docs/safety/boundary-validation.md): {@link targetText} where a target's text enters
 * a message, and {@link printableText} on every line that leaves the process (src/util/print.ts,
 * the run log, the plan, the job summary), so that a message that missed the first layer is still
 * safe. JSON keeps exact values: {@link printableJson} only changes how the characters are written.
 * Both layers are idempotent: text that passed once passes unchanged.
 */

/**
 * Characters escaped everywhere: C0 controls (ESC, CR, LF, BEL, backspace...), DEL, C1 controls
 * (a terminal may read U+009B as CSI), zero-width characters, bidi marks, embeddings, overrides and
 * isolates (which reorder what is shown), the Unicode line and paragraph separators and U+FEFF.
 */
const UNSAFE = /[\u0000-\u001f\u007f-\u009f\u061c\u200b-\u200f\u2028-\u202e\u2060-\u2069\ufeff]/g;

/** {@link UNSAFE} without TAB, for whole lines (a tab in our own output is layout). */
const UNSAFE_IN_LINE = /[\u0000-\u0008\u000a-\u001f\u007f-\u009f\u061c\u200b-\u200f\u2028-\u202e\u2060-\u2069\ufeff]/g;

/** {@link UNSAFE} outside what JSON.stringify escapes itself (C0). */
const UNSAFE_IN_JSON = /[\u007f-\u009f\u061c\u200b-\u200f\u2028-\u202e\u2060-\u2069\ufeff]/g;

/** A GitHub Actions workflow command: a line that starts with `::` once leading white space is trimmed (as the runner does). */
const WORKFLOW_COMMAND = /^(\s*)::/;

/**
 * A bracket command found anywhere in a line: `##[error]` (GitHub's legacy commands, Azure's
 * logging format commands), `##vso[task.setvariable]` (Azure Pipelines), `##teamcity[` (TeamCity).
 */
const BRACKET_COMMAND = /##([A-Za-z]*)\[/g;

const NAMED: Readonly<Record<string, string>> = { '\n': '\\n', '\r': '\\r', '\t': '\\t' };

/** `\n`, `\r`, `\t`, else `\u001b` (JSON's spelling): visible, and no longer the character. */
function escapeChar(c: string): string {
  return NAMED[c] ?? `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`;
}

/** `line` with every CI command it could start neutralised by a backslash: `\::error::`, `##\[error]`, `##vso\[`. */
function neutraliseCommands(line: string): string {
  return line.replace(WORKFLOW_COMMAND, '$1\\::').replace(BRACKET_COMMAND, '##$1\\[');
}

/**
 * One value a target controls (an API server's message, a name it returned), made safe to put into
 * a message: every control, zero-width, bidi and line-separator character escaped (LF, CR and TAB
 * too: a value never starts a line), and CI commands neutralised.
 */
export function targetText(value: string): string {
  return neutraliseCommands(value.replace(UNSAFE, escapeChar));
}

/** One line about to be printed: controls escaped (but for TAB) and CI commands neutralised. */
export function printableLine(line: string): string {
  return neutraliseCommands(line.replace(UNSAFE_IN_LINE, escapeChar));
}

/** Text about to be printed, line by line ({@link printableLine}); its line breaks stay line breaks. */
export function printableText(text: string): string {
  return text.split('\n').map(printableLine).join('\n');
}

/**
 * JSON text (from JSON.stringify or canonicalJson) that is safe to print: the characters
 * JSON.stringify leaves raw are written as `\uXXXX` escapes, and the `[` of a bracket command as
 * `\u005b`. A JSON reader reads the same values: the report's data stays exact. (`#` occurs in JSON
 * text only inside a string, so only strings change.)
 */
export function printableJson(json: string): string {
  return json.replace(UNSAFE_IN_JSON, escapeChar).replace(BRACKET_COMMAND, '##$1\\u005b');
}
