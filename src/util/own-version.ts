/** mirrorc's own version, from its package.json (two folders up from `src/util/` and from `lib/util/`). */
import { readFileSync } from 'node:fs';

/** The `version` of mirrorc's package.json. */
export function ownVersion(): string {
  return (cached ??= (JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }).version);
}

let cached: string | undefined;
