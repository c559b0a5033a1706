/**
 * Runs the jobs of an example GitHub Actions workflow locally, step by step, as far as they do not
 * need GitHub: `run:` steps execute in bash with `${{ matrix.* }}` substituted, and `npm` is a shim
 * that runs mirrorc's CLI from this checkout (`npm run <script> -- args` -> `mirrorc <script> args`;
 * `npm ci` does nothing). Of the actions, checkout copies the fleet repository, setup-node does
 * nothing, and upload/download-artifact copy files through a local artifact store with the same
 * path rules (an upload keeps paths relative to the least common ancestor of its paths; a download
 * by `pattern` puts each artifact in its own folder under `path`).
 */
import { spawnSync } from 'node:child_process';
import { chmodSync, cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative, resolve } from 'node:path';
import YAML from 'yaml';

const REPO_ROOT = resolve(import.meta.dirname, '..', '..', '..');
const CLI = join(REPO_ROOT, 'src', 'cli', 'main.ts');
const TSX_LOADER = import.meta.resolve('tsx');

interface Step { name?: string; uses?: string; run?: string; with?: Record<string, string> }
interface Job { steps: Step[]; strategy?: { matrix?: Record<string, unknown[]> } }

/** A step's outcome. */
export interface StepRun { readonly step: string; readonly code: number; readonly output: string }

export class WorkflowRunner {
  private readonly root = mkdtempSync(join(tmpdir(), 'mirrorc-workflow-'));
  private readonly artifacts = join(this.root, 'artifacts');
  private readonly bin = join(this.root, 'bin');
  private readonly jobs: Record<string, Job>;
  private workspaces = 0;

  /** `repo`: the fleet repository that checkout copies. */
  constructor(workflowText: string, private readonly repo: string) {
    this.jobs = (YAML.parse(workflowText) as { jobs: Record<string, Job> }).jobs;
    mkdirSync(this.artifacts, { recursive: true });
    mkdirSync(this.bin, { recursive: true });
    writeFileSync(join(this.bin, 'npm'), [
      '#!/usr/bin/env bash',
      '[ "$1" = ci ] && exit 0',
      '[ "$1" = run ] || { echo "npm shim: only npm ci and npm run" >&2; exit 99; }',
      'script=$2; shift 2; [ "${1:-}" = -- ] && shift',
      `exec "${process.execPath}" --import "${TSX_LOADER}" "${CLI}" "$script" "$@"`,
    ].join('\n') + '\n');
    chmodSync(join(this.bin, 'npm'), 0o755);
  }

  /** The matrix values of `job`'s `key`. */
  matrix(job: string, key: string): string[] {
    return (this.jobs[job]?.strategy?.matrix?.[key] ?? []).map(String);
  }

  /** Puts `files` (relative to `from`) into the artifact store as `name`, as an earlier job would have. */
  seedArtifact(name: string, from: string, files: readonly string[]): void {
    for (const f of files) cpSync(join(from, f), join(this.artifacts, name, f), { recursive: true });
  }

  /**
   * Runs `job`'s steps in a fresh workspace until one fails or the step named `until` (not run).
   * Returns the workspace and every step's outcome.
   */
  runJob(job: string, options: { matrix?: Record<string, string>; until?: string } = {}): { workspace: string; steps: StepRun[] } {
    const spec = this.jobs[job];
    if (!spec) throw new Error(`no job ${job}`);
    const workspace = join(this.root, `ws-${++this.workspaces}`);
    mkdirSync(workspace);
    const steps: StepRun[] = [];
    for (const step of spec.steps) {
      const label = step.name ?? step.uses ?? step.run ?? '?';
      if (options.until !== undefined && step.name === options.until) break;
      const result = this.runStep(step, workspace, options.matrix ?? {});
      steps.push({ step: label, ...result });
      if (result.code !== 0) break;
    }
    return { workspace, steps };
  }

  remove(): void {
    rmSync(this.root, { recursive: true, force: true });
  }

  private runStep(raw: Step, ws: string, matrix: Record<string, string>): { code: number; output: string } {
    const sub = (text: string): string => text.replace(/\$\{\{\s*matrix\.(\w+)\s*\}\}/g, (_m, k: string) => matrix[k] ?? '');
    const step: Step = { ...raw, ...(raw.with ? { with: Object.fromEntries(Object.entries(raw.with).map(([k, v]) => [k, sub(String(v))])) } : {}) };
    const action = step.uses?.replace(/@.*$/, '');
    if (action === 'actions/checkout') {
      cpSync(this.repo, ws, { recursive: true });
      return { code: 0, output: 'checked out' };
    }
    if (action === 'actions/setup-node') return { code: 0, output: 'node from this machine' };
    if (action === 'actions/upload-artifact') {
      const paths = String(step.with?.path ?? '').split('\n').map((p) => p.trim()).filter((p) => p !== '');
      const existing = paths.map((p) => join(ws, p)).filter((p) => existsSync(p));
      if (existing.length === 0) return { code: step.with?.['if-no-files-found'] === 'error' ? 1 : 0, output: 'no files' };
      const base = existing.length === 1 ? existing[0]! : leastCommonAncestor(existing);
      const dest = join(this.artifacts, step.with!.name!);
      for (const p of existing) cpSync(p, join(dest, relative(base, p)), { recursive: true });
      return { code: 0, output: `uploaded ${step.with!.name}` };
    }
    if (action === 'actions/download-artifact') {
      const into = join(ws, step.with?.path ?? '.');
      if (step.with?.name) {
        cpSync(join(this.artifacts, step.with.name), into, { recursive: true });
      } else {
        const re = new RegExp(`^${String(step.with?.pattern).replace(/[.+^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '.*')}$`);
        for (const name of readdirSync(this.artifacts).filter((n) => re.test(n))) cpSync(join(this.artifacts, name), join(into, name), { recursive: true });
      }
      return { code: 0, output: 'downloaded' };
    }
    if (step.run !== undefined) {
      const script = sub(step.run);
      if (/\$\{\{/.test(script)) throw new Error(`step "${step.name ?? script}" uses an expression this runner cannot evaluate`);
      const r = spawnSync('bash', ['-eo', 'pipefail', '-c', script], {
        cwd: ws, encoding: 'utf8',
        env: { ...process.env, PATH: `${this.bin}:${process.env.PATH}`, NODE_OPTIONS: '', GITHUB_STEP_SUMMARY: '' },
      });
      return { code: r.status ?? 1, output: `${r.stdout}${r.stderr}` };
    }
    throw new Error(`unsupported step ${JSON.stringify(step)}`);
  }
}

function leastCommonAncestor(paths: readonly string[]): string {
  let base = dirname(paths[0]!);
  while (!paths.every((p) => p.startsWith(`${base}/`))) base = dirname(base);
  return base;
}
