/**
 * The layering of src/: the CLI parses arguments and prints, nothing else, so no module outside
 * src/cli/ may import one inside it (the pipeline, compile, observe, emit, guard, model... would
 * otherwise depend on the command line). Also: every error a stage throws for a user's mistake
 * carries its exit code as a type.
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { describe, test } from 'node:test';
import { ExitCode } from '../../src/errors/exit-codes.js';
import { MirrorcError } from '../../src/errors/mirrorc-error.js';
import { CompileError } from '../../src/compile/diagnostics.js';
import { UnsafeJournalError } from '../../src/emit/journal-paths.js';
import { RunLockBusyError } from '../../src/emit/run-lock.js';
import { WriteFailedError } from '../../src/emit/write-failure.js';
import { FleetLoadError } from '../../src/load/load-fleet.js';
import { FleetDefinitionError } from '../../src/model/fleet.js';
import { LockFileError } from '../../src/observe/lock-file.js';

const SRC = resolve('src');
const CLI = join(SRC, 'cli') + sep;

/** Every relative module specifier of a TypeScript source text (static imports and re-exports, dynamic imports). */
function importSpecifiers(text: string): string[] {
  const specs: string[] = [];
  for (const m of text.matchAll(/(?:^|[\s;}])(?:import|export)\b[^'"`;]*?\bfrom\s*['"]([^'"]+)['"]/g)) specs.push(m[1]!);
  for (const m of text.matchAll(/(?:^|[\s;])import\s*['"]([^'"]+)['"]/g)) specs.push(m[1]!);
  for (const m of text.matchAll(/\bimport\s*\(\s*['"]([^'"]+)['"]\s*\)/g)) specs.push(m[1]!);
  return specs.filter((s) => s.startsWith('.'));
}

/** `file`'s imports that lead into src/cli/ (as `file -> target`, relative to src/). */
function cliImports(file: string, text: string): string[] {
  return importSpecifiers(text)
    .map((s) => resolve(dirname(file), s))
    .filter((target) => target.startsWith(CLI))
    .map((target) => `${relative(SRC, file)} -> ${relative(SRC, target)}`);
}

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const path = join(dir, e.name);
    if (e.isDirectory()) return sourceFiles(path);
    return e.name.endsWith('.ts') ? [path] : [];
  });
}

describe('layering of src/', () => {
  test('GIVEN every module outside src/cli/ WHEN its imports are scanned THEN none leads into src/cli/', () => {
    const files = sourceFiles(SRC).filter((f) => !f.startsWith(CLI));
    // The scan sees the tree (a scan of nothing would pass whatever the code does).
    assert.ok(files.some((f) => f.endsWith(join('pipeline', 'run-synth.ts'))), 'src/pipeline/run-synth.ts is scanned');
    assert.ok(files.length > 100, `${files.length} modules scanned`);
    const offenders = files.flatMap((f) => cliImports(f, readFileSync(f, 'utf8')));
    assert.deepEqual(offenders, [], `modules outside src/cli/ import the CLI (move what they need out of src/cli/):\n${offenders.join('\n')}`);
  });

  test('GIVEN import forms the scan must catch WHEN a module outside src/cli/ uses them THEN each is reported', () => {
    const file = join(SRC, 'pipeline', 'example.ts');
    const text = [
      "import { ExitCode } from '../cli/exit-codes.js';",
      "import type { Verbosity } from '../cli/run-log.js';",
      "import {\n  a,\n  b,\n} from '../cli/multi-line.js';",
      "export { x } from '../cli/re-export.js';",
      "const m = await import('../cli/dynamic.js');",
      "import '../cli/side-effect.js';",
      "import { fine } from '../emit/write-output.js';",
    ].join('\n');
    assert.deepEqual(cliImports(file, text).map((l) => l.split(' -> ')[1]), [
      'cli/exit-codes.js', 'cli/run-log.js', 'cli/multi-line.js', 'cli/re-export.js', 'cli/side-effect.js', 'cli/dynamic.js',
    ].map((p) => p.split('/').join(sep)));
  });

  test('GIVEN the errors stages throw for a user mistake WHEN the run ends THEN each carries its documented exit code', () => {
    const cases: [MirrorcError, number][] = [
      [new FleetDefinitionError(['x']), ExitCode.INVALID_INPUT],
      [new FleetLoadError('x'), ExitCode.INVALID_INPUT],
      [new LockFileError('l.json', 'is bad'), ExitCode.INVALID_INPUT],
      [new UnsafeJournalError('.dist.txn', ['x']), ExitCode.INVALID_INPUT],
      [new CompileError(['x']), ExitCode.COMPILE_ERROR],
      [new RunLockBusyError('dist', undefined, 0), ExitCode.BUSY],
      [new WriteFailedError('dist/x', 'ENOSPC', 'nothing was changed'), ExitCode.WRITE_FAILED],
    ];
    for (const [error, code] of cases) {
      assert.ok(error instanceof MirrorcError, error.name);
      assert.equal(error.exitCode, code, error.name);
    }
  });
});
