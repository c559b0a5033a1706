/**
 * Fleet-file errors as a user sees them (src/model/known-props.ts, construct-origin.ts,
 * src/cli/fleet-code-error.ts): small fleet files in a temp folder, run through the CLI there. Every
 * error names file:line:column; an unknown property is named with the closest known one.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { after, before, test } from 'node:test';
import { ExitCode } from '../../src/errors/exit-codes.js';

const INDEX = JSON.stringify(resolve('src/index.ts'));
const MAIN = resolve('src/cli/main.ts');
const TSX = import.meta.resolve('tsx');

let dir: string;
before(() => (dir = mkdtempSync(join(tmpdir(), 'mirrorc-fleet-errors-'))));
after(() => rmSync(dir, { recursive: true, force: true }));

/** Writes `body` (the lines of the default function) as `<name>.ts` and runs `mirrorc plan --offline` on it in the temp folder. */
function planOf(name: string, body: string, topLevel = ''): { status: number | null; stderr: string } {
  // Line 1: the import; line 2: top-level code; line 3: the function; its body starts on line 4.
  writeFileSync(join(dir, `${name}.ts`), `import { Cluster, Link, ExplicitExport } from ${INDEX};\n${topLevel}\nexport default function (fleet: any) {\n${body}\n}\n`);
  const r = spawnSync(process.execPath, ['--import', TSX, MAIN, 'plan', '--offline', '--fleet', `${name}.ts`, '--out', 'out'], { encoding: 'utf8', cwd: dir });
  return { status: r.status, stderr: r.stderr };
}

test('a mistyped property (taget:) is named with the closest known one, at file:line:column, and not reported as "not a Cluster"', () => {
  const r = planOf('typo', [
    "  const a = new Cluster(fleet, 'a');",
    "  const b = new Cluster(fleet, 'b');",
    "  new Link(fleet, 'a-from-b', { source: a, taget: b });",
  ].join('\n'));
  assert.equal(r.status, ExitCode.INVALID_INPUT, r.stderr);
  assert.match(r.stderr, /^ {2}- typo\.ts:6:3: link fleet\/a-from-b: unknown property "taget"; did you mean "target"\?$/m);
  assert.match(r.stderr, /typo\.ts:6:3: link fleet\/a-from-b: it has no target \(the property target is missing\)/);
  assert.doesNotMatch(r.stderr, /not a Cluster/);
});

test('a mistyped nested property is named with its path; an unknown one with no close match lists the known ones', () => {
  const r = planOf('nested', [
    "  const a = new Cluster(fleet, 'a', { gateway: { nme: 'gw' } });",
    "  const b = new Cluster(fleet, 'b');",
    "  new Link(fleet, 'a-from-b', { source: a, target: b, namespaces: { exclude: ['x'], only: ['y'] } });",
  ].join('\n'));
  assert.equal(r.status, ExitCode.INVALID_INPUT, r.stderr);
  assert.match(r.stderr, /nested\.ts:4:13: cluster fleet\/a: unknown property "gateway\.nme"; did you mean "gateway\.name"\?/);
  assert.match(r.stderr, /nested\.ts:6:3: link fleet\/a-from-b: unknown property "namespaces\.only" \(known: include, exclude\)/);
});

test('a TypeError thrown in the fleet definition names file:line:column', () => {
  const r = planOf('type-error', [
    "  const a = new Cluster(fleet, 'a');",
    '  const gateways: any = undefined;',
    "  a.node.addMetadata('x', gateways.primary.port);",
  ].join('\n'));
  assert.equal(r.status, ExitCode.INVALID_INPUT, r.stderr);
  assert.match(r.stderr, /^error: type-error\.ts:6:\d+: TypeError: Cannot read properties of undefined \(reading 'primary'\)$/m);
  assert.doesNotMatch(r.stderr, /^\s+at /m, 'no stack trace');
});

test('a TypeError in the fleet file\'s top-level code names file:line:column', () => {
  const r = planOf('top-level', '', 'const settings: any = null; const port = settings.port;');
  assert.equal(r.status, ExitCode.INVALID_INPUT, r.stderr);
  assert.match(r.stderr, /^error: top-level\.ts:2:\d+: TypeError: Cannot read properties of null \(reading 'port'\)$/m);
});

test('props of the wrong type (a TypeError inside mirrorc) name where the construct was created', () => {
  const r = planOf('wrong-type', [
    "  const a = new Cluster(fleet, 'a');",
    "  const b = new Cluster(fleet, 'b');",
    "  new Link(fleet, 'a-from-b', { source: a, target: b, excludedLabels: 7 });",
  ].join('\n'));
  assert.equal(r.status, ExitCode.INVALID_INPUT, r.stderr);
  assert.match(r.stderr, /wrong-type\.ts:6:3: link fleet\/a-from-b: its properties have the wrong types/);
});

test('every validation problem names file:line:column of its construct', () => {
  const r = planOf('invalid', [
    "  const a = new Cluster(fleet, 'a');",
    "  new Cluster(fleet, 'Upper');",
    "  new ExplicitExport(fleet, 'orphan', { cluster: a, namespace: 'ns', name: 'svc' });",
  ].join('\n'));
  assert.equal(r.status, ExitCode.INVALID_INPUT, r.stderr);
  assert.match(r.stderr, /invalid\.ts:5:3: cluster fleet\/Upper: the cluster name "Upper" is not a DNS label/);
  assert.match(r.stderr, /invalid\.ts:6:3: explicit export fleet\/orphan: no link has "a" as its target/);
});

test('a string where a list of strings belongs is named, not read as its characters', () => {
  const r = planOf('not-a-list', [
    "  const a = new Cluster(fleet, 'a');",
    "  const b = new Cluster(fleet, 'b');",
    "  new Link(fleet, 'a-from-b', { source: a, target: b, namespaces: { include: 'shop' } });",
  ].join('\n'));
  assert.equal(r.status, ExitCode.INVALID_INPUT, r.stderr);
  assert.match(r.stderr, /not-a-list\.ts:6:3: link fleet\/a-from-b: property "namespaces\.include" must be a list of strings, e\.g\. \["shop"\]; got "shop"/);
});
