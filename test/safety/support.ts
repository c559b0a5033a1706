/**
 * Shared steps of the safety suite (fault and hostile-input cases). Every case asserts the same
 * four things: what `dist/` and the lock hold afterwards (the old or the new complete tree, by
 * hash), the exit code, the message, and the `--report` file.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

/** The repository root (where package.json lives). */
export const REPO_ROOT = resolve(import.meta.dirname, '..', '..');
/** `import ... from` this URL in a generated fleet file to reach mirrorc's constructs. */
export const MIRRORC_INDEX_URL = pathToFileURL(join(REPO_ROOT, 'src', 'index.ts')).href;
const CLI = join(REPO_ROOT, 'src', 'cli', 'main.ts');
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

/** A hash of the output tree and the lock file together: equal hashes, byte-identical state. */
export function stateHash(outDir: string, lockFile: string): string {
  const h = createHash('sha256');
  for (const [path, bytes] of readFiles(outDir)) h.update(`${path}\0${bytes.length}\0`).update(bytes);
  h.update('\0LOCK\0');
  if (existsSync(lockFile)) h.update(readFileSync(lockFile));
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

  /** Writes the fleet file; `body` is the function body, with `fleet`, `Cluster`, `Link`, `ExplicitExport` in scope. */
  public writeFleet(body: string): void {
    const text = `import { Cluster, ExplicitExport, Link, type Fleet } from ${JSON.stringify(MIRRORC_INDEX_URL)};\n` +
      `export default function defineFleet(fleet: Fleet): void {\n${body}\n}\n`;
    this.writeFile('clusters/fleet.ts', text);
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

  /** Runs the CLI in this repository (cwd = the repo), with `--report` added unless `report: false`. */
  public run(args: readonly string[], options: { env?: Record<string, string>; report?: boolean } = {}): Promise<CliRun> {
    rmSync(this.reportFile, { force: true });
    const full = [...args, ...(options.report === false ? [] : ['--report', this.reportFile])];
    return runCli(full, this.dir, options.env ?? {}).then((r) => ({
      ...r,
      report: existsSync(this.reportFile) ? JSON.parse(readFileSync(this.reportFile, 'utf8')) : undefined,
    }));
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
  return new Promise((resolvePromise, reject) => {
    const child = spawn(process.execPath, ['--import', TSX_LOADER, CLI, ...args], {
      cwd,
      env: { ...process.env, NODE_OPTIONS: '', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.on('error', reject);
    child.on('close', (code) => resolvePromise({ code, stdout, stderr }));
  });
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
