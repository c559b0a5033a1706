/**
 * mirrorc as a new user gets it: `npm pack` → install the tarball into an empty project → `npx mirrorc
 * init` → `npx mirrorc synth --offline`, the library entry from the installed package, its type
 * declarations, and `cdk8s synth` in that project.
 *
 * Offline: npm's cache holds the dependencies' tarballs (`npm ci` put them there) but not the
 * registry's package lists, so the project gets a package-lock.json made from ours (the non-dev
 * entries: exactly what mirrorc and its peers need) and is installed with `npm ci --offline`, as a
 * fleet repository with a lock is in CI. A missing cache entry fails the test; it never skips.
 */
import assert from 'node:assert/strict';
import { spawnSync, type SpawnSyncReturns } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { after, before, test } from 'node:test';
import { readTree } from '../../src/emit/read-tree.js';
import { npmChildEnv } from '../harness/npm-child-env.js';
import { INSTALL_SCRIPT_POLICY } from '../../src/init/scaffold-files.js';

const REPO = resolve('.');
const scratch = mkdtempSync(join(tmpdir(), 'mirrorc-package-'));
const project = join(scratch, 'fleet-repo');
let tarball = '';
/** What `npx mirrorc --help`, `init` and `synth --offline` did in the project (set up once, before every test). */
/** What `npm ci` printed on stderr. */
let installed = '';
let scaffold: { help: SpawnSyncReturns<string>; init: SpawnSyncReturns<string>; synth: SpawnSyncReturns<string> };

