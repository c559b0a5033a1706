/**
 * Skipping a whole source (docs/lock-and-state.md, "Skipping a source"): a source whose planning
 * inputs did not change is not planned, rendered or read at all; its unit records, pinned IPs and
 * warnings are taken from the lock.
 *
 * Planning a source reads three kinds of input:
 * - what {@link UnitInputs.source} digests (the renderer, the fleet definition, `strict`, its own
 *   and its targets' observations and trust roots, its pinned IPs);
 * - the lock's unit records, through two lookups: who owns a mirror name (asked only in a name
 *   clash) and whether an origin is mirrored anywhere (asked only for a contested generic-gateway
 *   port). The lookups a planning made, and their answers, are recorded; a source is skipped only
 *   when every one of them gives the same answer from the records as they are now;
 * - nothing else: the fleet-wide parts (trust anchors and expiry warnings, pinned IPs of other
 *   sources) stay with planFleet, which checks every link whether it plans the source or not.
 */
import type { CompileOptions, FleetPlan, PreviousOwnerLookup } from '../compile/compile-fleet.js';
import { Diag } from '../diagnostics/diagnostic-codes.js';
import type { Diagnostic } from '../diagnostics/diagnostic.js';
import type { FleetSnapshot } from '../snapshot/snapshot.js';
import type { SourceRecord, SourceRecords, UnitFiles, UnitRecords } from '../state/lock-document.js';
import type { UnitInputs } from '../state/unit-inputs.js';
import { sortedRecord } from '../util/order.js';
import { SHARED_FAMILY } from '../delivery/delivery-units.js';

/** What the skip decision reads. */
export interface SourceSkipState {
  /** The lock's unit records (what `dist/` holds). */
  readonly records: UnitRecords;
  /** The lock's source records; undefined for an older lock (every source is planned). */
  readonly sources?: SourceRecords;
  /** The integrity check of a unit folder; without it nothing is skipped. */
  readonly intact?: (cluster: string, unit: string, files: UnitFiles) => boolean;
}

/** The skip decision of one compile, and the lookups its planning makes, recorded. */
export class SourceSkip {
  private readonly owners = new Map<string, Map<string, string>>();
  private readonly established = new Map<string, Map<string, boolean>>();
  private readonly ownerLookup?: PreviousOwnerLookup;
  private readonly mirrorLookup?: (origin: string, source: string) => boolean;

  constructor(private readonly inputs: UnitInputs, private readonly snapshot: FleetSnapshot, private readonly options: CompileOptions, private readonly state: SourceSkipState | undefined) {
    const owners = options.previousOwners;
    if (owners !== undefined) this.ownerLookup = typeof owners === 'function' ? owners : (source, key) => owners[source]?.[key];
    if (options.previousMirrors) this.mirrorLookup = options.previousMirrors;
  }

  /**
   * The compile options with both lookups recorded per asking source (planning makes a lookup of its
   * own per source, and the generic-gateway ports are worked out per lookup, so each source's record
   * holds exactly the questions its own planning asked, whichever other sources are planned).
   */
  recordingOptions(unplanned: ReadonlySet<string>): CompileOptions {
    const { previousOwners: _owners, previousMirrors: _mirrors, ...rest } = this.options;
    const ownerLookup = this.ownerLookup;
    const mirrorLookup = this.mirrorLookup;
    return {
      ...rest,
      ...(unplanned.size > 0 ? { unplanned } : {}),
      ...(ownerLookup ? {
        previousOwners: (source: string, key: string) => {
          const answer = ownerLookup(source, key);
          let asked = this.owners.get(source);
          if (!asked) this.owners.set(source, (asked = new Map()));
          asked.set(key, answer ?? '');
          return answer;
        },
      } : {}),
      ...(mirrorLookup ? {
        previousMirrors: (origin: string, source: string) => {
          const answer = mirrorLookup(origin, source);
          let asked = this.established.get(source);
          if (!asked) this.established.set(source, (asked = new Map()));
          asked.set(origin, answer);
          return answer;
        },
      } : {}),
    };
  }

  /**
   * Adds the established-mirror answers a partial plan of `source` takes from the lock (those of the
   * targets whose families it kept: a full plan asks them again and gets the same answers).
   */
  carryEstablished(source: string, answers: Readonly<Record<string, boolean>>): void {
    let asked = this.established.get(source);
    if (!asked) this.established.set(source, (asked = new Map()));
    for (const [origin, answer] of Object.entries(answers)) if (!asked.has(origin)) asked.set(origin, answer);
  }

