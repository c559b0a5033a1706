/**
 * The lock file: the last good snapshot, committed next to the fleet definition and reviewed
 * like a package lock. Offline compiles read only this.
 */
import { canonicalJson } from '../util/canonical-json.js';
import { readUtf8File } from '../util/read-utf8.js';
import { fleetSnapshotSchema, schemaProblems } from './lock-schema.js';
import { SNAPSHOT_FORMAT, emptySnapshot, type FleetSnapshot } from '../snapshot/snapshot.js';
import { FORMAT_3_LOCK, FORMAT_4_LOCK, isLockDocumentFormat, LOCK_FORMAT, lockDocumentAccepted, lockDocumentSchema, PREVIOUS_LOCK_FORMAT, type LockDocument, type SourceRecords, type UnitRecords } from '../state/lock-document.js';
import { schemaAcceptor } from '../util/schema-acceptor.js';
import { InvalidInputError } from '../errors/mirrorc-error.js';
import { ownVersion } from '../util/own-version.js';

/** The lock file is unreadable, of an unknown format, or does not match the lock schema. */
export class LockFileError extends InvalidInputError {
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

/**
 * The lock has a format number above {@link LOCK_FORMAT}: a later mirrorc wrote it (a downgrade, or a
 * teammate's newer install). It is refused before anything is written, and the advice is to run the
 * version that wrote it, never to delete the lock: that would drop the pinned service IPs (every
 * mirror recreated with a new IP) and every cluster's last known state.
 */
export class LockFromLaterMirrorcError extends LockFileError {
  /** The format number found. */
  public readonly format: number;

  constructor(path: string, format: number) {
    super(path, `has format ${format}`);
    // Its own advice instead of LockFileError's "restore it from git, or delete it".
    this.message = `lock file ${path} has format ${format}, written by a later mirrorc: this one (${ownVersion()}) reads formats ${READ_FORMATS}; install the mirrorc that wrote it (npm ci installs the version your package-lock.json names), or upgrade; do not delete the lock (it holds the pinned service IPs), see docs/upgrading.md`;
    this.name = 'LockFromLaterMirrorcError';
    this.format = format;
  }
}

/** A lock as read: the snapshot compile works on (pinned IPs included), and the unit records (undefined for a format 1 lock: to be migrated). */
export interface LockState {
  readonly snapshot: FleetSnapshot;
  /** The compiled section's unit records; undefined when the lock predates them (format 1) or is missing. */
  readonly units?: UnitRecords;
  /** The compiled section's source records; undefined when the lock predates them (formats 1 and 2) or is missing. */
  readonly sources?: SourceRecords;
  /** The file's text as read (undefined when it is missing): what a run compares its new lock text with. */
  readonly text?: string;
}

/** The formats this version reads, for the message refusing another. */
const READ_FORMATS = `${SNAPSHOT_FORMAT}, ${PREVIOUS_LOCK_FORMAT}, ${FORMAT_3_LOCK}, ${FORMAT_4_LOCK} and ${LOCK_FORMAT}`;

/** Reads the lock (through `readText`, default node:fs); a missing file is an empty snapshot. */
export function readLockFile(path: string, readText: (path: string) => string = readUtf8File): FleetSnapshot {
  return readLock(path, readText).snapshot;
}

/**
 * Reads the lock (format 5, 4 or 3; format 2, read without source records; or format 1, migrated: its snapshot, no unit records) through
 * `readText` (default node:fs); a missing file is an empty snapshot.
 */
export function readLock(path: string, readText: (path: string) => string = readUtf8File): LockState {
  let text: string;
  try {
    text = readText(path);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return { snapshot: emptySnapshot() };
    throw new LockFileError(path, `cannot be read (${(e as NodeJS.ErrnoException).code ?? String(e)})`);
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (e) {
    throw new LockFileError(path, `is not valid JSON (${(e as Error).message})`);
  }
  const format = (parsed as { format?: unknown } | null)?.format;
  if (typeof parsed === 'object' && parsed !== null && isLockDocumentFormat(format)) {
    const lock = parsed as Partial<LockDocument>;
    if (typeof lock.observed !== 'object' || lock.observed === null || typeof lock.compiled !== 'object' || lock.compiled === null) {
      throw new LockFileError(path, 'lacks "observed" or "compiled"');
    }
    // Checked in one pass; only a lock that pass does not accept is parsed by the schema, which names its problems.
    const problems = lockDocumentAccepted(parsed) ? [] : schemaProblems(lockDocumentSchema, parsed);
    if (problems.length > 0) throw new LockFileError(path, 'does not match the lock schema (see below)', problems);
    const { observed, compiled } = parsed as LockDocument;
    const snapshot = { format: SNAPSHOT_FORMAT, ...observed, ...(compiled.pinnedServiceIPs ? { pinnedServiceIPs: compiled.pinnedServiceIPs } : {}) } as FleetSnapshot;
    // A format 2 lock has no source records: every source is planned once (docs/lock-and-state.md).
    return { snapshot, units: compiled.units, ...(compiled.sources && format !== PREVIOUS_LOCK_FORMAT ? { sources: compiled.sources } : {}), text };
  }
  const lock = parsed as Partial<FleetSnapshot>;
  if (typeof format === 'number' && Number.isInteger(format) && format > LOCK_FORMAT) throw new LockFromLaterMirrorcError(path, format);
  if (typeof lock !== 'object' || lock === null || lock.format !== SNAPSHOT_FORMAT) {
    throw new LockFileError(path, `has format ${JSON.stringify(lock?.format)}, but this version reads formats ${READ_FORMATS}`);
  }
  if (typeof lock.targets !== 'object' || typeof lock.sources !== 'object' || lock.targets === null || lock.sources === null) {
    throw new LockFileError(path, 'lacks "targets" or "sources"');
  }
  const problems = schemaAcceptor(fleetSnapshotSchema)(parsed) ? [] : schemaProblems(fleetSnapshotSchema, parsed);
  if (problems.length > 0) throw new LockFileError(path, 'does not match the lock schema (see below)', problems);
  return { snapshot: lock as FleetSnapshot, text };
}

/**
 * The lock file's exact text (format 5): canonical JSON, keys sorted, trailing newline.
 * @param units the unit records of the compiled section @default none
 * @param sources the source records of the compiled section @default none
 */
export function renderLockFile(snapshot: FleetSnapshot, units: UnitRecords = {}, sources?: SourceRecords): string {
  const { format: _format, pinnedServiceIPs, ...observed } = snapshot;
  const document: LockDocument = { format: LOCK_FORMAT, observed, compiled: { ...(pinnedServiceIPs ? { pinnedServiceIPs } : {}), units, ...(sources && Object.keys(sources).length > 0 ? { sources } : {}) } } as LockDocument;
  return canonicalJson(document);
}
