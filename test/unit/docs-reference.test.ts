/**
 * The generated reference docs: docs/reference/cli.md is what scripts/cli-reference.ts produces from
 * the command line's own definitions, and the library's API docs (TypeDoc) build without a warning.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { createRequire } from 'node:module';
import { test } from 'node:test';
import { ACCESS_OPTIONS } from '../../src/cli/access-command.js';
import { ExitCode } from '../../src/errors/exit-codes.js';
import { CLI_OPTIONS } from '../../src/cli/options.js';
import { CLI_REFERENCE_FILE, renderCliReference } from '../../scripts/cli-reference.js';
import { CONSTRUCTS, FLEET_REFERENCE_FILE, renderFleetReference, withFleetReference } from '../../scripts/fleet-reference.js';
import * as knownProps from '../../src/model/known-props.js';
import type { PropsShape } from '../../src/model/known-props.js';

test('docs/reference/cli.md is up to date with the CLI definitions (run npm run docs after changing them)', () => {
  const committed = readFileSync(CLI_REFERENCE_FILE, 'utf8');
  assert.equal(committed, renderCliReference(), `${CLI_REFERENCE_FILE} is out of date: run npm run docs and commit it`);
});

test('the CLI reference lists every option the command lines parse and every exit code', () => {
  const text = renderCliReference();
  for (const [name, option] of [...Object.entries(CLI_OPTIONS), ...Object.entries(ACCESS_OPTIONS)]) {
    const short = 'short' in option ? `\`-${option.short}\`, ` : '';
    assert.match(text, new RegExp(`^\\| ${short}\`--${name}\` \\|`, 'm'), `--${name} has no row`);
  }
  for (const [name, code] of Object.entries(ExitCode)) {
    assert.match(text, new RegExp(`^\\| ${code} \\| \`${name}\` \\| \\S`, 'm'), `exit code ${code} has no row with a meaning`);
  }
  // The commands column comes from each command's help: plan and check do not wait for the run lock.
  assert.match(text, /^\| `--wait` \| `<seconds>` \| {2}\| synth, observe \|/m);
});

test('docs/fleet-definition.md\'s props tables are up to date with the props interfaces (run npm run docs after changing them; issue 39)', () => {
  const committed = readFileSync(FLEET_REFERENCE_FILE, 'utf8');
  assert.equal(committed, withFleetReference(committed), `${FLEET_REFERENCE_FILE} is out of date: run npm run docs and commit it`);
});

test('the fleet-definition tables have a row for every prop the fleet file may set (known-props.ts: what validation accepts), StalenessLimit and adoptLinkerdMirrors among them', () => {
  const text = renderFleetReference();
  const shapes = Object.entries(knownProps).filter(([name]) => name.endsWith('_PROPS')) as [string, PropsShape][];
  // One table per construct whose props validation knows.
  assert.equal(shapes.length, CONSTRUCTS.length, `constructs with props: ${shapes.map(([n]) => n).join(', ')}; tables: ${CONSTRUCTS.map((c) => c.construct).join(', ')}`);
  const rows = (shape: PropsShape, prefix: string): string[] => shape.names.flatMap((n) => {
    const nested = shape.nested?.[n];
    // Label selectors are Kubernetes' own type: one row, not expanded.
    const expand = nested !== undefined && !Array.isArray(nested) && !(nested as PropsShape).names.includes('matchLabels');
    return [`${prefix}${n}`, ...(expand ? rows(nested as PropsShape, `${prefix}${n}.`) : [])];
  });
  for (const [constant, shape] of shapes) {
    for (const prop of rows(shape, '')) assert.match(text, new RegExp(`^\\| \`${prop.replace(/\./g, '\\.')}\`\\*? \\|`, 'm'), `${constant}: ${prop} has no row`);
  }
  assert.match(text, /^### `StalenessLimit\(scope, id, props\)`$/m);
  assert.match(text, /^\| `maxStale`\* \|/m);
  assert.match(text, /^\| `adoptLinkerdMirrors` \| `boolean` \| false \|/m);
});

test('the library API docs build with TypeDoc without a warning (typedoc.json treats warnings as errors)', () => {
  const typedoc = join(dirname(createRequire(import.meta.url).resolve('typedoc/package.json')), 'bin', 'typedoc');
  const run = spawnSync(process.execPath, [typedoc, '--emit', 'none'], { encoding: 'utf8' });
  assert.equal(run.status, 0, `typedoc failed:\n${run.stdout}\n${run.stderr}`);
  assert.doesNotMatch(run.stdout + run.stderr, /\[warning\]|\[error\]/);
});
