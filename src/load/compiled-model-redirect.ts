/**
 * When the CLI runs compiled (from `lib/`), the user's fleet file still imports mirrorc's
 * TypeScript sources (`../src/index.js`). Loading those would give a second copy of every class
 * (`Fleet`, `Cluster`, `Link`...), distinct from the CLI's own, and the CLI would not recognise
 * the fleet's constructs. This maps such an import to the compiled module the CLI itself uses.
 */
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/** Where mirrorc's sources and their compiled copies are, as `file:` URLs ending with `/`. */
export interface SourceRedirect {
  /** mirrorc's TypeScript sources, e.g. `file:///repo/src/`. @default none (required) */
  readonly sourceDir: string;
  /** The compiled JavaScript of the same files, e.g. `file:///repo/lib/`. @default none (required) */
  readonly compiledDir: string;
}

/** A relative, absolute or `file:` specifier (not a package name, not `node:`). */
const FILE_SPECIFIER = /^(?:\.{1,2}\/|\/|file:)/;

/**
 * The URL of the compiled module that `specifier`, imported from `parentURL`, names inside
 * `redirect.sourceDir` (`.ts` and `.js` spellings alike), or undefined when it names something else
 * or has no compiled counterpart.
 */
export function compiledCounterpart(specifier: string, parentURL: string | undefined, redirect: SourceRedirect): string | undefined {
  if (!FILE_SPECIFIER.test(specifier)) return undefined;
  let url: URL;
  try {
    url = new URL(specifier, parentURL);
  } catch {
    return undefined;
  }
  url.search = '';
  url.hash = '';
  if (url.protocol !== 'file:' || !url.href.startsWith(redirect.sourceDir)) return undefined;
  const rest = url.href.slice(redirect.sourceDir.length);
  const candidates = /\.[cm]?[jt]s$/.test(rest)
    ? [rest.replace(/\.ts$/, '.js').replace(/\.mts$/, '.mjs').replace(/\.cts$/, '.cjs')]
    : [`${rest}.js`, `${rest}/index.js`];
  for (const candidate of candidates) {
    const href = redirect.compiledDir + candidate;
    if (existsSync(fileURLToPath(href))) return href;
  }
  return undefined;
}
