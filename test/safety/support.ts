/**
 * Shared steps of the safety suite (fault and hostile-input cases). Every case asserts the same
 * four things: what `dist/` and the lock hold afterwards (the old or the new complete tree, by
 * hash), the exit code, the message, and the `--report` file.
 */
import assert from 'node:assert/strict';
import { spawn, spawnSync, type ChildProcess, type SpawnSyncReturns } from 'node:child_process';
import { createHash } from 'node:crypto';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { compiledLibProblem } from '../../scripts/lib-freshness.mjs';
import { committedPath, readCommittedTree } from '../../src/emit/write-transaction.js';
import { perObjectFiles } from '../unit/support/legacy-layout.js';

/** The repository root (where package.json lives). */
export const REPO_ROOT = resolve(import.meta.dirname, '..', '..');
/** `import ... from` this URL in a generated fleet file to reach mirrorc's constructs. */
export const MIRRORC_INDEX_URL = pathToFileURL(join(REPO_ROOT, 'src', 'index.ts')).href;
const CLI = join(REPO_ROOT, 'src', 'cli', 'main.ts');
/** The CLI with a faulting file-system host: `faulting-synth.ts <fault> <args>` (test/fixtures/faulting-host.ts). */
const FAULTING_CLI = join(REPO_ROOT, 'test', 'safety', 'faulting-synth.ts');
/** The compiled CLI (`npm run build`), which the npm scripts run. */
export const COMPILED_CLI = join(REPO_ROOT, 'lib', 'cli', 'main.js');
/** tsx's loader, by URL, so the CLI runs from any working directory. */
const TSX_LOADER = import.meta.resolve('tsx');

/** Every file below `dir` (relative path → bytes), sorted; empty when it does not exist. */
export function readFiles(dir: string): Map<string, Buffer> {
  const files = new Map<string, Buffer>();
  const walk = (rel: string): void => {
    for (const entry of readdirSync(join(dir, rel)).sort()) {
      const relPath = rel ? `${rel}/${entry}` : entry;
      if (statSync(join(dir, relPath)).isDirectory()) walk(relPath);
      else files.set(relPath, readFileSync(join(dir, relPath)));
    }
  };
  if (existsSync(dir)) walk('');
  return files;
}

/**
 * Every object under `dir` (dist/), as text, keyed without the delivery unit folder and by the
 * object's own `<kind>-<name>.yaml` (`london/gw/service-web-paris.yaml`,
 * `london/gw/endpoints-web-paris.yaml`, `london/kustomization.yaml`; the units' kustomization.yaml
 * files left out): a mirror's objects are the documents of one file, named after its Service
 * (src/emit/render-units.ts), and each entry here is one of them (the header and its document).
 */
export function distObjects(dir: string): Map<string, string> {
  const objects = new Map<string, string>();
  for (const [path, bytes] of readFiles(dir)) {
    const [cluster, ...rest] = path.split('/');
    if (rest.length === 2 && rest[1] === 'kustomization.yaml') continue;
    const rel = rest.length > 1 ? rest.slice(1).join('/') : rest.join('/');
    for (const [objectRel, text] of perObjectFiles(rel, bytes.toString('utf8'))) {
      const key = `${cluster}/${objectRel}`;
      if (objects.has(key)) throw new Error(`two files of dist/ hold ${key}`);
      objects.set(key, text);
    }
  }
  return objects;
}

/** A hash of the output tree and the lock file together: equal hashes, byte-identical state. */
export function stateHash(outDir: string, lockFile: string): string {
  const h = createHash('sha256');
  for (const [path, bytes] of readFiles(outDir)) h.update(`${path}\0${bytes.length}\0`).update(bytes);
  h.update('\0LOCK\0');
  if (existsSync(lockFile)) h.update(readFileSync(lockFile));
  else h.update('(none)');
  return h.digest('hex');
}

/** {@link stateHash} of the committed state: what a committed journal of an interrupted run will make of dist/ and the lock. */
export function committedStateHash(outDir: string, lockFile: string): string {
  const h = createHash('sha256');
  for (const [path, text] of readCommittedTree(outDir)) {
    const bytes = Buffer.from(text, 'utf8');
    h.update(`${path}\0${bytes.length}\0`).update(bytes);
  }
  h.update('\0LOCK\0');
  const lock = committedPath(outDir, lockFile);
  if (existsSync(lock)) h.update(readFileSync(lock));
  else h.update('(none)');
  return h.digest('hex');
}

/** What one CLI run did. */
export interface CliRun {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
  /** The parsed `--report` file, or undefined when none was written. */
  readonly report: any;
}

