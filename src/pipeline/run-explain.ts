/**
 * `mirrorc explain`: loads the fleet, the lock and the committed output, compiles as synth would
 * (offline: compile is deterministic from the fleet and the lock) and explains one service.
 * Contacts no cluster and writes nothing.
 */
import { FleetDefinitionError } from '../model/fleet.js';
import { LockFileError, readLock } from '../observe/lock-file.js';
import { committedPath, readCommittedTree, UnsafeJournalError } from '../emit/write-output.js';
import { explainPlan, explainService, type Explanation } from '../explain/explain-service.js';
import { resolveRef, UnknownServiceError } from '../explain/resolve-ref.js';
import { buildFleet, FleetLoadError, importFleetDefinition, type FleetDefinition } from '../load/load-fleet.js';
import { compileFleetTree } from './synth-fleet.js';
import { recordLookups } from '../state/unit-records.js';
import { withAdoptedFolders } from '../state/unit-folders.js';
import type { ExplainReason } from '../explain/explain-reason.js';

/** Options of {@link runExplain}. */
export interface ExplainOptions {
  /** `cluster/namespace/service`, or a mirror `source/namespace/mirror`. */
  readonly ref: string;
  /** Module whose default export defines the fleet. Either this or `define`. @default 'clusters/fleet.ts' */
  readonly fleetFile?: string;
  /** The fleet definition itself (tests, embedding). @default loaded from fleetFile */
  readonly define?: FleetDefinition;
  /** The lock file. @default `<fleetFile without .ts>.lock.json` */
  readonly lockFile?: string;
  /** The output directory. @default 'dist' */
  readonly outDir?: string;
}

/** What {@link runExplain} found: an explanation, or an error in plain words (bad input: exit 2). */
export type ExplainOutcome =
  | { readonly ok: true; readonly explanation: Explanation }
  | { readonly ok: false; readonly error: string; readonly reason?: ExplainReason };

/** Explains `options.ref`; never throws for the user's mistakes. */
export async function runExplain(options: ExplainOptions): Promise<ExplainOutcome> {
  const fleetFile = options.fleetFile ?? 'clusters/fleet.ts';
  const outDir = options.outDir ?? 'dist';
  const lockFile = options.lockFile ?? fleetFile.replace(/\.[cm]?[tj]s$/, '') + '.lock.json';
  try {
    const define = options.define ?? (await importFleetDefinition(fleetFile));
    const spec = buildFleet(define, fleetFile).fleet.toSpec();
    const { snapshot, units } = readLock(committedPath(outDir, lockFile));
    const before = readCommittedTree(outDir);
    // The lock's unit records (a folder it does not describe adopted from the output, as synth does).
    const records = withAdoptedFolders(units ?? {}, outDir, before);
    const lookups = recordLookups(records);
    const plan = explainPlan(spec, snapshot, records);
    const resolved = resolveRef(options.ref, { spec, snapshot, before }, plan, lookups.previousOwners);
    const after = 'plans' in plan ? compileFleetTree(spec, snapshot, lookups, { previous: before }).tree : before;
    const explanation = explainService({ spec, snapshot, before, after }, resolved.service, plan);
    const asked = resolved.askedMirror ? { askedMirror: resolved.askedMirror, ...(resolved.federatedMembers ? { federatedMembers: resolved.federatedMembers } : {}) } : {};
    return { ok: true, explanation: { ...explanation, ...asked } };
  } catch (e) {
    if (e instanceof UnknownServiceError) return { ok: false, error: e.message, ...(e.reason ? { reason: e.reason } : {}) };
    if (e instanceof FleetDefinitionError || e instanceof FleetLoadError || e instanceof LockFileError || e instanceof UnsafeJournalError) return { ok: false, error: e.message };
    throw e;
  }
}

