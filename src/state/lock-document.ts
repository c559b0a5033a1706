/**
 * The lock document (format 2): one schema-first, versioned file with two sections (see
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
import { ip, namespacedName, recordOf, sourceSnapshotSchema, targetSnapshotSchema, timestamp } from '../observe/lock-schema.js';
import { parseUnitName, BASE_UNIT } from '../delivery/delivery-units.js';

/** Version of the lock document; format 1 (the bare snapshot) is migrated on read. */
export const LOCK_FORMAT = 2;

const sha256 = z.string().regex(/^[0-9a-f]{64}$/, 'is not a SHA-256 digest (64 lower-case hex digits)');
const unitNameProblem = (name: string): string | undefined => (name === BASE_UNIT || parseUnitName(name) ? undefined : `${quote(name)} is not a delivery unit name (base, from-<cluster>[.<k>], shared[.<k>])`);
const namespacedKey = (k: string): string | undefined => namespacedName.safeParse(k).error?.issues[0]?.message;
/** `target/namespace/service`, or the bare target of a mirror whose origin annotation is missing. */
const origin = z.string().regex(/^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\/[a-z0-9]([-a-z0-9]*[a-z0-9])?\/[a-z0-9]([-a-z0-9]*[a-z0-9])?)?$/, 'is not "target/namespace/service"');

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
  /** Mirror Services (`namespace/name` → origin) the removal guard counts: one per exported service. */
  mirrors: recordOf(namespacedKey, origin).optional(),
  /** Per-pod mirror Services (`namespace/name` → origin): they own their names, the guard does not count them. */
  podMirrors: recordOf(namespacedKey, origin).optional(),
  /** MCS imports (`namespace/<service>-<cluster>` → origin `cluster/namespace/service`), counted per exporting cluster. */
  imports: recordOf(namespacedKey, origin).optional(),
});

/** compile's memory. */
export const compiledSectionSchema = z.strictObject({
  pinnedServiceIPs: recordOf(clusterNameProblem, recordOf(namespacedKey, ip)).optional(),
  /** cluster → unit folder name → record, for every unit folder synth wrote. */
  units: recordOf(clusterNameProblem, recordOf(unitNameProblem, unitRecordSchema)),
});

/** What was observed (format 1's snapshot without the pinned IPs). */
export const observedSectionSchema = z.strictObject({
  targets: recordOf(clusterNameProblem, targetSnapshotSchema),
  sources: recordOf(clusterNameProblem, sourceSnapshotSchema),
  staleSince: z.strictObject({ targets: recordOf(clusterNameProblem, timestamp).optional(), sources: recordOf(clusterNameProblem, timestamp).optional() }).optional(),
});

/** The whole lock file. */
export const lockDocumentSchema = z.strictObject({
  format: z.literal(LOCK_FORMAT),
  observed: observedSectionSchema,
  compiled: compiledSectionSchema,
});

export type UnitFiles = z.infer<typeof unitFilesSchema>;
export type UnitRecord = z.infer<typeof unitRecordSchema>;
export type CompiledSection = z.infer<typeof compiledSectionSchema>;
export type LockDocument = z.infer<typeof lockDocumentSchema>;
/** cluster → unit → record. */
export type UnitRecords = CompiledSection['units'];
