/**
 * The lock document (format 5): one schema-first, versioned file with two sections (see
 * docs/lock-and-state.md).
 *
 * - `observed`: what the clusters were last seen to hold (the snapshot of format 1, without the
 *   pinned IPs);
 * - `compiled`: compile's memory — the pinned per-pod ClusterIPs, and per delivery unit what it
 *   holds (its mirrors, which are also the mirror-name owners and what the removal guard counts),
 *   a digest of its files (names and sizes: the cheap integrity check) and a digest of its inputs
 *   (an unchanged digest on an intact folder lets synth skip the unit).
 *
 * The types of the compiled section are inferred from this schema (`z.infer`), never written twice.
 */
import { z } from 'zod';
import { clusterNameProblem, quote } from '../util/k8s-names.js';
import { ip, namespace, namespacedNameProblem, recordOf, sourceSnapshotSchema, targetSnapshotSchema, timestamp } from '../observe/lock-schema.js';
import { parseUnitName, BASE_UNIT } from '../delivery/delivery-units.js';
import { PART_DIGEST_LENGTH, UNIT_PARTS } from './unit-inventory.js';
import { schemaAcceptor } from '../util/schema-acceptor.js';

/**
 * Version of the lock document. Format 5 added the unit records' `parts`, format 4 the source
 * records' `families` and the unit records' `content`: a mirrorc that reads an earlier format
 * refuses a later lock by its number ("has format 5, but this version reads formats 1, 2, 3 and 4")
 * rather than by an unknown key. Format 1 (the bare snapshot) and format 2 (no per-source records:
 * every source is planned once) are migrated on read; formats 3 and 4 are read as they are.
 */
export const LOCK_FORMAT = 5;
/** Format 4: the same document without the unit records' `parts` (optional, so it is read as it is: such a unit is read whole once). */
export const FORMAT_4_LOCK = 4;
/**
 * Format 3: the same document without `families` and `content` (both optional, so it is read as it
 * is; some format 3 locks hold them, written by the versions that added them before the number).
 */
export const FORMAT_3_LOCK = 3;
/** The earlier document format that this one reads as it is but for `compiled.sources`, which it lacks. */
export const PREVIOUS_LOCK_FORMAT = 2;
/** Whether `format` is that of a lock document this version reads (formats 2 to 5; format 1 is the bare snapshot). */
export function isLockDocumentFormat(format: unknown): format is 2 | 3 | 4 | 5 {
  return format === LOCK_FORMAT || format === FORMAT_4_LOCK || format === FORMAT_3_LOCK || format === PREVIOUS_LOCK_FORMAT;
}

export const SHA256_PATTERN = /^[0-9a-f]{64}$/;
/** A unit record's `parts`: {@link UNIT_PARTS} digests of {@link PART_DIGEST_LENGTH} hex digits. */
export const PARTS_PATTERN = new RegExp(`^[0-9a-f]{${UNIT_PARTS * PART_DIGEST_LENGTH}}$`);
const sha256 = z.string().regex(SHA256_PATTERN, 'is not a SHA-256 digest (64 lower-case hex digits)');
export const unitNameProblem = (name: string): string | undefined => (name === BASE_UNIT || parseUnitName(name) ? undefined : `${quote(name)} is not a delivery unit name (base, from-<cluster>[.<k>], shared[.<k>])`);
/** Why a record key is not `namespace/name` of a Service: the `namespacedName` schema's own predicate (its message, without zod around it). */
export const namespacedKey = (k: string): string | undefined => namespacedNameProblem(k);
/** `target/namespace/service`, or the bare target of a mirror whose origin annotation is missing. */
export const ORIGIN_PATTERN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\/[a-z0-9]([-a-z0-9]*[a-z0-9])?\/[a-z0-9]([-a-z0-9]*[a-z0-9])?)?$/;
const origin = z.string().regex(ORIGIN_PATTERN, 'is not "target/namespace/service"');

/** The files of a unit folder, for the integrity check: how many, their bytes, and a digest of their sorted names and sizes. */
export const unitFilesSchema = z.strictObject({
  count: z.number().int().nonnegative(),
  bytes: z.number().int().nonnegative(),
  digest: sha256,
});

/** One delivery unit as the lock remembers it. */
export const unitRecordSchema = z.strictObject({
  /** Digest of everything the unit is rendered from; absent for a unit adopted from an older `dist/` (rendered on the next run). */
  inputs: sha256.optional(),
  files: unitFilesSchema,
  /**
   * Digest of the unit's files' paths and texts as rendered (src/state/unit-inventory.ts
   * `unitContent`): a unit whose inputs changed but which renders to the same files, on an intact
   * folder, is neither read nor written. Absent in a record of an earlier run (the unit is read once).
   */
  content: sha256.optional(),
  /**
   * The same digest per part of the unit's files (src/state/unit-inventory.ts `unitContent`): of a
   * changed unit on an intact folder, only the files of the parts whose digest changed are read and
   * compared. Absent in a record of an earlier run (the unit is read whole once).
   */
  parts: z.string().regex(PARTS_PATTERN, `is not ${UNIT_PARTS} part digests of ${PART_DIGEST_LENGTH} hex digits`).optional(),
  /** Mirror Services (`namespace/name` → origin) the removal guard counts: one per exported service. */
  mirrors: recordOf(namespacedKey, origin).optional(),
  /** Per-pod mirror Services (`namespace/name` → origin): they own their names, the guard does not count them. */
  podMirrors: recordOf(namespacedKey, origin).optional(),
  /** MCS imports (`namespace/<service>-<cluster>` → origin `cluster/namespace/service`), counted per exporting cluster. */
  imports: recordOf(namespacedKey, origin).optional(),
});

