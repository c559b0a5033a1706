/**
 * mirrorc installed like any npm tool, through a real npm registry started here (verdaccio on
 * 127.0.0.1, no uplink, see support/local-registry.ts): `npm publish` there; then in an empty
 * repository `npm install mirrorc`, `npx --no-install mirrorc init`, commit; a fresh `git clone`,
 * `npm ci`, `npx --no-install mirrorc synth --offline`. The user's steps run with an empty npm cache
 * and no user .npmrc, so every package comes from that registry; the lock they write proves it.
 * The same with the tarball vendored inside the repository (for teams without a registry).
 *
 * mirrorc's dependencies get into the registry from npm's cache (where `npm ci` of this repository
 * put them): a dependency missing there fails the test, it never skips.
 */
import assert from 'node:assert/strict';
import { spawnSync, type SpawnSyncReturns } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { after, before, test } from 'node:test';
import { readTree } from '../../src/emit/read-tree.js';
import { observationRules } from '../../src/observe/observation-rbac.js';
import { kubeFleetForTests } from '../harness/kube-fleet.js';
import { applyService, ensureNamespace, installGateway } from './support.js';
import { lockedClosure, publishFromNpmCache, startLocalRegistry, type LocalRegistry } from './support/local-registry.js';

const REPO = resolve('.');
const own = JSON.parse(readFileSync(join(REPO, 'package.json'), 'utf8')) as { version: string; dependencies: Record<string, string>; peerDependencies: Record<string, string> };
const scratch = mkdtempSync(join(tmpdir(), 'mirrorc-registry-'));
let registry: LocalRegistry | undefined;

/** npm's environment for a user of the registry: none of this `npm test`'s npm_* variables, no user .npmrc, an empty cache. */
function userEnv(): NodeJS.ProcessEnv {
  const userConfig = join(scratch, 'user.npmrc');
  if (!existsSync(userConfig)) writeFileSync(userConfig, '');
  return {
    ...Object.fromEntries(Object.entries(process.env).filter(([k]) => !/^npm_/i.test(k))),
    npm_config_userconfig: userConfig,
    npm_config_cache: join(scratch, 'user-npm-cache'),
    npm_config_update_notifier: 'false',
    npm_config_audit: 'false',
    npm_config_fund: 'false',
  };
}

