/**
 * The input digest of a delivery unit family (`from-<target>` or `shared` of one source; every
 * shard of a family carries its family's digest): a SHA-256 over everything its objects are
 * rendered from, so that an unchanged digest means unchanged objects.
 *
 * It covers generously rather than exactly: the renderer's version, the unit size limit, the whole
 * fleet definition but for how clusters are reached and observed (any other edit of the fleet file
 * renders every unit again), the source's own
 * observation and pinned IPs, the observation of every target the family mirrors (all of the
 * source's targets for `shared`), and the planned mirrors themselves (names, modes, what a name
 * clash or a contested gateway port decided). test/unit/incremental-synth.test.ts checks that an
 * incremental run writes exactly what a full render writes after changes of each kind.
 */
import { createHash } from 'node:crypto';
import type { MirrorUnit } from '../compile/mirror-unit.js';
import { trustRootsOf } from '../compile/trust-anchors/check-trust-anchors.js';
import type { FleetSpec } from '../model/fleet-spec.js';
import type { FleetSnapshot } from '../snapshot/snapshot.js';
import { canonicalJson } from '../util/canonical-json.js';

/** Bumped whenever the rendered text of an unchanged input could change (a new field, another format). */
export const RENDER_FORMAT = 'mirrorc-render-4';
/** Bumped whenever a source's planning reads something its digest ({@link UnitInputs.source}) does not cover. */
export const PLAN_FORMAT = 'mirrorc-plan-1';

/** One unit family of a source: `family` (`from-<target>` or `shared`) of `source`, with its target `target` (undefined for `shared`). */
export interface FamilyKey {
  readonly source: string;
  readonly family: string;
  readonly target: string | undefined;
}

/** Digests of the parts of one run's inputs, each computed once and combined per family. */
export class UnitInputs {
  private readonly fleet: string;
  private readonly targets = new Map<string, string>();
  private readonly sources = new Map<string, string>();

  private readonly linked = new Map<string, string[]>();

  constructor(spec: FleetSpec, private readonly snapshot: FleetSnapshot, private readonly version: string, private readonly maxUnitObjects: number) {
    this.fleet = digest(canonicalJson(renderedPartOf(spec)));
    for (const link of spec.links) {
      const targets = this.linked.get(link.source) ?? [];
      if (!targets.includes(link.target)) targets.push(link.target);
      this.linked.set(link.source, targets);
    }
    for (const targets of this.linked.values()) targets.sort();
  }

  /** The targets `source` links, sorted. */
  targetsOf(source: string): readonly string[] {
    return this.linked.get(source) ?? [];
  }

  /**
   * The digest of everything the planning and rendering of source `source` read but the lock's unit
   * records (whose lookups are replayed instead, see src/pipeline/source-skip.ts): the renderer, the
   * unit size limit, the rendered part of the fleet definition, whether problems are errors
   * (`strict`), its own observation and pinned IPs, the observation of every target it links, and
   * the trust roots of it and of them (which links fail the trust-anchor check).
   * @param pinned the source's pinned IPs to digest (those planning reads, or those it wrote)
   */
  source(source: string, strict: boolean, pinned: Readonly<Record<string, string>> | undefined): string {
    const hash = createHash('sha256');
    hash.update(`${PLAN_FORMAT}\n${RENDER_FORMAT}\n${this.version}\n${this.maxUnitObjects}\n${this.fleet}\n${strict}\n${source}\n${this.sourceDigest(source)}\n`);
    hash.update(`trust:${canonicalJson(trustRootsOf(this.snapshot, source) ?? null)}`);
    for (const t of this.targetsOf(source)) hash.update(`${t}:${this.targetDigest(t)}:${canonicalJson(trustRootsOf(this.snapshot, t) ?? null)}`);
    hash.update(canonicalJson(pinned && Object.keys(pinned).length > 0 ? pinned : null));
    return hash.digest('hex');
  }

