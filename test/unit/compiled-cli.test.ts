/**
 * The compiled CLI (`lib/`, what `npm run synth` and `cdk8s.yaml` run) behaves exactly like the
 * TypeScript sources run through tsx: same output, exit codes, messages and reports, with the
 * user's TypeScript fleet file sharing the compiled model's classes.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { before, describe, test } from 'node:test';
import { V8_FLAGS } from '../../src/cli/v8-flags.js';
import { MIRRORC_INDEX_URL, REPO_ROOT, SafetyRepo, assertNoStackTrace, ensureCompiledCli, runCli, runCompiledCli, runProcess, type CliRun } from '../safety/support.js';

const LOCK = {
  format: 1,
  targets: {
    b: {
      selectors: ['mirror.linkerd.io/exported=remote-discovery', 'mirror.linkerd.io/exported=true'],
      services: [
        { namespace: 'default', name: 'web', labels: { 'mirror.linkerd.io/exported': 'true' }, annotations: {}, type: 'ClusterIP', headless: false, ports: [{ name: 'http', protocol: 'TCP', port: 80 }] },
      ],
      missingExplicitExports: [],
      gateway: { addresses: ['203.0.113.7'], port: 4143, identity: 'gw.example' },
    },
  },
  sources: { a: { namespaces: ['default'], foreignServices: [] } },
};

/** A fleet whose names come from a helper module of its own (imported as .js, as TypeScript files import each other). */
const FLEET = [
  `import { Cluster, Link, type Fleet } from ${JSON.stringify(MIRRORC_INDEX_URL)};`,
  `import { names } from './names.js';`,
  'export default function defineFleet(fleet: Fleet): void {',
  '  const a = new Cluster(fleet, names.source);',
  '  const b = new Cluster(fleet, names.target);',
  "  new Link(fleet, 'a-from-b', { source: a, target: b });",
  '}',
  '',
].join('\n');
const NAMES = "export const names: { source: string; target: string } = { source: 'a', target: 'b' };\n";

/** A scratch repository with the fleet above; `esm`: inside a "type": "module" package, like mirrorc's own clusters/. */
function scratchRepo(fleet: string, esm: boolean): SafetyRepo {
  const repo = new SafetyRepo();
  repo.writeFile('clusters/fleet.ts', fleet);
  repo.writeFile('clusters/names.ts', NAMES);
  repo.writeLock(LOCK);
  if (esm) repo.writeFile('package.json', '{ "type": "module" }\n');
  return repo;
}

/** Runs `args` in two identical repositories, through tsx and compiled; returns both runs and both states. */
async function bothWays(fleet: string, esm: boolean, args: readonly string[]): Promise<{ tsx: CliRun & { hash: string }; compiled: CliRun & { hash: string } }> {
  const runIn = async (runner: typeof runCli): Promise<CliRun & { hash: string }> => {
    const repo = scratchRepo(fleet, esm);
    try {
      const run = await runner([...args, '--report', repo.reportFile], repo.dir);
      const report = existsSync(repo.reportFile) ? JSON.parse(readFileSync(repo.reportFile, 'utf8')) : undefined;
      return { ...run, report, hash: repo.hash() };
    } finally {
      repo.remove();
    }
  };
  return { tsx: await runIn(runCli), compiled: await runIn(runCompiledCli) };
}

before(() => ensureCompiledCli());