function run(command: string, args: readonly string[], cwd: string, env: NodeJS.ProcessEnv = userEnv()): SpawnSyncReturns<string> {
  const r = spawnSync(command, args, { cwd, env, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
  if (r.error) throw r.error;
  return r;
}

function ok(r: SpawnSyncReturns<string>, what: string): string {
  assert.equal(r.status, 0, `${what} failed (exit ${r.status}):\n${r.stdout}\n${r.stderr}${registry ? `\nverdaccio:\n${registry.output()}` : ''}`);
  return r.stdout;
}

const git = (cwd: string, ...args: string[]): string => ok(run('git', ['-c', 'user.name=fleet', '-c', 'user.email=fleet@example.invalid', '-c', 'init.defaultBranch=main', ...args], cwd), `git ${args.join(' ')}`);

/** A new empty repository whose .npmrc names the local registry (committed, as a team's private registry would be). */
function emptyRepo(name: string): string {
  const dir = join(scratch, name);
  mkdirSync(dir);
  git(dir, 'init', '-q');
  writeFileSync(join(dir, '.npmrc'), `registry=${registry!.url}\n`);
  return dir;
}

/** Every package the repository's lock resolved came from the local registry (or is mirrorc's vendored tarball). */
function assertFromLocalRegistry(repo: string): void {
  const lock = JSON.parse(readFileSync(join(repo, 'package-lock.json'), 'utf8')) as { packages: Record<string, { resolved?: string; inBundle?: boolean; link?: boolean }> };
  const foreign = Object.entries(lock.packages).filter(([path, p]) => path !== '' && !p.inBundle && !p.link && !(p.resolved ?? '').startsWith(registry!.url) && !(p.resolved ?? '').startsWith('file:vendor/'));
  assert.deepEqual(foreign.map(([path, p]) => `${path} ${p.resolved}`), [], 'packages resolved from elsewhere than the local registry');
}

const EXPECTED_DIST = ['base/clusterrole-mirrorc-observer.yaml', 'base/clusterrolebinding-mirrorc-observer.yaml', 'base/kustomization.yaml', 'base/mirrorc-system/serviceaccount-mirrorc-observer.yaml', 'base/namespace-mirrorc-system.yaml', 'kustomization.yaml'];

before(async () => {
  // GIVEN a registry holding mirrorc's dependencies and peers (from npm's cache) and mirrorc, published with npm publish
  registry = await startLocalRegistry(join(scratch, 'registry'));
  const packages = lockedClosure(join(REPO, 'package-lock.json'), Object.keys({ ...own.dependencies, ...own.peerDependencies }));
  const npmCache = ok(run('npm', ['config', 'get', 'cache'], REPO, { ...process.env }), 'npm config get cache').trim();
  const { notCached } = await publishFromNpmCache(registry, packages, npmCache);
  assert.deepEqual(notCached, [], 'these dependencies of mirrorc are not in the npm cache: run "npm ci" in this repository first');
  const publisher = join(scratch, 'publisher.npmrc');
  writeFileSync(publisher, `registry=${registry.url}\n//${new URL(registry.url).host}/:_authToken=${registry.token}\n`, { mode: 0o600 });
  // `npm publish` runs the prepare script (npm run build): the package holds a fresh lib/.
  ok(run('npm', ['publish', '--userconfig', publisher, '--registry', registry.url], REPO, { ...userEnv(), npm_config_userconfig: publisher }), 'npm publish to the local registry');
});

after(async () => {
  await registry?.stop();
  rmSync(scratch, { recursive: true, force: true });
});

test('empty repository → npm install mirrorc → npx mirrorc init → synth; a fresh clone → npm ci → npx mirrorc synth --offline, all from the local registry (the README\'s steps)', (t) => {
  const started = Date.now();
  // WHEN a platform engineer starts a fleet repository as the README says
  const repo = emptyRepo('fleet-repo');
  ok(run('npm', ['init', '-y'], repo), 'npm init -y');
  ok(run('npm', ['install', 'mirrorc'], repo), 'npm install mirrorc');
  ok(run('npx', ['--no-install', 'mirrorc', 'init'], repo), 'npx --no-install mirrorc init');
  ok(run('npm', ['run', 'synth', '--', '--offline'], repo), 'npm run synth -- --offline');
  t.diagnostic(`empty repository to first synth through the local registry: ${((Date.now() - started) / 1000).toFixed(1)} s`);
  git(repo, 'add', '-A');
  git(repo, 'commit', '-qm', 'fleet repository');
  // AND CI checks it out afresh, installs from the lock and compiles
  const clone = join(scratch, 'ci-checkout');
  git(scratch, 'clone', '-q', repo, clone);
  ok(run('npm', ['ci'], clone), 'npm ci in a fresh clone');
  rmSync(join(clone, 'dist'), { recursive: true });
  ok(run('npx', ['--no-install', 'mirrorc', 'synth', '--offline'], clone), 'npx --no-install mirrorc synth --offline');
  // THEN mirrorc is a registry dependency by a semver range, every package came from the local registry, and dist/ has each cluster's files, as committed
  const pkg = JSON.parse(readFileSync(join(clone, 'package.json'), 'utf8')) as { dependencies: Record<string, string>; scripts: Record<string, string> };
  assert.equal(pkg.dependencies.mirrorc, `^${own.version}`);
  assert.equal(pkg.scripts.synth, 'mirrorc synth');
  assertFromLocalRegistry(clone);
  assert.deepEqual([...readTree(join(clone, 'dist')).keys()], [...EXPECTED_DIST.map((f) => `east/${f}`), ...EXPECTED_DIST.map((f) => `west/${f}`)]);
  assert.deepEqual(readTree(join(clone, 'dist')), readTree(join(repo, 'dist')));
  // AND the npm scripts run the installed CLI: check is clean; npm's swallowed --offline is refused with the right command
  ok(run('npm', ['run', 'check', '--', '--offline'], clone), 'npm run check -- --offline');
  const swallowed = run('npm', ['run', 'synth', '--offline'], clone);
  assert.equal(swallowed.status, 2, `${swallowed.stdout}\n${swallowed.stderr}`);
  assert.match(swallowed.stderr, /npm run synth -- --offline/);
});

test('vendored: the packed tarball committed inside the repository installs in a fresh clone (its dependencies from the registry)', () => {
  // GIVEN a repository with mirrorc's tarball in vendor/, installed from there
  const repo = emptyRepo('vendored-repo');
  mkdirSync(join(repo, 'vendor'));
  const packed = ok(run('npm', ['pack', '--pack-destination', join(repo, 'vendor')], REPO), 'npm pack').trim().split('\n').pop()!;
  ok(run('npm', ['init', '-y'], repo), 'npm init -y');
  ok(run('npm', ['install', `./vendor/${packed}`], repo), `npm install ./vendor/${packed}`);
  ok(run('npx', ['--no-install', 'mirrorc', 'init'], repo), 'npx --no-install mirrorc init');
  git(repo, 'add', '-A');
  git(repo, 'commit', '-qm', 'fleet repository, mirrorc vendored');
  // WHEN CI clones and installs it
  const clone = join(scratch, 'vendored-checkout');
  git(scratch, 'clone', '-q', repo, clone);
  ok(run('npm', ['ci'], clone), 'npm ci in a fresh clone of the vendored repository');
  ok(run('npx', ['--no-install', 'mirrorc', 'synth', '--offline'], clone), 'npx --no-install mirrorc synth --offline');
  // THEN the dependency is the path inside the repository, and synth wrote each cluster's files
  const pkg = JSON.parse(readFileSync(join(clone, 'package.json'), 'utf8')) as { dependencies: Record<string, string> };
  assert.equal(pkg.dependencies.mirrorc, `file:vendor/${packed}`);
  assertFromLocalRegistry(clone);
  assert.equal(readTree(join(clone, 'dist')).size, 2 * EXPECTED_DIST.length);
});

test('empty repository to the first live synth of a 3-cluster fleet (real kube-apiservers), mirrorc from the local registry', async (t) => {
  // GIVEN three real clusters: london mirrors paris and rome, which each export a service through a gateway
  const fleet = await kubeFleetForTests(t, ['london', 'paris', 'rome'], { readerRules: observationRules({ source: true, target: true }) });
  if (!fleet) return;
  try {
    await installGateway(fleet, 'paris', '203.0.113.10');
    await installGateway(fleet, 'rome', '198.51.100.30');
    await ensureNamespace(fleet, 'london', 'shop');
    await applyService(fleet, 'paris', 'shop', 'payments', { 'mirror.linkerd.io/exported': 'true' });
    await applyService(fleet, 'rome', 'shop', 'catalog', { 'mirror.linkerd.io/exported': 'true' });
    const started = Date.now();
    // WHEN a fleet repository is made from nothing as the README says, its fleet file names the three clusters, and synth runs live
    const repo = emptyRepo('live-repo');
    ok(run('npm', ['init', '-y'], repo), 'npm init -y');
    ok(run('npm', ['install', 'mirrorc'], repo), 'npm install mirrorc');
    ok(run('npx', ['--no-install', 'mirrorc', 'init'], repo), 'npx --no-install mirrorc init');
    writeFileSync(join(repo, 'clusters/fleet.ts'), [
      "import { Cluster, Link, type Fleet } from 'mirrorc';",
      '',
      'export default function defineFleet(fleet: Fleet): void {',
      "  const london = new Cluster(fleet, 'london');",
      "  new Link(fleet, 'london-from-paris', { source: london, target: new Cluster(fleet, 'paris') });",
      "  new Link(fleet, 'london-from-rome', { source: london, target: new Cluster(fleet, 'rome') });",
      '}',
      '',
    ].join('\n'));
    const synth = run('npm', ['run', 'synth', '--', '--strict', '--kubeconfig', fleet.kubeconfig('reader')], repo);
    t.diagnostic(`empty repository to the first live synth of a 3-cluster fleet through the local registry: ${((Date.now() - started) / 1000).toFixed(1)} s`);
    // THEN it observed every cluster (--strict: none stale) and london has a mirror of each exported service
    ok(synth, 'npm run synth -- --strict (live)');
    const files = [...readTree(join(repo, 'dist')).keys()];
    assert.ok(files.some((f) => f.startsWith('london/from-paris/shop/') && f.includes('payments-paris')), files.join('\n'));
    assert.ok(files.some((f) => f.startsWith('london/from-rome/shop/') && f.includes('catalog-rome')), files.join('\n'));
  } finally {
    await fleet.stop();
  }
});
