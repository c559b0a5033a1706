/**
 * mirrorc from an organisation's private registry in CI, as the scaffolded workflow says: the local
 * registry of the install test (verdaccio, support/local-registry.ts) with auth on, so that even an
 * install needs a token. A developer (token in their own .npmrc, as `npm login` leaves it) starts the
 * fleet repository; CI checks it out afresh and installs it the way actions/setup-node does with
 * `registry-url`: an .npmrc outside the checkout (NPM_CONFIG_USERCONFIG) holding
 * `//<host>/:_authToken=${NODE_AUTH_TOKEN}` and `registry=<url>`, the token in NODE_AUTH_TOKEN from
 * the workflow's secret. Without the secret, `npm ci` fails with npm's 401, and installs nothing.
 */
import assert from 'node:assert/strict';
import { spawnSync, type SpawnSyncReturns } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { after, before, test } from 'node:test';
import YAML from 'yaml';
import { readTree } from '../../src/emit/read-tree.js';
import { lockedClosure, publishFromNpmCache, startLocalRegistry, type LocalRegistry } from './support/local-registry.js';

const REPO = resolve('.');
const own = JSON.parse(readFileSync(join(REPO, 'package.json'), 'utf8')) as { dependencies: Record<string, string>; peerDependencies: Record<string, string> };
const scratch = mkdtempSync(join(tmpdir(), 'mirrorc-registry-auth-'));
let registry: LocalRegistry | undefined;
/** The scaffolded workflow's inputs for a private registry. */
const REGISTRY_URL_INPUT = '${{ vars.NPM_REGISTRY_URL }}';
const TOKEN_ENV = '${{ secrets.NPM_TOKEN }}';

/** npm's environment: none of this `npm test`'s npm_* variables, `userconfig` as given, an empty cache of its own. */
function npmEnv(userconfig: string, cache: string, extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !/^(npm_|NODE_AUTH_TOKEN$)/i.test(k)));
  return { ...env, npm_config_userconfig: userconfig, npm_config_cache: join(scratch, cache), npm_config_update_notifier: 'false', npm_config_audit: 'false', npm_config_fund: 'false', ...extra };
}

