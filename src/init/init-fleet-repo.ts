/**
 * `mirrorc init [dir]`: scaffolds a fleet repository. It never overwrites a file: what exists is
 * kept (a package.json only gains the `npm run` scripts it lacks), so running it twice is harmless.
 * The lock it writes is the empty snapshot, so `mirrorc synth --offline` works at once (it writes
 * each cluster's reader RBAC; the first live `synth` observes the clusters).
 */
import { chmodSync, existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { renderLockFile } from '../observe/lock-file.js';
import { emptySnapshot } from '../snapshot/snapshot.js';
import { CDK8S_YAML, FLEET_FILE, FLEET_SCRIPTS, FLEET_TS, GITIGNORE, LOCK_FILE, newPackageJson, PUBLISH_SCRIPT_FILE, README_MD, WORKFLOW_FILE } from './scaffold-files.js';
import { InvalidInputError } from '../errors/mirrorc-error.js';

/** mirrorc's own package.json (two folders up from `src/init/` and from `lib/init/`). */
const OWN_PACKAGE_JSON = new URL('../../package.json', import.meta.url);
/** The example CI workflow, shipped in the package. */
const WORKFLOW_EXAMPLE = new URL('../../examples/github-actions/mirrorc.yml', import.meta.url);
/** The workflow's publish step (pull request or push), shipped in the package. */
const PUBLISH_SCRIPT_EXAMPLE = new URL('../../examples/github-actions/mirrorc-publish.sh', import.meta.url);

/** The target folder cannot be scaffolded. */
export class InitError extends InvalidInputError {
  constructor(message: string) {
    super(message);
    this.name = 'InitError';
  }
}

/** What {@link initFleetRepo} did, one line per file. */
export interface InitResult {
  /** Files written, relative to the folder. */
  readonly created: readonly string[];
  /** Files that existed and were left as they were (package.json: scripts added, if any were missing). */
  readonly kept: readonly string[];
  /** `npm run` scripts added to an existing package.json. */
  readonly scriptsAdded: readonly string[];
  /** mirrorc's own version (the name of its packed tarball: `mirrorc-<version>.tgz`). */
  readonly version: string;
}

/**
 * Scaffolds a fleet repository in `dir` (created when missing).
 * @throws InitError when `dir` is a file, or a package.json there cannot be parsed
 */
export function initFleetRepo(dir: string): InitResult {
  const root = resolve(dir);
  if (existsSync(root) && !statSync(root).isDirectory()) throw new InitError(`${dir} is not a folder; pass the folder of the fleet repository to create or complete`);
  const own = JSON.parse(readFileSync(OWN_PACKAGE_JSON, 'utf8')) as { version: string; peerDependencies?: Record<string, string> };
  const files: [string, () => string][] = [
    [FLEET_FILE, () => FLEET_TS],
    [LOCK_FILE, () => renderLockFile(emptySnapshot())],
    ['cdk8s.yaml', () => CDK8S_YAML],
    [WORKFLOW_FILE, () => readFileSync(WORKFLOW_EXAMPLE, 'utf8')],
    [PUBLISH_SCRIPT_FILE, () => readFileSync(PUBLISH_SCRIPT_EXAMPLE, 'utf8')],
    ['README.md', () => README_MD],
    ['.gitignore', () => GITIGNORE],
  ];
  const created: string[] = [];
  const kept: string[] = [];
  let scriptsAdded: string[] = [];
  try {
    mkdirSync(root, { recursive: true });
    const pkgPath = join(root, 'package.json');
    if (existsSync(pkgPath)) {
      scriptsAdded = addMissingScripts(pkgPath, dir);
      kept.push('package.json');
    } else {
      writeFileSync(pkgPath, newPackageJson(packageName(root), own.version, own.peerDependencies ?? {}));
      created.push('package.json');
    }
    for (const [rel, content] of files) {
      const path = join(root, rel);
      if (existsSync(path)) {
        kept.push(rel);
        continue;
      }
      mkdirSync(dirname(path), { recursive: true });
      writeFileSync(path, content());
      if (rel.endsWith('.sh')) chmodSync(path, 0o755);
      created.push(rel);
    }
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (e instanceof InitError || !code) throw e;
    throw new InitError(`cannot write into ${dir}: ${(e as Error).message}; check the folder's permissions and free space`);
  }
  return { created, kept, scriptsAdded, version: own.version };
}

/** Adds the fleet scripts an existing package.json lacks (an existing script of the same name is kept); returns their names. */
function addMissingScripts(path: string, dir: string): string[] {
  const text = readFileSync(path, 'utf8');
  let pkg: { scripts?: Record<string, string> };
  try {
    pkg = JSON.parse(text) as typeof pkg;
  } catch (e) {
    throw new InitError(`${join(dir, 'package.json')} is not valid JSON (${(e as Error).message}); fix it, then run mirrorc init again`);
  }
  if (pkg === null || typeof pkg !== 'object' || Array.isArray(pkg) || (pkg.scripts !== undefined && (pkg.scripts === null || typeof pkg.scripts !== 'object' || Array.isArray(pkg.scripts)))) {
    throw new InitError(`${join(dir, 'package.json')} is not a package.json (an object, with "scripts" an object if present); fix it, then run mirrorc init again`);
  }
  const scripts = { ...(pkg.scripts ?? {}) };
  const added = Object.keys(FLEET_SCRIPTS).filter((name) => !Object.hasOwn(scripts, name));
  if (added.length === 0) return [];
  for (const name of added) scripts[name] = FLEET_SCRIPTS[name]!;
  const indent = /^[ \t]+/m.exec(text)?.[0] ?? '  ';
  writeFileSync(path, `${JSON.stringify({ ...pkg, scripts }, null, indent)}\n`);
  return added;
}

/** An npm package name from the folder's name. */
function packageName(root: string): string {
  const name = basename(root).toLowerCase().replace(/[^a-z0-9._-]+/g, '-').replace(/^[._-]+/, '');
  return name === '' ? 'fleet' : name;
}
