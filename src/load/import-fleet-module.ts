/**
 * Imports the user's fleet module. Run from the TypeScript sources (tsx), a plain import does.
 * Run compiled (`lib/`), tsx is registered for the fleet file and what it imports only when it is
 * TypeScript, and imports of mirrorc's sources resolve to the compiled modules the CLI uses, so that
 * the fleet and the CLI share one copy of each class.
 */
import * as nodeModule from 'node:module';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { compiledCounterpart, type SourceRedirect } from './compiled-model-redirect.js';

/** Whether this module runs compiled (`lib/cli/*.js`) rather than from its TypeScript source. */
const COMPILED = import.meta.url.endsWith('.js');

/** tsx, which loads TypeScript fleet files, is not installed (a runtime dependency: only a broken install lacks it). */
export class TypeScriptLoaderMissingError extends Error {
  constructor() {
    super('tsx, which loads TypeScript fleet files, is not installed; reinstall the dependencies ("npm ci")');
    this.name = 'TypeScriptLoaderMissingError';
  }
}

/**
 * The namespace of tsx's registrations. It is fixed, not per process, so that tsx's transform cache
 * (keyed by the file's URL with the namespace in its query) is hit on the next run: tsx's own
 * `require` of `tsx/cjs/api` registers under `Date.now()`, a new key every run, so esbuild compiled
 * the fleet file afresh each time (≈ 0.2 s of a 20×500 one-change run, and a cache entry per run).
 */
const FLEET_NAMESPACE = 'mirrorc-fleet';

/** tsx's scoped import, registered once (only for TypeScript fleet files). */
let tsxImport: Promise<(specifier: string, parentURL: string) => Promise<unknown>> | undefined;
/** tsx's scoped require, registered once (only for CommonJS TypeScript fleet files). */
let tsxRequire: Promise<(id: string, fromFile: string) => unknown> | undefined;
/** What {@link redirectSourcesToCompiled} has set up (each once per process). */
const redirected = { hooks: false, offThreadHooks: false, require: false };

/** Node's CommonJS loader (an internal but long-stable API, the one tsx itself hooks). */
interface CommonJsLoader {
  _load(request: string, parent: { filename?: string | null } | null | undefined, isMain: boolean): unknown;
}

/** `module.registerHooks` (Node >= 22.15): in-thread hooks, which run before `module.register`'s. */
type RegisterHooks = (hooks: { resolve: (specifier: string, context: { parentURL?: string }, next: (s: string, c?: object) => unknown) => unknown }) => unknown;

/**
 * Makes imports of mirrorc's sources load the compiled modules. `commonJs`: the fleet file is
 * CommonJS, so its imports (and its helpers') are require() calls: on a Node without in-thread hooks
 * (Node 20) the off-thread ESM hooks would see none of them, so they are not registered (their
 * thread costs ≈ 0.1 s of every run); only an `import()` of mirrorc's sources written in such a
 * file would go unredirected.
 */
function redirectSourcesToCompiled(commonJs: boolean): void {
  const redirect: SourceRedirect = { sourceDir: new URL('../../src/', import.meta.url).href, compiledDir: new URL('../', import.meta.url).href };
  const registerHooks = (nodeModule as { registerHooks?: RegisterHooks }).registerHooks;
  // Registered after tsx, so these run first (hooks chain last-in, first-out), and of the same kind
  // as tsx's: Node runs all in-thread hooks before any off-thread ones.
  if (typeof registerHooks === 'function') {
    if (!redirected.hooks) {
      redirected.hooks = true;
      registerHooks({
        resolve: (specifier, context, next) => {
          const url = compiledCounterpart(specifier, context.parentURL, redirect);
          return url ? { url, format: 'module', shortCircuit: true } : next(specifier, context);
        },
      });
    }
    // In-thread hooks see require() calls too: no patch of the CommonJS loader is needed.
    return;
  }
  if (!commonJs && !redirected.offThreadHooks) {
    redirected.offThreadHooks = true;
    nodeModule.register('./compiled-model-hooks.js', { parentURL: import.meta.url, data: redirect });
  }
  if (redirected.require) return;
  redirected.require = true;
  // Node < 22.15 only (no in-thread hooks; the patch goes when Node 20 support does: on Node 22.15+
  // and 24 the same fleets load one copy through registerHooks, test/unit/compiled-cli.test.ts).
  // A fleet file outside a "type": "module" package is CommonJS to Node and tsx: its imports are
  // require() calls, which the off-thread hooks do not see. The compiled (ESM) module is
  // required natively, from this module (require of ESM, Node >= 20.19), which returns the very
  // instance the CLI imported. Loaded as the fleet file's own request instead, tsx's scoped require
  // would compile it and every module it imports into a second copy of mirrorc (Node 20: 160
  // modules, each through esbuild — most of the fleet import's time). (tsx's scoped require still
  // compiles the TypeScript helper modules such a file requires.)
  const nativeRequire = nodeModule.createRequire(import.meta.url);
  const cjs = nativeRequire('node:module') as CommonJsLoader;
  const load = cjs._load;
  cjs._load = function redirectedLoad(this: unknown, request, parent, isMain) {
    const parentURL = parent?.filename ? pathToFileURL(parent.filename).href : undefined;
    const url = compiledCounterpart(request, parentURL, redirect);
    return url ? nativeRequire(fileURLToPath(url)) : load.call(this, request, parent, isMain);
  };
}