function run(command: string, args: readonly string[], cwd: string, env: NodeJS.ProcessEnv): SpawnSyncReturns<string> {
  const r = spawnSync(command, args, { cwd, env, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
  if (r.error) throw r.error;
  return r;
}

function ok(r: SpawnSyncReturns<string>, what: string): string {
  assert.equal(r.status, 0, `${what} failed (exit ${r.status}):\n${r.stdout}\n${r.stderr}${registry ? `\nverdaccio:\n${registry.output()}` : ''}`);
  return r.stdout;
}

const git = (cwd: string, ...args: string[]): string => ok(run('git', ['-c', 'user.name=fleet', '-c', 'user.email=fleet@example.invalid', '-c', 'init.defaultBranch=main', ...args], cwd, { ...process.env }), `git ${args.join(' ')}`);

/**
 * What actions/setup-node writes for `registry-url` (src/authutil.ts of actions/setup-node): an .npmrc
 * in RUNNER_TEMP naming the registry and its token by reference, exported as NPM_CONFIG_USERCONFIG.
 */
function setupNodeNpmrc(runnerTemp: string, registryUrl: string): string {
  mkdirSync(runnerTemp, { recursive: true });
  const url = registryUrl.endsWith('/') ? registryUrl : `${registryUrl}/`;
  const file = join(runnerTemp, '.npmrc');
  writeFileSync(file, `${url.replace(/^\w+:/, '')}:_authToken=\${NODE_AUTH_TOKEN}\nregistry=${url}`);
  return file;
}

before(async () => {
  // GIVEN a registry that wants a token for installs too, holding mirrorc's dependencies and mirrorc
  registry = await startLocalRegistry(join(scratch, 'registry'), { requireAuth: true });
  const packages = lockedClosure(join(REPO, 'package-lock.json'), Object.keys({ ...own.dependencies, ...own.peerDependencies }));
  const npmCache = ok(run('npm', ['config', 'get', 'cache'], REPO, { ...process.env }), 'npm config get cache').trim();
  const { notCached } = await publishFromNpmCache(registry, packages, npmCache);
  assert.deepEqual(notCached, [], 'these dependencies of mirrorc are not in the npm cache: run "npm ci" in this repository first');
  const publisher = join(scratch, 'publisher.npmrc');
  writeFileSync(publisher, `registry=${registry.url}\n//${new URL(registry.url).host}/:_authToken=${registry.token}\n`, { mode: 0o600 });
  ok(run('npm', ['publish', '--registry', registry.url], REPO, npmEnv(publisher, 'publisher-cache')), 'npm publish to the local registry');
});

after(async () => {
  await registry?.stop();
  rmSync(scratch, { recursive: true, force: true });
});

test('the scaffolded workflows give every npm ci the registry-url of setup-node and NODE_AUTH_TOKEN from a secret', () => {
  for (const file of ['mirrorc.yml', 'mirrorc-keyless.yml', 'mirrorc-sharded.yml']) {
    type Step = { uses?: string; run?: string; with?: Record<string, unknown>; env?: Record<string, unknown> };
    const jobs = (YAML.parse(readFileSync(join(REPO, 'examples/github-actions', file), 'utf8')) as { jobs: Record<string, { steps: Step[] }> }).jobs;
    let installs = 0;
    for (const [name, job] of Object.entries(jobs)) {
      const setupNode = job.steps.find((s) => s.uses?.startsWith('actions/setup-node@'));
      for (const step of job.steps.filter((s) => /^npm ci\b/.test(s.run ?? ''))) {
        installs++;
        assert.equal(setupNode?.with?.['registry-url'], REGISTRY_URL_INPUT, `${file} ${name}: setup-node's registry-url`);
        assert.equal(step.env?.NODE_AUTH_TOKEN, TOKEN_ENV, `${file} ${name}: npm ci's NODE_AUTH_TOKEN`);
      }
    }
    assert.ok(installs > 0, `${file} runs npm ci`);
  }
});

test('CI installs mirrorc from a registry that needs a token, as setup-node with registry-url does; without the secret npm ci fails with 401', () => {
  const reg = registry!;
  // GIVEN a fleet repository a developer started with their own token (npm login), without a project .npmrc
  const developer = join(scratch, 'developer.npmrc');
  writeFileSync(developer, `registry=${reg.url}\n//${new URL(reg.url).host}/:_authToken=${reg.token}\n`, { mode: 0o600 });
  const repo = join(scratch, 'fleet-repo');
  mkdirSync(repo);
  git(repo, 'init', '-q');
  const dev = npmEnv(developer, 'developer-cache');
  ok(run('npm', ['init', '-y'], repo, dev), 'npm init -y');
  ok(run('npm', ['install', 'mirrorc'], repo, dev), 'npm install mirrorc');
  ok(run('npx', ['--no-install', 'mirrorc', 'init'], repo, dev), 'npx --no-install mirrorc init');
  ok(run('npx', ['--no-install', 'mirrorc', 'synth', '--offline'], repo, dev), 'npx --no-install mirrorc synth --offline');
  git(repo, 'add', '-A');
  git(repo, 'commit', '-qm', 'fleet repository');

  // WHEN CI checks it out and runs npm ci after setup-node with registry-url, NODE_AUTH_TOKEN from the secret
  const ci = join(scratch, 'ci-checkout');
  git(scratch, 'clone', '-q', repo, ci);
  rmSync(join(ci, 'dist'), { recursive: true });
  const userconfig = setupNodeNpmrc(join(scratch, 'runner-temp'), reg.url);
  ok(run('npm', ['ci'], ci, npmEnv(userconfig, 'ci-cache', { NODE_AUTH_TOKEN: reg.token })), 'npm ci with NODE_AUTH_TOKEN');
  ok(run('npx', ['--no-install', 'mirrorc', 'synth', '--offline'], ci, npmEnv(userconfig, 'ci-cache', { NODE_AUTH_TOKEN: reg.token })), 'npx --no-install mirrorc synth --offline');
  // THEN mirrorc came from the registry and compiled what the developer committed
  assert.deepEqual(readTree(join(ci, 'dist')), readTree(join(repo, 'dist')));
  assert.ok(readTree(join(ci, 'dist')).size > 0);

  // WHEN the secret is not set (the step's NODE_AUTH_TOKEN is empty), or holds a wrong token
  for (const [what, token] of [['no secret', ''], ['a wrong token', 'not-a-token']] as const) {
    const bare = join(scratch, `ci-checkout-${token ? 'wrong' : 'none'}`);
    git(scratch, 'clone', '-q', repo, bare);
    const r = run('npm', ['ci'], bare, npmEnv(userconfig, `ci-cache-${token ? 'wrong' : 'none'}`, { NODE_AUTH_TOKEN: token }));
    // THEN npm ci fails with npm's 401 (not a missing package, not a hang) and installs nothing
    assert.notEqual(r.status, 0, `${what}: npm ci succeeded\n${r.stdout}\n${r.stderr}`);
    assert.match(r.stderr, /E401|401 Unauthorized/, `${what}:\n${r.stderr}`);
    assert.equal(existsSync(join(bare, 'node_modules', 'mirrorc')), false, what);
  }
});
