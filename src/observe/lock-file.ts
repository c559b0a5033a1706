/**
 * The lock file: the last good snapshot, committed next to the fleet definition and reviewed
 * like a package lock. Offline compiles read only this.
 */
import { readFileSync } from 'node:fs';
import { canonicalJson } from '../util/canonical-json.js';
import { staleSinceProblem } from './stale-since.js';
import { SNAPSHOT_FORMAT, emptySnapshot, type FleetSnapshot } from './snapshot.js';

/** The lock file is unreadable or of an unknown format. */
export class LockFileError extends Error {
  constructor(public readonly path: string, reason: string) {
    super(`lock file ${path} ${reason}; restore it from git, or delete it to observe every cluster from scratch`);
    this.name = 'LockFileError';
  }
}

/** Reads the lock; a missing file is an empty snapshot. */
export function readLockFile(path: string): FleetSnapshot {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return emptySnapshot();
    throw new LockFileError(path, `cannot be read (${(e as NodeJS.ErrnoException).code ?? String(e)})`);
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (e) {
    throw new LockFileError(path, `is not valid JSON (${(e as Error).message})`);
  }
  const lock = parsed as Partial<FleetSnapshot>;
  if (typeof lock !== 'object' || lock === null || lock.format !== SNAPSHOT_FORMAT) {
    throw new LockFileError(path, `has format ${JSON.stringify(lock?.format)}, but this version reads format ${SNAPSHOT_FORMAT}`);
  }
  if (typeof lock.targets !== 'object' || typeof lock.sources !== 'object' || lock.targets === null || lock.sources === null) {
    throw new LockFileError(path, 'lacks "targets" or "sources"');
  }
  const staleProblem = staleSinceProblem(lock.staleSince);
  if (staleProblem) throw new LockFileError(path, staleProblem);
  return lock as FleetSnapshot;
}

/** The lock file's exact text for `snapshot`: canonical JSON, keys sorted, trailing newline. */
export function renderLockFile(snapshot: FleetSnapshot): string {
  return canonicalJson(snapshot);
}
