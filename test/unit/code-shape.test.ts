/**
 * The shape of the code in the planner, the pipeline and the state (issue 36): no function longer
 * than 80 lines (a long function is split into named steps that say what they do), and no call or
 * `new` with more than 4 positional arguments (more travel as a named, readonly parameter object).
 * Every function-like with a body counts: declarations, methods, accessors, constructors, arrows and
 * function expressions. Lines are counted from the function's first token to its last, inclusive.
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import ts from 'typescript';

const FOLDERS = ['src/pipeline', 'src/compile', 'src/state'];
const MAX_FUNCTION_LINES = 80;
const MAX_POSITIONAL_ARGUMENTS = 4;

/** Every .ts file under `dir`, sorted, recursively. */
function tsFiles(dir: string): string[] {
  return readdirSync(dir)
    .sort()
    .flatMap((name) => {
      const path = join(dir, name);
      if (statSync(path).isDirectory()) return tsFiles(path);
      return path.endsWith('.ts') ? [path] : [];
    });
}

interface Offenders {
  readonly longFunctions: string[];
  readonly wideCalls: string[];
}

/** A readable name of a function-like node, for the failure message. */
function functionName(node: ts.SignatureDeclaration): string {
  const name = node.name;
  if (name !== undefined && (ts.isIdentifier(name) || ts.isPrivateIdentifier(name) || ts.isStringLiteral(name))) return name.text;
  const parent = node.parent;
  if (parent !== undefined && ts.isVariableDeclaration(parent) && ts.isIdentifier(parent.name)) return parent.name.text;
  if (parent !== undefined && ts.isPropertyAssignment(parent) && ts.isIdentifier(parent.name)) return parent.name.text;
  return '<anonymous>';
}

/** The functions over the line limit and the calls over the argument limit in one source file. */
function offendersOf(path: string, into: Offenders): void {
  const source = ts.createSourceFile(path, readFileSync(path, 'utf8'), ts.ScriptTarget.Latest, true);
  const lineOf = (pos: number): number => source.getLineAndCharacterOfPosition(pos).line + 1;
  const visit = (node: ts.Node): void => {
    if (ts.isFunctionLike(node) && 'body' in node && node.body !== undefined) {
      const first = lineOf(node.getStart(source));
      const lines = lineOf(node.getEnd()) - first + 1;
      if (lines > MAX_FUNCTION_LINES) into.longFunctions.push(`${path}:${first} ${functionName(node)} has ${lines} lines`);
    }
    if (ts.isCallExpression(node) || ts.isNewExpression(node)) {
      const count = node.arguments?.length ?? 0;
      if (count > MAX_POSITIONAL_ARGUMENTS) {
        const callee = node.expression.getText(source).replace(/\s+/g, ' ').slice(0, 60);
        into.wideCalls.push(`${path}:${lineOf(node.getStart(source))} ${callee}(...) has ${count} arguments`);
      }
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
}

describe('code shape of src/pipeline, src/compile, src/state', () => {
  const offenders: Offenders = { longFunctions: [], wideCalls: [] };
  const files = FOLDERS.flatMap(tsFiles);
  for (const file of files) offendersOf(file, offenders);

  test('the folders hold TypeScript to check', () => {
    assert.ok(files.length > 20, `found only ${files.length} files`);
  });

  test(`no function is longer than ${MAX_FUNCTION_LINES} lines`, () => {
    assert.deepEqual(offenders.longFunctions, [], `functions over ${MAX_FUNCTION_LINES} lines:\n${offenders.longFunctions.join('\n')}`);
  });

  test(`no call passes more than ${MAX_POSITIONAL_ARGUMENTS} positional arguments`, () => {
    assert.deepEqual(offenders.wideCalls, [], `calls with more than ${MAX_POSITIONAL_ARGUMENTS} arguments:\n${offenders.wideCalls.join('\n')}`);
  });
});