/**
 * Whether Node treats the TypeScript file `file` as CommonJS: `.cts`, or `.ts`/`.tsx` whose nearest
 * package.json does not say `"type": "module"` (the default of `npm init`).
 */
export function isCommonJsTypeScript(file: string): boolean {
  if (/\.cts$/.test(file)) return true;
  if (!/\.tsx?$/.test(file)) return false;
  for (let dir = dirname(file); ; dir = dirname(dir)) {
    const pkg = join(dir, 'package.json');
    if (existsSync(pkg)) {
      try {
        return (JSON.parse(readFileSync(pkg, 'utf8')) as { type?: unknown }).type !== 'module';
      } catch {
        return true;
      }
    }
    if (dirname(dir) === dir) return true;
  }
}

/** A CommonJS module's exports as a namespace: `export default` compiled to CommonJS gives `exports.default`. */
function commonJsNamespace(exports: unknown): { default?: unknown } {
  const e = exports as { __esModule?: unknown; default?: unknown } | undefined;
  return typeof e === 'object' && e !== null && e.__esModule === true && 'default' in e ? { default: e.default } : { default: exports };
}

/** Imports the module at absolute path `file` and returns its namespace. */
export async function importFleetModule(file: string): Promise<{ default?: unknown }> {
  const url = pathToFileURL(file).href;
  if (!COMPILED) return (await import(url)) as { default?: unknown };
  if (isCommonJsTypeScript(file)) {
    // tsx's scoped import of a CommonJS TypeScript file fails on Node 24 ("Cannot find module
    // …fleet.ts?namespace=…": Node 24 hands the CommonJS module to require() with tsx's query in
    // its path). tsx's scoped require compiles it as CommonJS on every Node version instead; its
    // require() of mirrorc loads the compiled ES modules the CLI uses (require of ESM, Node >= 20.19).
    tsxRequire ??= import('tsx/cjs/api').then(
      ({ register }) => register({ namespace: FLEET_NAMESPACE }).require,
      () => {
        throw new TypeScriptLoaderMissingError();
      },
    );
    const scopedRequire = await tsxRequire;
    redirectSourcesToCompiled(true);
    return commonJsNamespace(scopedRequire(file, import.meta.url));
  }
  if (/\.[cm]?tsx?$/.test(file)) {
    tsxImport ??= import('tsx/esm/api').then(
      ({ register }) => register({ namespace: FLEET_NAMESPACE }).import,
      () => {
        throw new TypeScriptLoaderMissingError();
      },
    );
  }
  const scopedImport = tsxImport ? await tsxImport : undefined;
  redirectSourcesToCompiled(false);
  const mod = (await (scopedImport ? scopedImport(url, import.meta.url) : import(url))) as { default?: unknown };
  // A CommonJS fleet file compiled from `export default`: its exports object is Node's default export.
  const exports = mod.default as { __esModule?: unknown; default?: unknown } | undefined;
  return typeof exports === 'object' && exports !== null && exports.__esModule === true && 'default' in exports ? { default: exports.default } : mod;
}
