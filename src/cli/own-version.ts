/** mirrorc's own version, from its package.json (two folders up from `src/cli/` and from `lib/cli/`). */
import { readFileSync } from 'node:fs';

/** The `version` of mirrorc's package.json. */
export function ownVersion(): string {
  return (JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }).version;
}