  /** Whether every lookup the record of `source` holds gives the same answer from the records now. */
  lookupsUnchanged(source: string, record: SourceRecord): boolean {
    for (const [key, answer] of Object.entries(record.owners ?? {})) if ((this.ownerLookup?.(source, key) ?? '') !== answer) return false;
    for (const [origin, answer] of Object.entries(record.established ?? {})) if ((this.mirrorLookup?.(origin, source) ?? false) !== answer) return false;
    return true;
  }

  /** The input digest of `source` with pinned IPs `pinned` (undefined: as in the snapshot). */
  private digest(source: string, pinned: Readonly<Record<string, string>> | undefined): string {
    return this.inputs.source(source, this.options.strict ?? false, pinned);
  }

  /**
   * Whether `source` may go unplanned: the lock has its record with the same input digest, every
   * lookup its planning made answers the same now, and every unit folder it recorded is intact.
   */
  skippable(source: string): boolean {
    const state = this.state;
    const previous = state?.sources?.[source];
    const units = state?.records[source];
    // A record of an earlier version (no `families`, or no `contributions` in them) is planned once, so that the lock holds what `check` computes.
    if (!state?.intact || !previous?.families?.contributions || !units || Object.keys(units).length === 0) return false;
    if (previous.inputs !== this.digest(source, this.snapshot.pinnedServiceIPs?.[source])) return false;
    if (!this.lookupsUnchanged(source, previous)) return false;
    for (const [unit, record] of Object.entries(units)) if (!state.intact(source, unit, record.files)) return false;
    return true;
  }

  /**
   * The record of a planned source. Its digest takes the pinned IPs the lock will hold (so the next
   * run, reading them, finds the digest unchanged): planning again with its own allocation gives
   * the same plan when every per-pod Service got its IP. When one did not, the digest takes the
   * pinned IPs planning read instead, so the next run plans the source again.
   */
  record(source: string, plan: FleetPlan['plans'][number], pinnedAfter: Readonly<Record<string, string>> | undefined): SourceRecord {
    const warnings = plan.warnings ?? [];
    const pinFailed = warnings.some((d) => d.code === Diag.PINNED_IP_UNAVAILABLE.code);
    const owners = this.owners.get(source);
    const established = this.established.get(source);
    const pinned = pinFailed ? this.snapshot.pinnedServiceIPs?.[source] : pinnedAfter;
    const strict = this.options.strict ?? false;
    return {
      inputs: this.digest(source, pinned),
      ...(owners && owners.size > 0 ? { owners: sortedRecord(Object.fromEntries(owners)) } : {}),
      ...(established && established.size > 0 ? { established: sortedRecord(Object.fromEntries(established)) } : {}),
      ...(warnings.length > 0 ? { warnings: warnings.map(storedWarning) } : {}),
      ...(plan.linkWarnings ? {
        families: {
          base: this.inputs.base(source, strict, pinned),
          targets: Object.fromEntries(this.inputs.targetsOf(source).map((t) => [t, this.inputs.target(t)])),
          linkWarnings: [...plan.linkWarnings],
          // What each link gave the source-wide steps, `shared`'s mirrors and the Namespaces: a later partial plan may plan its changed links alone.
          ...(plan.contributions ? { contributions: { ...plan.contributions }, ...this.sharedMembers(source, plan), namespaces: [...plan.namespaces] } : {}),
        },
      } : {}),
    };
  }

  /** The digest of `shared`'s planned mirrors: the recorded one when the plan kept `shared` (its mirrors are the recorded ones). */
  private sharedMembers(source: string, plan: FleetPlan['plans'][number]): { sharedMembers?: string } {
    if (plan.keptFamilies?.includes(SHARED_FAMILY)) {
      const recorded = this.state?.sources?.[source]?.families?.sharedMembers;
      return recorded !== undefined ? { sharedMembers: recorded } : {};
    }
    return { sharedMembers: this.inputs.members(plan.units.filter((u) => u.target === undefined)) };
  }
}

/** A warning as the lock stores it (every field of the diagnostic; severity is always warning). */
function storedWarning(d: Diagnostic): NonNullable<SourceRecord['warnings']>[number] {
  return { ...d, severity: 'warning' };
}