/** A scratch fleet repository: `clusters/fleet.ts`, its lock, `dist/`, a report path. */
export class SafetyRepo {
  public readonly dir = mkdtempSync(join(tmpdir(), 'mirrorc-safety-'));
  public readonly fleetFile = join(this.dir, 'clusters', 'fleet.ts');
  public readonly lockFile = join(this.dir, 'clusters', 'fleet.lock.json');
  public readonly outDir = join(this.dir, 'dist');
  public readonly reportFile = join(this.dir, 'report.json');

  /** Writes the fleet file (or another, `rel`); `body` is the function body, with `fleet`, `Cluster`, `Link`, `ExplicitExport` in scope. */
  public writeFleet(body: string, rel = 'clusters/fleet.ts'): void {
    const text = `import { Cluster, ExplicitExport, Link, type Fleet } from ${JSON.stringify(MIRRORC_INDEX_URL)};\n` +
      `export default function defineFleet(fleet: Fleet): void {\n${body}\n}\n`;
    this.writeFile(rel, text);
  }

  public writeFile(rel: string, text: string): void {
    const abs = join(this.dir, rel);
    rmSync(abs, { force: true });
    mkdirSync(dirname(abs), { recursive: true });
    writeFileSync(abs, text);
  }

  public writeLock(lock: unknown): void {
    this.writeFile('clusters/fleet.lock.json', typeof lock === 'string' ? lock : `${JSON.stringify(lock, null, 2)}\n`);
  }

  /** Hash of dist/ and the lock now. */
  public hash(): string {
    return stateHash(this.outDir, this.lockFile);
  }

  /**
   * Runs the CLI in this repository (cwd = the repo), with `--report` added unless `report: false`
   * (`reportFile`: another report path, e.g. one per concurrent run). `fault`: through a file-system
   * host that fails or crashes at that step (`crash:<step|n>`, `errno:<CODE>:<step|n>`).
   */
  public run(args: readonly string[], options: { env?: Record<string, string>; report?: boolean; reportFile?: string; fault?: string } = {}): Promise<CliRun> {
    const reportFile = options.reportFile ?? this.reportFile;
    rmSync(reportFile, { force: true });
    const full = [...args, ...(options.report === false ? [] : ['--report', reportFile])];
    const cli = options.fault !== undefined ? startProcess([FAULTING_CLI, options.fault, ...full], this.dir, options.env ?? {}).done : runCli(full, this.dir, options.env ?? {});
    return cli.then((r) => ({
      ...r,
      report: existsSync(reportFile) ? JSON.parse(readFileSync(reportFile, 'utf8')) : undefined,
    }));
  }

  /** Hash of the committed state: dist/ and the lock as plan reads them (an interrupted run's committed journal overlaid). */
  public committedHash(): string {
    return committedStateHash(this.outDir, this.lockFile);
  }

  public remove(): void {
    rmSync(this.dir, { recursive: true, force: true });
  }

  /**
   * Makes the repository look like a checkout for `npx cdk8s synth`: the real `cdk8s.yaml`, and
   * `node_modules` and `src` linked to mirrorc's.
   */
  public linkCheckout(): void {
    copyFileSync(join(REPO_ROOT, 'cdk8s.yaml'), join(this.dir, 'cdk8s.yaml'));
    for (const name of ['node_modules', 'src']) symlinkSync(join(REPO_ROOT, name), join(this.dir, name), 'dir');
  }

  /** Runs `npx cdk8s synth` in this repository (after {@link linkCheckout}), without cdk8s-cli's upgrade check (a network call). */
  public runCdk8sSynth(): Promise<Omit<CliRun, 'report'>> {
    return runProcess('npx', ['cdk8s', 'synth'], this.dir, { CDK8S_CHECK_UPGRADE: 'false' });
  }
}

/**
 * Builds `lib/` (`npm run build`'s script) unless it exists and was built from the current `src/`,
 * so that tests of the compiled CLI never skip and never test an old build.
 */
export function ensureCompiledCli(): void {
  if (compiledLibProblem(REPO_ROOT) === undefined) return;
  const build: SpawnSyncReturns<string> = spawnSync(process.execPath, [join(REPO_ROOT, 'scripts', 'build-lib.mjs')], { cwd: REPO_ROOT, encoding: 'utf8', env: { ...process.env, NODE_OPTIONS: '' } });
  assert.equal(build.status, 0, `npm run build failed:\n${build.stdout}${build.stderr}`);
}

