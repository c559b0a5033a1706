/**
 * The lock file: the last good snapshot, committed next to the fleet definition and reviewed
 * like a package lock. Offline compiles read only this.
 */
import { readFileSync } from 'node:fs';
import { canonicalJson } from '../util/canonical-json.js';
import { fleetSnapshotSchema, schemaProblems } from './lock-schema.js';
import { SNAPSHOT_FORMAT, emptySnapshot, type FleetSnapshot } from '../snapshot/snapshot.js';

/** The lock file is unreadable, of an unknown format, or does not match the lock schema. */
export class LockFileError extends Error {
  /** The lock file. */
  public readonly path: string;
  /** One line per problem found in it. */
  public readonly problems: readonly string[];

  /**
   * @param path the lock file
   * @param reason what is wrong, completing "lock file <path> ..."
   * @param problems one line per problem (`$.json.path: what is wrong`), listed after the advice
   */
  constructor(path: string, reason: string, problems: readonly string[] = []) {
    super(`lock file ${path} ${reason}; restore it from git, or delete it to observe every cluster from scratch${problems.map((p) => `\n  - ${p}`).join('')}`);
    this.name = 'LockFileError';
    this.path = path;
    this.problems = problems;
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
  const problems = schemaProblems(fleetSnapshotSchema, parsed);
  if (problems.length > 0) throw new LockFileError(path, 'does not match the lock schema (see below)', problems);
  return lock as FleetSnapshot;
}

/** The lock file's exact text for `snapshot`: canonical JSON, keys sorted, trailing newline. */
export function renderLockFile(snapshot: FleetSnapshot): string {
  return canonicalJson(snapshot);
}