const originProblem = (k: string): string | undefined => origin.safeParse(k).error?.issues[0]?.message;

/** A diagnostic code (src/diagnostics/diagnostic-codes.ts): `MRC` and four digits. */
export const DIAGNOSTIC_CODE_PATTERN = /^MRC[0-9]{4}$/;

/** A warning of a source's planning, as a full run reports it (src/diagnostics/diagnostic.ts). */
export const sourceWarningSchema = z.strictObject({
  code: z.string().regex(DIAGNOSTIC_CODE_PATTERN, 'is not a diagnostic code such as MRC3001'),
  severity: z.literal('warning'),
  cluster: z.string().optional(),
  target: z.string().optional(),
  namespace: z.string().optional(),
  service: z.string().optional(),
  message: z.string(),
  hint: z.string(),
});

/**
 * What a source's record keeps for planning only the unit families whose inputs changed
 * (docs/incremental-planning.md, "Per-family planning").
 */
export const sourceFamiliesSchema = z.strictObject({
  /** Digest of everything its planning reads but its targets' observations (`UnitInputs.base`). */
  base: sha256,
  /** Each linked target → digest of its observation then (`UnitInputs.target`). */
  targets: recordOf(clusterNameProblem, sha256),
  /** How many of `warnings` each link's selection and mirrors gave, in link order (the rest came after every link). */
  linkWarnings: z.array(z.number().int().nonnegative()),
  /**
   * Each linked target → digest of what its link's mirrors gave the source-wide steps (names,
   * per-pod names, modes, `-global` pod sets, namespaces to create, federated candidates): a partial
   * plan whose changed links give the same plans that link alone (docs/incremental-planning.md).
   * Absent in a lock of an earlier run.
   */
  contributions: recordOf(clusterNameProblem, sha256).optional(),
  /** The digest of the `shared` family's planned mirrors (`UnitInputs.members`): its units' input digest when it is kept unplanned. Absent with `contributions`. */
  sharedMembers: sha256.optional(),
  /** The Namespaces the plan creates (the base unit's), for a plan of the changed links alone. Absent with `contributions`. */
  namespaces: z.array(namespace).optional(),
});

/**
 * One source cluster as the lock remembers its planning: synth does not plan it again while its
 * input digest is unchanged, the lookups its planning made give the same answers, and its unit
 * folders are intact (docs/lock-and-state.md, "Skipping a source").
 */
export const sourceRecordSchema = z.strictObject({
  /** Digest of everything the source's planning and rendering read but the lock's unit records (src/state/unit-inputs.ts). */
  inputs: sha256,
  /** The mirror-name owners its planning asked for: `namespace/name` → the origin recorded then, "" for none. */
  owners: recordOf(namespacedKey, z.union([origin, z.literal('')])).optional(),
  /** The established mirrors asked for (of the targets it links): origin → whether some source held it then. */
  established: recordOf(originProblem, z.boolean()).optional(),
  /** Its planning's warnings, in order: reported again when it is not planned. */
  warnings: z.array(sourceWarningSchema).optional(),
  /** What planning only some of its unit families needs (docs/incremental-planning.md); absent in a lock of an earlier run (the source is planned whole once). */
  families: sourceFamiliesSchema.optional(),
});

/** compile's memory. */
export const compiledSectionSchema = z.strictObject({
  pinnedServiceIPs: recordOf(clusterNameProblem, recordOf(namespacedKey, ip)).optional(),
  /** cluster → unit folder name → record, for every unit folder synth wrote. */
  units: recordOf(clusterNameProblem, recordOf(unitNameProblem, unitRecordSchema)),
  /** source cluster → how it was planned; absent in a format 2 lock (every source is planned). */
  sources: recordOf(clusterNameProblem, sourceRecordSchema).optional(),
});

/** What was observed (format 1's snapshot without the pinned IPs). */
export const observedSectionSchema = z.strictObject({
  targets: recordOf(clusterNameProblem, targetSnapshotSchema),
  sources: recordOf(clusterNameProblem, sourceSnapshotSchema),
  staleSince: z.strictObject({ targets: recordOf(clusterNameProblem, timestamp).optional(), sources: recordOf(clusterNameProblem, timestamp).optional() }).optional(),
});

/** The whole lock file (format 5; formats 4, 3 and 2 are the same but for their number and what they lack, see {@link LOCK_FORMAT}). */
export const lockDocumentSchema = z.strictObject({
  format: z.union([z.literal(LOCK_FORMAT), z.literal(FORMAT_4_LOCK), z.literal(FORMAT_3_LOCK), z.literal(PREVIOUS_LOCK_FORMAT)]),
  observed: observedSectionSchema,
  compiled: compiledSectionSchema,
});

/**
 * Whether {@link lockDocumentSchema} certainly accepts `document` (a lock of format 5, 4, 3 or 2 as
 * JSON.parse made it), by the one-pass check derived from the schema (src/util/schema-acceptor.ts).
 * False means "let the schema decide": a refused lock is refused with the schema's own messages.
 */
export function lockDocumentAccepted(document: unknown): boolean {
  return schemaAcceptor(lockDocumentSchema)(document);
}

export type UnitFiles = z.infer<typeof unitFilesSchema>;
export type UnitRecord = z.infer<typeof unitRecordSchema>;
export type CompiledSection = z.infer<typeof compiledSectionSchema>;
export type LockDocument = z.infer<typeof lockDocumentSchema>;
/** cluster → unit → record. */
export type UnitRecords = CompiledSection['units'];
export type SourceRecord = z.infer<typeof sourceRecordSchema>;
export type SourceFamilies = z.infer<typeof sourceFamiliesSchema>;
/** source cluster → record. */
export type SourceRecords = NonNullable<CompiledSection['sources']>;
