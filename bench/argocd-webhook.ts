/**
 * Which Applications a git webhook refreshes, as Argo CD v3.6.1's webhook handler decides it
 * (`util/webhook/webhook.go` `HandleEvent`, `util/app/path/path.go` `GetSourceRefreshPaths` and
 * `AppFilesHaveChanged`): an Application whose `manifest-generate-paths` annotation names paths is
 * refreshed only when a changed file of the push equals one of them, lies under one, or matches one
 * as a `filepath.Match` pattern (`*` stays within one folder). Paths are relative to the source's
 * folder unless absolute (then relative to the repository root). The bench's one-change step asks
 * for exactly these refreshes, as a real push to a repository with a webhook would.
 */
import { posix } from 'node:path';

/** The repository-relative paths an Application's annotation value names (`;`-separated, trimmed, empty entries skipped). */
export function refreshPaths(annotation: string, sourceFolder: string): string[] {
  return annotation.split(';').map((p) => p.trim()).filter((p) => p !== '')
    .map((p) => (p.startsWith('/') ? posix.normalize(p) : posix.join('/', sourceFolder, p)));
}

/** Go's `filepath.Match` for the patterns the annotation uses: `*`, `?` and `[...]` classes, none crossing `/`. */
function globMatch(pattern: string, path: string): boolean {
  let re = '^';
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i]!;
    if (c === '*') re += '[^/]*';
    else if (c === '?') re += '[^/]';
    else if (c === '[') {
      const end = pattern.indexOf(']', i + 1);
      if (end < 0) return false; // Go: ErrBadPattern, which AppFilesHaveChanged treats as no match
      const body = pattern.slice(i + 1, end);
      re += `[${body.startsWith('^') || body.startsWith('!') ? `^/${body.slice(1)}` : body}]`;
      i = end;
    } else re += c.replace(/[.+^${}()|\\]/g, '\\$&');
  }
  return new RegExp(`${re}$`).test(path);
}

/** Whether a push that changed `changedFiles` (repository-relative) refreshes an Application with these refresh paths. */
export function appFilesHaveChanged(paths: readonly string[], changedFiles: readonly string[]): boolean {
  if (changedFiles.length === 0 || paths.length === 0) return true;
  return changedFiles.some((file) => {
    const f = posix.join('/', file);
    return paths.some((item) => f === item || f.startsWith(`${item}/`) || globMatch(item, f));
  });
}