describe('the compiled CLI', () => {
  test('GIVEN the compiled CLI WHEN run with --help THEN it prints exactly what the TypeScript sources print, exit 0', async () => {
    const tsx = await runCli(['--help'], REPO_ROOT);
    const compiled = await runCompiledCli(['--help'], REPO_ROOT);
    assert.equal(compiled.code, 0, compiled.stderr);
    assert.equal(compiled.code, tsx.code);
    assert.equal(compiled.stdout, tsx.stdout);
    assert.match(compiled.stdout, /^usage: mirrorc/);
  });

  // CommonJS: what Node makes of a .ts file outside a "type": "module" package (the safety suite's scratch repositories).
  for (const [kind, fleet, esm] of [
    ['an ES module (in a "type": "module" package, like clusters/) importing a helper module', FLEET, true],
    ['CommonJS importing only mirrorc', FLEET.replace("import { names } from './names.js';", "const names = { source: 'a', target: 'b' };"), false],
  ] as const) {
    test(`GIVEN a TypeScript fleet file that is ${kind} WHEN synth --offline runs compiled THEN dist/, the lock, output, exit code and report equal the tsx run`, async () => {
      const { tsx, compiled } = await bothWays(fleet, esm, ['synth', '--offline']);
      assert.equal(tsx.code, 0, tsx.stderr);
      assert.equal(compiled.code, 0, compiled.stderr);
      assertNoStackTrace(compiled.stderr);
      assert.equal(compiled.hash, tsx.hash);
      assert.equal(compiled.stdout, tsx.stdout);
      assert.equal(compiled.stderr, tsx.stderr);
      assert.deepEqual(compiled.report, tsx.report);
      // The fleet's Cluster and Link were recognised: one source with mirrors was compiled.
      assert.match(compiled.stderr, /^a\s+[1-9]\d*\s+0\s+0\s+0$/m);
    });
  }

  // tsx's own `require` registers under a namespace of Date.now(): its transform cache (keyed by the file's URL with the namespace) missed on every run, so esbuild compiled the fleet afresh each time (≈ 0.2 s) and left one more cache file in the temp folder.
  for (const [kind, esm] of [['CommonJS', false], ['an ES module', true]] as const) {
    test(`GIVEN a TypeScript fleet file that is ${kind} WHEN the compiled CLI runs synth --offline twice THEN the second run is served from tsx's transform cache (no new cache file) and writes the same files`, async () => {
      const fleet = FLEET.replace("import { names } from './names.js';", "const names = { source: 'a', target: 'b' };");
      const repo = scratchRepo(fleet, esm);
      const tmp = mkdtempSync(join(tmpdir(), 'mirrorc-tsx-cache-'));
      try {
        const cacheFiles = (): string[] => readdirSync(tmp, { recursive: true, withFileTypes: true }).filter((e) => e.isFile()).map((e) => join(e.parentPath ?? e.path, e.name)).sort();
        const first = await runCompiledCli(['synth', '--offline'], repo.dir, { TMPDIR: tmp });
        assert.equal(first.code, 0, first.stderr);
        const afterFirst = cacheFiles();
        // The first run compiled the fleet file through tsx, which cached it.
        assert.ok(afterFirst.length > 0, 'tsx cached nothing in the temp folder');
        const hash = repo.hash();
        const second = await runCompiledCli(['synth', '--offline'], repo.dir, { TMPDIR: tmp });
        assert.equal(second.code, 0, second.stderr);
        assert.deepEqual(cacheFiles(), afterFirst);
        assert.equal(repo.hash(), hash);
        assert.match(second.stderr, /^a\s+0\s+0\s+0\s+[1-9]\d*$/m);
      } finally {
        repo.remove();
        rmSync(tmp, { recursive: true, force: true });
      }
    });
  }

  // Loaded as the fleet file's own require, tsx compiled every module of lib/ into a second copy (Node 20): 160 modules through esbuild, most of a large fleet's import time.
  for (const [kind, esm] of [['CommonJS', false], ['an ES module', true]] as const) {
    test(`GIVEN a TypeScript fleet file that is ${kind} and checks that its Fleet class is the CLI's WHEN synth --offline runs compiled THEN it passes (one copy of mirrorc), exit 0`, async () => {
      const fleet = FLEET.replace('type Fleet', 'Fleet').replace("import { names } from './names.js';", "const names = { source: 'a', target: 'b' };")
        .replace('(fleet: Fleet): void {', "(fleet: Fleet): void { if (!(fleet instanceof Fleet)) throw new Error('the fleet file loaded a second copy of mirrorc');");
      const repo = scratchRepo(fleet, esm);
      try {
        const run = await runCompiledCli(['synth', '--offline'], repo.dir);
        assert.equal(run.code, 0, run.stderr);
        assert.match(run.stderr, /^a\s+[1-9]\d*\s+0\s+0\s+0$/m);
      } finally {
        repo.remove();
      }
    });
  }

  test('GIVEN a fleet file with a ReferenceError WHEN synth --offline runs compiled THEN the message names the same file, line and column as the tsx run, exit 2, nothing written', async () => {
    const broken = FLEET.replace("new Cluster(fleet, names.target)", 'new Cluster(fleet, nmes.target)');
    const { tsx, compiled } = await bothWays(broken, true, ['synth', '--offline']);
    assert.equal(compiled.code, 2);
    assert.equal(compiled.code, tsx.code);
    assert.match(compiled.stderr, /^error: clusters\/fleet\.ts:5:\d+: ReferenceError: nmes is not defined$/m);
    assert.equal(compiled.stderr, tsx.stderr);
    assertNoStackTrace(compiled.stderr);
    assert.deepEqual(compiled.report, tsx.report);
    assert.equal(compiled.hash, tsx.hash);
  });

  test('GIVEN a CommonJS fleet file (outside a "type": "module" package) with a ReferenceError WHEN synth --offline runs compiled THEN the message names the same file, line and column as the tsx run (it loads through tsx\'s scoped require), exit 2, no stack trace, nothing written', async () => {
    const broken = FLEET.replace("import { names } from './names.js';", "const names = { source: 'a', target: 'b' };").replace('new Cluster(fleet, names.target)', 'new Cluster(fleet, nmes.target)');
    const { tsx, compiled } = await bothWays(broken, false, ['synth', '--offline']);
    assert.equal(compiled.code, 2);
    assert.equal(compiled.code, tsx.code);
    assert.match(tsx.stderr, /^error: clusters\/fleet\.ts:5:\d+: ReferenceError: nmes is not defined$/m);
    assert.equal(compiled.stderr, tsx.stderr);
    assertNoStackTrace(compiled.stderr);
    assert.equal(compiled.report.exitCode, 2);
    assert.equal(compiled.report.error, compiled.stderr.slice('error: '.length, -1));
    assert.equal(compiled.hash, tsx.hash);
  });

  test('GIVEN a fleet file with a syntax error WHEN synth --offline runs compiled THEN the message equals the tsx run\'s, exit 2', async () => {
    const broken = FLEET.replace("new Link(fleet, 'a-from-b', { source: a, target: b });", "new Link(fleet, 'a-from-b', { source: a target: b });");
    const { tsx, compiled } = await bothWays(broken, true, ['synth', '--offline']);
    assert.equal(compiled.code, 2);
    assert.equal(compiled.code, tsx.code);
    assert.equal(compiled.stderr, tsx.stderr);
    assert.match(compiled.stderr, /clusters\/fleet\.ts:\d+:\d+: SyntaxError/);
    assert.deepEqual(compiled.report, tsx.report);
  });

  test('GIVEN lib/ built from other sources than the src/ next to it WHEN npm run synth runs THEN it refuses with exit 2, says to run npm run build, and dist/ and the lock stay as they were', async () => {
    // A copy of the checkout (package.json with its scripts, scripts/, src/, lib/; node_modules linked): it runs; then its src/ changes.
    const checkout = mkdtempSync(join(tmpdir(), 'mirrorc-checkout-'));
    const working = scratchRepo(FLEET, true);
    const refused = scratchRepo(FLEET, true);
    try {
      for (const entry of ['src', 'lib', 'scripts', 'package.json']) cpSync(join(REPO_ROOT, entry), join(checkout, entry), { recursive: true });
      symlinkSync(join(REPO_ROOT, 'node_modules'), join(checkout, 'node_modules'), 'dir');
      const npmSynth = (repo: SafetyRepo): Promise<Omit<CliRun, 'report'>> =>
        runProcess('npm', ['run', '--silent', 'synth', '--', '--offline', '--fleet', repo.fleetFile, '--lock', repo.lockFile, '--out', repo.outDir], checkout);
      const ok = await npmSynth(working);
      assert.equal(ok.code, 0, ok.stderr);

      writeFileSync(join(checkout, 'src', 'util', 'order.ts'), '// edited after the build\n', { flag: 'a' });
      const before = refused.hash();
      const run = await npmSynth(refused);
      assert.equal(run.code, 2);
      assert.equal(run.stderr, 'error: the compiled CLI (lib/) is out of date: lib/ was built from other sources than src/ (src/ changed since `npm run build`); run "npm run build" (npm ci does it too), then run this command again\n');
      assert.equal(refused.hash(), before);
    } finally {
      working.remove();
      refused.remove();
      rmSync(checkout, { recursive: true, force: true });
    }
  });

  test('GIVEN the mirrorc executable (lib/cli/bin.js) and npm run synth WHEN each runs synth THEN the process that loads the fleet and runs the pipeline was started with the V8 flags of v8-flags.ts, and the output is the same', async () => {
    // The fleet file runs in the CLI's own process: it records that process's Node flags.
    const recording = `import { writeFileSync } from 'node:fs';\nwriteFileSync(process.env.MIRRORC_TEST_EXEC_ARGV!, JSON.stringify(process.execArgv));\n${FLEET}`;
    const viaBin = scratchRepo(recording, true);
    const viaNpm = scratchRepo(recording, true);
    try {
      const binArgv = join(viaBin.dir, 'exec-argv.json');
      const bin = await runProcess(process.execPath, [join(REPO_ROOT, 'lib', 'cli', 'bin.js'), 'synth', '--offline'], viaBin.dir, { MIRRORC_TEST_EXEC_ARGV: binArgv });
      assert.equal(bin.code, 0, bin.stderr);
      const npmArgv = join(viaNpm.dir, 'exec-argv.json');
      const npm = await runProcess('npm', ['run', '--silent', 'synth', '--', '--offline', '--fleet', viaNpm.fleetFile, '--lock', viaNpm.lockFile, '--out', viaNpm.outDir], REPO_ROOT, { MIRRORC_TEST_EXEC_ARGV: npmArgv });
      assert.equal(npm.code, 0, npm.stderr);
      for (const file of [binArgv, npmArgv]) {
        const execArgv = JSON.parse(readFileSync(file, 'utf8')) as string[];
        for (const flag of V8_FLAGS) assert.ok(execArgv.includes(flag), `${file}: ${JSON.stringify(execArgv)} lacks ${flag}`);
      }
      assert.deepEqual(readdirSync(viaBin.outDir).sort(), readdirSync(viaNpm.outDir).sort());
    } finally {
      viaBin.remove();
      viaNpm.remove();
    }
  });

  test('GIVEN the mirrorc executable running synth WHEN it is sent SIGTERM THEN the Node process it started for the run ends too, and the executable ends by the same signal', async () => {
    // The fleet file records the pid of the process that loads it, then never finishes loading, so that the signal finds the run under way.
    const hanging = `import { writeFileSync } from 'node:fs';\nwriteFileSync(process.env.MIRRORC_TEST_PID!, String(process.pid));\nsetInterval(() => undefined, 1 << 30);\nawait new Promise(() => undefined);\n${FLEET}`;
    const repo = scratchRepo(hanging, true);
    const pidFile = join(repo.dir, 'pid');
    const executable = spawn(process.execPath, [join(REPO_ROOT, 'lib', 'cli', 'bin.js'), 'synth', '--offline'], { cwd: repo.dir, env: { ...process.env, NODE_OPTIONS: '', MIRRORC_TEST_PID: pidFile }, stdio: 'ignore' });
    const ended = new Promise<NodeJS.Signals | null>((r) => executable.on('close', (_code, signal) => r(signal)));
    const alive = (pid: number): boolean => {
      try {
        process.kill(pid, 0);
        return true;
      } catch {
        return false;
      }
    };
    let runner: number | undefined;
    try {
      for (let i = 0; !existsSync(pidFile) || readFileSync(pidFile, 'utf8') === ''; i++) {
        assert.ok(i < 1200, 'the fleet file was loaded');
        await new Promise((r) => setTimeout(r, 100));
      }
      runner = Number(readFileSync(pidFile, 'utf8'));
      assert.notEqual(runner, executable.pid, 'the run is in a Node process of its own, started with the V8 flags');
      executable.kill('SIGTERM');
      assert.equal(await ended, 'SIGTERM');
      for (let i = 0; alive(runner!); i++) {
        assert.ok(i < 600, `the run's process ${runner} still lives after the executable ended`);
        await new Promise((r) => setTimeout(r, 100));
      }
    } finally {
      executable.kill('SIGKILL');
      if (runner !== undefined && alive(runner)) process.kill(runner, 'SIGKILL');
      repo.remove();
    }
  });

  test('GIVEN a checkout installed without tsx (npm ci --omit=dev) WHEN the compiled CLI loads a TypeScript fleet THEN it says tsx is missing and to run npm ci, exit 2, report written, nothing else', async () => {
    const checkout = mkdtempSync(join(tmpdir(), 'mirrorc-checkout-'));
    const repo = scratchRepo(FLEET, true);
    try {
      for (const dir of ['src', 'lib']) cpSync(join(REPO_ROOT, dir), join(checkout, dir), { recursive: true });
      writeFileSync(join(checkout, 'package.json'), '{ "type": "module" }\n');
      mkdirSync(join(checkout, 'node_modules'));
      for (const name of readdirSync(join(REPO_ROOT, 'node_modules'))) {
        if (name !== 'tsx' && name !== '.bin') symlinkSync(join(REPO_ROOT, 'node_modules', name), join(checkout, 'node_modules', name));
      }
      const before = repo.hash();
      const run = await runProcess(process.execPath, [join(checkout, 'lib', 'cli', 'main.js'), 'synth', '--offline', '--report', repo.reportFile], repo.dir);
      assert.equal(run.code, 2, run.stderr);
      assert.equal(run.stderr, 'error: cannot load clusters/fleet.ts: tsx, which loads TypeScript fleet files, is not installed; reinstall the dependencies ("npm ci")\n');
      assert.equal(JSON.parse(readFileSync(repo.reportFile, 'utf8')).exitCode, 2);
      assert.equal(repo.hash(), before);
    } finally {
      repo.remove();
      rmSync(checkout, { recursive: true, force: true });
    }
  });
});
