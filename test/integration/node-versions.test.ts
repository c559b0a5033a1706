/**
 * mirrorc on every supported Node.js major (20.19+, 22, 24), with Node binaries from the npm
 * registry's `node` package (test/harness/install-node.sh, cached): init, synth of the example fleet,
 * and a scaffolded TypeScript fleet file with and without `"type": "module"` in its package.json
 * (the Node 24 failure "Cannot find module …fleet.ts?namespace=mirrorc-fleet"), each with the packed
 * package as users install it. An older Node (18) gets one line and exit 2, not a stack.
 *
 * The packed package is unpacked into node_modules/mirrorc; its dependencies are this repository's
 * (the same versions, linked). A Node that cannot be installed skips its tests, unless CI=true: then
 * they fail.
 */
import assert from 'node:assert/strict';
import { spawnSync, type SpawnSyncReturns } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { after, before, test } from 'node:test';
import { ExitCode } from '../../src/errors/exit-codes.js';
import { readTree } from '../../src/emit/read-tree.js';

const REPO = resolve('.');
const scratch = mkdtempSync(join(tmpdir(), 'mirrorc-node-versions-'));
const project = join(scratch, 'project');
const MAJORS = [20, 22, 24] as const;
const nodes = new Map<number, string>();
const missing = new Map<number, string>();

function env(): NodeJS.ProcessEnv {
  return Object.fromEntries(Object.entries(process.env).filter(([k]) => !/^npm_/i.test(k)));
}

function run(command: string, args: readonly string[], cwd: string): SpawnSyncReturns<string> {
  const r = spawnSync(command, args, { cwd, env: env(), encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
  if (r.error) throw r.error;
  return r;
}

function ok(r: SpawnSyncReturns<string>, what: string): string {
  assert.equal(r.status, 0, `${what} failed (exit ${r.status}):\n${r.stdout}\n${r.stderr}`);
  return r.stdout;
}

/** The Node binary of `major`: this one when it is that major, else installed from the npm registry. */
function installNode(major: number): void {
  if (Number(process.versions.node.split('.')[0]) === major) {
    nodes.set(major, process.execPath);
    return;
  }
  const r = run('bash', [join(REPO, 'test/harness/install-node.sh'), String(major)], REPO);
  const bin = r.stdout.trim().split('\n').pop() ?? '';
  if (r.status === 0 && existsSync(bin)) nodes.set(major, bin);
  else if (process.env.CI === 'true') assert.fail(`Node ${major} could not be installed from the npm registry (exit ${r.status}):\n${r.stderr}`);
  else missing.set(major, `Node ${major} could not be installed from the npm registry (set CI=true to fail instead): ${r.stderr.slice(-300)}`);
}

before(() => {
  for (const major of [...MAJORS, 18]) installNode(major);
  // The package as published: npm pack (its prepare script builds lib/), unpacked into node_modules/mirrorc.
  const packed = ok(run('npm', ['pack', '--pack-destination', scratch], REPO), 'npm pack').trim().split('\n').pop()!;
  const installed = join(project, 'node_modules', 'mirrorc');
  mkdirSync(installed, { recursive: true });
  ok(run('tar', ['xzf', join(scratch, packed), '-C', installed, '--strip-components=1'], scratch), 'tar xzf');
  for (const dep of readdirSync(join(REPO, 'node_modules'))) {
    if (dep !== 'mirrorc' && dep !== '.bin' && !dep.startsWith('.')) symlinkSync(join(REPO, 'node_modules', dep), join(project, 'node_modules', dep));
  }
});

after(() => rmSync(scratch, { recursive: true, force: true }));

const bin = (): string => join(project, 'node_modules/mirrorc/lib/cli/bin.js');

const EXPECTED = ['east', 'west'];

for (const major of MAJORS) {
  test(`Node ${major}: init, then synth --offline of the scaffolded TypeScript fleet with and without "type": "module"`, (t) => {
    const node = nodes.get(major);
    if (!node) return t.skip(missing.get(major));
    // GIVEN a fleet repository scaffolded by init (an ES module package) and one whose package.json came first, without "type" (CommonJS, as npm init writes it)
    const esm = join(project, `fleet-esm-${major}`);
    const cjs = join(project, `fleet-cjs-${major}`);
    mkdirSync(cjs);
    writeFileSync(join(cjs, 'package.json'), `${JSON.stringify({ name: 'fleet', version: '1.0.0', private: true }, null, 2)}\n`);
    ok(run(node, [bin(), 'init', esm], project), `Node ${major}: mirrorc init`);
    ok(run(node, [bin(), 'init'], cjs), `Node ${major}: mirrorc init in a CommonJS package`);
    // (the CommonJS fleet also imports a TypeScript helper module of its own, as TypeScript files do: './names.js')
    writeFileSync(join(cjs, 'clusters/names.ts'), "export const names: { readonly east: string } = { east: 'east' };\n");
    const fleetTs = readFileSync(join(cjs, 'clusters/fleet.ts'), 'utf8');
    writeFileSync(join(cjs, 'clusters/fleet.ts'), `import { names } from './names.js';\n${fleetTs.replace("new Cluster(fleet, 'east')", 'new Cluster(fleet, names.east)')}`);
    // WHEN synth compiles each from its empty lock on this Node
    const fromEsm = run(node, [bin(), 'synth', '--offline'], esm);
    const fromCjs = run(node, [bin(), 'synth', '--offline'], cjs);
    // THEN both write each cluster's folder, the same files
    ok(fromEsm, `Node ${major}: synth --offline of a "type": "module" fleet`);
    ok(fromCjs, `Node ${major}: synth --offline of a CommonJS-package fleet`);
    assert.deepEqual(readdirSync(join(esm, 'dist')).sort(), EXPECTED);
    assert.deepEqual(readTree(join(cjs, 'dist')), readTree(join(esm, 'dist')));
  });

  test(`Node ${major}: synth --offline of the example fleet reproduces the committed dist/ byte for byte`, (t) => {
    const node = nodes.get(major);
    if (!node) return t.skip(missing.get(major));
    // GIVEN a copy of the example fleet's lock
    const dir = join(scratch, `example-${major}`);
    mkdirSync(dir);
    cpSync(join(REPO, 'clusters/fleet.lock.json'), join(dir, 'fleet.lock.json'));
    // WHEN this repository's compiled CLI compiles it on this Node
    ok(run(node, [join(REPO, 'lib/cli/bin.js'), 'synth', '--offline', '--quiet', '--lock', join(dir, 'fleet.lock.json'), '--out', join(dir, 'dist'), '--new-fleet'], REPO), `Node ${major}: synth of the example fleet`);
    // THEN the output is the committed dist/
    assert.deepEqual(readTree(join(dir, 'dist')), readTree(join(REPO, 'dist')));
  });
}

test('Node 18: the installed mirrorc says in one line which Node it needs, exit 2, no stack', (t) => {
  const node = nodes.get(18);
  if (!node) return t.skip(missing.get(18));
  // GIVEN the installed package WHEN Node 18 runs it
  const r = run(node, [bin(), 'synth', '--offline'], project);
  // THEN one line names the required version and the running one
  assert.equal(r.status, ExitCode.INVALID_INPUT, r.stderr);
  assert.match(r.stderr, /^error: mirrorc needs Node\.js 20\.19 or later .*this is Node\.js 18\.\d+\.\d+/);
  assert.equal(r.stderr.trim().split('\n').length, 1, r.stderr);
  assert.equal(r.stdout, '');
});