  /**
   * The digest of what every unit family of `source` reads but its targets' observations: the
   * renderer, the unit size limit, the rendered fleet definition, `strict`, the source's own
   * observation and pinned IPs, and the names and trust roots of it and of every target it links.
   * While it is unchanged, only the families of targets whose {@link target} digest changed (and
   * `shared`) need planning (src/pipeline/family-plan.ts).
   */
  base(source: string, strict: boolean, pinned: Readonly<Record<string, string>> | undefined): string {
    const hash = createHash('sha256');
    hash.update(`families\n${PLAN_FORMAT}\n${RENDER_FORMAT}\n${this.version}\n${this.maxUnitObjects}\n${this.fleet}\n${strict}\n${source}\n${this.sourceDigest(source)}\n`);
    hash.update(`trust:${canonicalJson(trustRootsOf(this.snapshot, source) ?? null)}`);
    for (const t of this.targetsOf(source)) hash.update(`${t}:${canonicalJson(trustRootsOf(this.snapshot, t) ?? null)}`);
    hash.update(canonicalJson(pinned && Object.keys(pinned).length > 0 ? pinned : null));
    return hash.digest('hex');
  }

  /** The digest of the observation of target `target` (what its `from-<target>` families read of it). */
  target(target: string): string {
    return this.targetDigest(target);
  }

  /** The digest of a family, holding `units`. */
  family(key: FamilyKey, units: readonly MirrorUnit[], pinned: Readonly<Record<string, string>>): string {
    return this.familyOf(key, this.members(units), pinned);
  }

  /**
   * {@link family} from the digest of its planned mirrors ({@link members}): what a source whose
   * `shared` family was kept unplanned records for it (its mirrors are the recorded ones).
   */
  familyOf(key: FamilyKey, members: string, pinned: Readonly<Record<string, string>>): string {
    const { source, family, target } = key;
    const targets = target !== undefined ? [target] : this.targetsOf(source);
    const hash = createHash('sha256');
    hash.update(`${RENDER_FORMAT}\n${this.version}\n${this.maxUnitObjects}\n${this.fleet}\n${family}\n${this.sourceDigest(source)}\n`);
    for (const t of targets) hash.update(`${t}:${this.targetDigest(t)}\n`);
    hash.update(canonicalJson(pinned));
    hash.update(`\n${members}`);
    return hash.digest('hex');
  }

  /** The digest of a family's planned mirrors: names, modes, what a name clash or a contested gateway port decided. */
  members(units: readonly MirrorUnit[]): string {
    const hash = createHash('sha256');
    // One line per planned mirror, its fields joined by characters no name holds (no canonical JSON per mirror).
    let lines = '';
    for (const u of units) {
      lines += `${u.origin}\t${u.namespace}\t${u.mode}\t${u.target ?? '\u0000'}\t${u.serviceNames.join(' ')}\t${u.adoptsLinkerdMirrorsOf ?? '\u0000'}\t${(u.pinnedServiceNames ?? []).join(' ')}\n`;
      if (lines.length > 65536) {
        hash.update(lines);
        lines = '';
      }
    }
    hash.update(lines);
    return hash.digest('hex');
  }

  private sourceDigest(source: string): string {
    let d = this.sources.get(source);
    if (d === undefined) this.sources.set(source, (d = digest(canonicalJson(this.snapshot.sources[source] ?? null))));
    return d;
  }

  private targetDigest(target: string): string {
    let d = this.targets.get(target);
    if (d === undefined) this.targets.set(target, (d = digest(canonicalJson(this.snapshot.targets[target] ?? null))));
    return d;
  }
}

/**
 * The fleet definition without what cannot change a rendered object: how synth reaches each cluster
 * (`access`: a kubeconfig path may differ from machine to machine, and the lock must not), its
 * observation budget, the trust-root expiry warning and the staleness limit.
 */
function renderedPartOf(spec: FleetSpec): unknown {
  const { stalenessLimit: _limit, ...rest } = spec;
  return {
    ...rest,
    clusters: spec.clusters.map(({ access: _access, observationBudget: _budget, trustRootExpiryWarningDays: _days, ...cluster }) => cluster),
  };
}

function digest(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}