/** Runs the compiled CLI (`node lib/cli/main.js <args>`) in `cwd`, collecting its output; never throws for a non-zero exit. */
export function runCompiledCli(args: readonly string[], cwd: string, env: Record<string, string> = {}): Promise<Omit<CliRun, 'report'>> {
  return runProcess(process.execPath, [COMPILED_CLI, ...args], cwd, env);
}

/** Runs a program, collecting its output; never throws for a non-zero exit. */
export function runProcess(program: string, args: readonly string[], cwd: string, env: Record<string, string> = {}): Promise<Omit<CliRun, 'report'>> {
  return new Promise((resolvePromise, reject) => {
    const child = spawn(program, [...args], { cwd, env: { ...process.env, NODE_OPTIONS: '', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.on('error', reject);
    child.on('close', (code) => resolvePromise({ code, stdout, stderr }));
  });
}

/** Runs `mirrorc <args>` as a child process (tsx), collecting its output; never throws for a non-zero exit. */
export function runCli(args: readonly string[], cwd: string, env: Record<string, string> = {}): Promise<Omit<CliRun, 'report'>> {
  return startProcess([CLI, ...args], cwd, env).done.then(({ code, stdout, stderr }) => ({ code, stdout, stderr }));
}

/** A child process started by {@link startProcess}. */
export interface StartedProcess {
  readonly child: ChildProcess;
  /** Resolves when the process has ended: its exit code (null when killed), signal and output. */
  readonly done: Promise<{ code: number | null; signal: NodeJS.Signals | null; stdout: string; stderr: string }>;
  /** Resolves once stdout or stderr (so far) matches `pattern`; rejects if the process ends first. */
  waitForOutput(pattern: RegExp): Promise<string>;
}

/** Starts `node --import tsx <args>` (a .ts script and its arguments); stdin stays open until `child.stdin.end()`. */
export function startProcess(args: readonly string[], cwd: string, env: Record<string, string> = {}): StartedProcess {
  const child = spawn(process.execPath, ['--import', TSX_LOADER, ...args], {
    cwd,
    env: { ...process.env, NODE_OPTIONS: '', ...env },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  let ended = false;
  const waiters: (() => void)[] = [];
  const notify = (): void => { for (const w of [...waiters]) w(); };
  child.stdout!.on('data', (d) => { stdout += d; notify(); });
  child.stderr!.on('data', (d) => { stderr += d; notify(); });
  child.stdin!.on('error', () => {});
  const done = new Promise<{ code: number | null; signal: NodeJS.Signals | null; stdout: string; stderr: string }>((resolvePromise, reject) => {
    child.on('error', reject);
    child.on('close', (code, signal) => { ended = true; notify(); resolvePromise({ code, signal, stdout, stderr }); });
  });
  const waitForOutput = (pattern: RegExp): Promise<string> => new Promise((resolvePromise, reject) => {
    const check = (): void => {
      const m = pattern.exec(stdout) ?? pattern.exec(stderr);
      if (m) { waiters.splice(waiters.indexOf(check), 1); resolvePromise(m[0]); }
      else if (ended) { waiters.splice(waiters.indexOf(check), 1); reject(new Error(`process ended before printing ${pattern}:\n${stdout}\n${stderr}`)); }
    };
    waiters.push(check);
    check();
  });
  return { child, done, waitForOutput };
}

/** A test-only process holding the run lock of `outDir` until `release()` (or `kill()`): deterministic contention, no timing. */
export async function holdRunLock(outDir: string, cwd: string): Promise<{ pid: number; release(): Promise<void>; kill(): Promise<void> }> {
  const p = startProcess([join(REPO_ROOT, 'test', 'safety', 'hold-run-lock.ts'), outDir], cwd);
  await p.waitForOutput(/^held \d+$/m);
  return {
    pid: p.child.pid!,
    release: async () => { p.child.stdin!.end(); await p.done; },
    kill: async () => { p.child.kill('SIGKILL'); await p.done; },
  };
}

/** Asserts the state is exactly one of the given complete states (by hash), naming which it is not. */
export function assertOneOf(actual: string, states: Record<string, string>, context = ''): string {
  const name = Object.entries(states).find(([, h]) => h === actual)?.[0];
  assert.ok(name, `${context}: dist/ and the lock are neither ${Object.keys(states).join(' nor ')} (hash ${actual.slice(0, 12)})`);
  return name!;
}

/** Asserts that no stack trace reached the user. */
export function assertNoStackTrace(output: string): void {
  assert.doesNotMatch(output, /\n\s+at .+:\d+:\d+\)?\n/, `a stack trace was printed:\n${output}`);
}
