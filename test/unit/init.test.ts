/** `mirrorc init`: the scaffold of a fleet repository (its use from an installed package: test/integration/package-install.test.ts). */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import YAML from 'yaml';
import { ExitCode } from '../../src/errors/exit-codes.js';
import { COMMANDS, USAGE } from '../../src/cli/options.js';
import { readTree } from '../../src/emit/read-tree.js';
import { initFleetRepo, InitError } from '../../src/init/init-fleet-repo.js';
import { readLockFile } from '../../src/observe/lock-file.js';
import { emptySnapshot } from '../../src/snapshot/snapshot.js';

function scratch(): string {
  return mkdtempSync(join(tmpdir(), 'mirrorc-init-'));
}

test('init scaffolds the fleet, an empty lock, cdk8s.yaml, package.json scripts, the CI workflow and a README', () => {
  const dir = scratch();
  try {
    // GIVEN an empty folder
    // WHEN it is initialised
    const result = initFleetRepo(join(dir, 'fleet-repo'));
    // THEN every file is created, the lock is the empty snapshot, and the workflow is the shipped example
    const root = join(dir, 'fleet-repo');
    assert.deepEqual([...result.created].sort(), ['.github/mirrorc-publish.sh', '.github/workflows/mirrorc.yml', '.gitignore', 'README.md', 'cdk8s.yaml', 'clusters/fleet.lock.json', 'clusters/fleet.ts', 'package.json']);
    // the workflow's publish step is the shipped script, executable
    assert.equal(readFileSync(join(root, '.github/mirrorc-publish.sh'), 'utf8'), readFileSync('examples/github-actions/mirrorc-publish.sh', 'utf8'));
    assert.equal(statSync(join(root, '.github/mirrorc-publish.sh')).mode & 0o111, 0o111);
    assert.deepEqual(readLockFile(join(root, 'clusters/fleet.lock.json')), emptySnapshot());
    assert.equal(readFileSync(join(root, '.github/workflows/mirrorc.yml'), 'utf8'), readFileSync('examples/github-actions/mirrorc.yml', 'utf8'));
    assert.match(readFileSync(join(root, 'clusters/fleet.ts'), 'utf8'), /from 'mirrorc'/);
    const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
    assert.equal(pkg.name, 'fleet-repo');
    assert.equal(pkg.scripts.synth, 'mirrorc synth');
    const own = JSON.parse(readFileSync('package.json', 'utf8'));
    assert.deepEqual(Object.keys(pkg.dependencies).sort(), ['mirrorc', ...Object.keys(own.peerDependencies)].sort());
    // mirrorc from a registry by a semver range of this version (a file: path outside the repository breaks npm ci)
    assert.equal(pkg.dependencies.mirrorc, `^${own.version}`);
    // npm's install-script policy (issue 39): every package a fleet repository installs with an install
    // script (our lock's non-dev entries) is covered, so npm 11 does not warn on every install
    const lock = JSON.parse(readFileSync('package-lock.json', 'utf8')) as { packages: Record<string, { dev?: boolean; hasInstallScript?: boolean }> };
    const withScripts = Object.entries(lock.packages).filter(([path, e]) => path !== '' && !e.dev && e.hasInstallScript).map(([path]) => path.split('node_modules/').pop()!);
    assert.ok(withScripts.includes('esbuild'), 'esbuild (through tsx) has an install script');
    for (const name of withScripts) assert.equal(pkg.allowScripts?.[name], false, `${name}'s install script is not covered by allowScripts`);
    const cdk8s = YAML.parse(readFileSync(join(root, 'cdk8s.yaml'), 'utf8'));
    assert.equal(cdk8s.app, 'npx --no-install mirrorc synth --offline --out dist');
    assert.notEqual(cdk8s.output, 'dist');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('init keeps every existing file and only adds the npm scripts an existing package.json lacks', () => {
  const dir = scratch();
  try {
    // GIVEN a repository with its own package.json (a synth script of its own) and fleet file
    writeFileSync(join(dir, 'package.json'), '{\n    "name": "mine",\n    "scripts": { "synth": "custom" }\n}\n');
    initFleetRepo(dir);
    writeFileSync(join(dir, 'clusters/fleet.ts'), '// mine\n');
    const before = readTree(dir);
    // WHEN init runs again
    const again = initFleetRepo(dir);
    // THEN nothing changes; the first run kept the user's synth script and indentation and added the others
    assert.deepEqual(again.created, []);
    assert.deepEqual(readTree(dir), before);
    const pkg = JSON.parse(before.get('package.json')!);
    assert.deepEqual(pkg.scripts, { synth: 'custom', plan: 'mirrorc plan', check: 'mirrorc check', observe: 'mirrorc observe' });
    assert.match(before.get('package.json')!, /^ {4}"name"/m);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('init refuses a file as its folder, and a package.json that is not JSON, in plain words', () => {
  const dir = scratch();
  try {
    // GIVEN a file where the folder should be, and a folder with a broken package.json
    writeFileSync(join(dir, 'file'), 'x');
    writeFileSync(join(dir, 'package.json'), '{ broken');
    // WHEN init runs on each
    // THEN it throws InitError naming the problem
    assert.throws(() => initFleetRepo(join(dir, 'file')), (e: unknown) => e instanceof InitError && /is not a folder/.test(e.message));
    assert.throws(() => initFleetRepo(dir), (e: unknown) => e instanceof InitError && /package\.json is not valid JSON/.test(e.message));
    // AND a package.json that is valid JSON but no object (null, a list), or whose scripts are no object, is refused the same way
    for (const text of ['null', '[]', '{ "scripts": null }', '{ "scripts": "x" }']) {
      writeFileSync(join(dir, 'package.json'), text);
      assert.throws(() => initFleetRepo(dir), (e: unknown) => e instanceof InitError && /package\.json is not a package\.json/.test(e.message), text);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('--help lists every command, init included; init with two folders is invalid input', () => {
  // GIVEN the usage text and the CLI
  // WHEN it is shown, and init gets two folders
  const r = spawnSync(process.execPath, ['--import', 'tsx', 'src/cli/main.ts', 'init', 'a', 'b'], { encoding: 'utf8' });
  // THEN each command is described, and the extra folder is refused (exit 2) without writing
  for (const command of [...Object.keys(COMMANDS), 'init']) assert.match(USAGE, new RegExp(`^  ${command} `, 'm'));
  assert.equal(r.status, ExitCode.INVALID_INPUT);
  assert.match(r.stderr, /init takes one folder, not "a b"/);
});

test('nothing the scaffold writes can make npx download mirrorc: npm scripts run the local bin, npx only with --no-install', () => {
  const dir = scratch();
  try {
    // GIVEN a scaffolded repository
    initFleetRepo(dir);
    // WHEN every file it wrote is searched for npx and npm exec calls
    const calls = [...readTree(dir).entries()].flatMap(([file, text]) => [...text.matchAll(/\b(npx|npm exec)\b[^\n`"]*/g)].map((m) => `${file}: ${m[0]}`));
    // THEN each one forbids the download (and there is at least the cdk8s app)
    assert.ok(calls.length > 0);
    for (const call of calls) assert.match(call, /(npx|npm exec) (--no-install|--offline|--no)\b/, call);
    const pkg = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8'));
    for (const script of Object.values(pkg.scripts as Record<string, string>)) assert.match(script, /^mirrorc /);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