function run(command: string, args: readonly string[], cwd: string): SpawnSyncReturns<string> {
  const r = spawnSync(command, args, { cwd, env: npmChildEnv(), encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
  if (r.error) throw r.error;
  return r;
}

function ok(r: SpawnSyncReturns<string>, what: string): string {
  assert.equal(r.status, 0, `${what} failed (exit ${r.status}):\n${r.stdout}\n${r.stderr}`);
  return r.stdout;
}

/** The project's package.json and package-lock.json: mirrorc from the tarball, its peers, and our lock's non-dev entries. */
function writeProject(): void {
  const lock = JSON.parse(readFileSync(join(REPO, 'package-lock.json'), 'utf8')) as { packages: Record<string, { version?: string; dev?: boolean }> };
  const own = JSON.parse(readFileSync(join(REPO, 'package.json'), 'utf8')) as Record<string, unknown> & { version: string; peerDependencies: Record<string, string> };
  const peers = Object.fromEntries(Object.keys(own.peerDependencies).map((name) => [name, lock.packages[`node_modules/${name}`]!.version!]));
  const dependencies = { mirrorc: `file:${tarball}`, ...peers };
  // The install-script policy `mirrorc init` scaffolds (npm 11.19+ reads it).
  const pkg = { name: 'fleet-repo', version: '1.0.0', private: true, dependencies, allowScripts: INSTALL_SCRIPT_POLICY };
  const packages: Record<string, unknown> = {
    '': { name: pkg.name, version: pkg.version, dependencies },
    'node_modules/mirrorc': {
      version: own.version,
      resolved: `file:${tarball}`,
      integrity: `sha512-${createHash('sha512').update(readFileSync(tarball)).digest('base64')}`,
      license: own.license,
      dependencies: own.dependencies,
      peerDependencies: own.peerDependencies,
      bin: own.bin,
      engines: own.engines,
    },
  };
  for (const [path, entry] of Object.entries(lock.packages)) if (path !== '' && !entry.dev) packages[path] = entry;
  mkdirSync(project, { recursive: true });
  writeFileSync(join(project, 'package.json'), `${JSON.stringify(pkg, null, 2)}\n`);
  writeFileSync(join(project, 'package-lock.json'), `${JSON.stringify({ name: pkg.name, version: pkg.version, lockfileVersion: 3, requires: true, packages }, null, 2)}\n`);
}

before(() => {
  // `npm pack` runs the prepare script (npm run build): the tarball holds a fresh lib/.
  const packed = ok(run('npm', ['pack', '--pack-destination', scratch], REPO), 'npm pack').trim().split('\n').pop()!;
  tarball = join(scratch, packed);
  writeProject();
  const install = run('npm', ['ci', '--offline', '--no-audit', '--no-fund'], project);
  ok(install, 'npm ci --offline of the packed mirrorc (are its dependencies in the npm cache? run npm ci in the repository first)');
  installed = install.stderr;
  // Every test but the first works in the scaffolded, synthesised project: it is set up here, not by
  // an earlier test, so each test runs alone too (the second one asserts what these runs did).
  scaffold = {
    help: run('npx', ['--no-install', 'mirrorc', '--help'], project),
    init: run('npx', ['--no-install', 'mirrorc', 'init'], project),
    synth: run('npx', ['--no-install', 'mirrorc', 'synth', '--offline'], project),
  };
});

after(() => rmSync(scratch, { recursive: true, force: true }));

test('the package holds compiled JavaScript, type declarations, the bundled assets and the LICENSE, and no TypeScript source', () => {
  // GIVEN the packed tarball
  // WHEN its file list is read
  const files = ok(run('tar', ['tzf', tarball], scratch), 'tar tzf').split('\n').filter((f) => f !== '');
  // THEN the entry points, their declarations, the stock argocd-cm and the workflow example are in it, and no .ts source
  for (const f of ['package/lib/index.js', 'package/lib/index.d.ts', 'package/lib/cli/main.js', 'package/lib/delivery/argocd-cm.stock.yaml', 'package/examples/github-actions/mirrorc.yml', 'package/LICENSE', 'package/package.json']) {
    assert.ok(files.includes(f), `${f} is not in the package`);
  }
  assert.deepEqual(files.filter((f) => f.endsWith('.ts') && !f.endsWith('.d.ts')), []);
  assert.ok(!files.some((f) => f.startsWith('package/test/') || f.startsWith('package/src/')));
  assert.match(readFileSync(join(project, 'node_modules/mirrorc/lib/cli/main.js'), 'utf8'), /^#!\/usr\/bin\/env node\n/);
});

test('with the scaffolded allowScripts policy npm installs without the install-scripts warning, and esbuild (denied its postinstall) still loads the fleet file', () => {
  // GIVEN the project installed with the policy (in before())
  // THEN npm warned about no install script (npm 11.19+; an older npm has no such warning either)
  assert.doesNotMatch(installed, /install-scripts|allow-scripts|allowScripts/, installed);
  // AND esbuild's launcher was left as shipped (its postinstall did not run), yet synth loaded clusters/fleet.ts through tsx and esbuild's API
  ok(scaffold.synth, 'npx mirrorc synth --offline');
  assert.ok(statSync(join(project, 'node_modules/esbuild/bin/esbuild')).size < 1_000_000, 'esbuild\'s postinstall replaced its launcher by the binary');
});

test('npx mirrorc init, then npx mirrorc synth --offline, writes each cluster folder of the scaffolded fleet', () => {
  // GIVEN the project with mirrorc installed from the tarball
  // WHEN --help is asked, the repository is scaffolded, and synth runs offline (in before())
  const help = ok(scaffold.help, 'npx mirrorc --help');
  ok(scaffold.init, 'npx mirrorc init');
  const synth = scaffold.synth;
  // THEN help lists every command, and synth succeeds with each cluster's reader identity and kustomization
  for (const command of ['synth', 'plan', 'check', 'observe', 'init']) assert.match(help, new RegExp(`^  ${command} `, 'm'));
  ok(synth, 'npx mirrorc synth --offline');
  const expected = ['base/clusterrole-mirrorc-observer.yaml', 'base/clusterrolebinding-mirrorc-observer.yaml', 'base/kustomization.yaml', 'base/mirrorc-system/serviceaccount-mirrorc-observer.yaml', 'base/namespace-mirrorc-system.yaml', 'kustomization.yaml'];
  assert.deepEqual([...readTree(join(project, 'dist')).keys()], [...expected.map((f) => `east/${f}`), ...expected.map((f) => `west/${f}`)]);
  for (const f of ['clusters/fleet.ts', 'clusters/fleet.lock.json', 'cdk8s.yaml', '.github/workflows/mirrorc.yml', 'README.md']) assert.ok(existsSync(join(project, f)), `${f} was not scaffolded`);
  // AND the scaffolded npm scripts run the installed CLI: check finds everything up to date
  ok(run('npm', ['run', 'check', '--', '--offline'], project), 'npm run check -- --offline');
});

test('the installed library gives the same files as the CLI, and its types check a fleet file', () => {
  // GIVEN the synthesised project (before()) and a script that uses the package entry
  ok(scaffold.synth, 'npx mirrorc synth --offline');
  writeFileSync(join(project, 'library.mjs'), [
    "import { App } from 'cdk8s';",
    "import { Cluster, Fleet, Link, readLockFile, synthFleet } from 'mirrorc';",
    'const fleet = new Fleet(new App(), "fleet");',
    'const east = new Cluster(fleet, "east");',
    'const west = new Cluster(fleet, "west");',
    'new Link(fleet, "east-from-west", { source: east, target: west });',
    'new Link(fleet, "west-from-east", { source: west, target: east });',
    'const files = synthFleet({ fleet, snapshot: readLockFile("clusters/fleet.lock.json") });',
    'process.stdout.write(JSON.stringify(Object.fromEntries(files.output)));',
    '',
  ].join('\n'));
  writeFileSync(join(project, 'tsconfig.json'), `${JSON.stringify({ compilerOptions: { module: 'NodeNext', moduleResolution: 'NodeNext', target: 'ES2022', strict: true, noEmit: true, skipLibCheck: true, types: [] }, include: ['clusters/*.ts'] })}\n`);
  // WHEN the script runs, and TypeScript checks clusters/fleet.ts against the installed declarations
  const output = JSON.parse(ok(run(process.execPath, ['library.mjs'], project), 'the library script')) as Record<string, string>;
  const tsc = run(process.execPath, [join(REPO, 'node_modules/typescript/bin/tsc'), '-p', 'tsconfig.json'], project);
  // THEN the library's files are the CLI's, and the fleet file type-checks
  assert.deepEqual(new Map(Object.entries(output)), readTree(join(project, 'dist')));
  ok(tsc, 'tsc against the installed type declarations');
});

test('cdk8s synth in the scaffolded project writes the same dist/', () => {
  // GIVEN the synthesised project (before()), its dist/ moved away
  ok(scaffold.synth, 'npx mirrorc synth --offline');
  const committed = readTree(join(project, 'dist'));
  assert.ok(committed.size > 0, 'synth wrote no dist/');
  renameSync(join(project, 'dist'), join(scratch, 'dist-by-mirrorc'));
  try {
    // WHEN cdk8s-cli runs its cdk8s.yaml
    ok(run(join(REPO, 'node_modules/.bin/cdk8s'), ['synth'], project), 'cdk8s synth');
    // THEN dist/ is back, byte for byte, and cdk8s's own output folder is an empty scratch folder
    assert.deepEqual(readTree(join(project, 'dist')), committed);
    assert.deepEqual(readdirSync(join(project, '.cdk8s.out')), []);
  } finally {
    // (the other tests find the project as before() left it, whatever happened here)
    rmSync(join(project, 'dist'), { recursive: true, force: true });
    renameSync(join(scratch, 'dist-by-mirrorc'), join(project, 'dist'));
  }
});
