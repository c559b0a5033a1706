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
import type { FleetSpec } from '../model/fleet-spec.js';
import type { FleetSnapshot } from '../snapshot/snapshot.js';
import { canonicalJson } from '../util/canonical-json.js';

/** Bumped whenever the rendered text of an unchanged input could change (a new field, another format). */
export const RENDER_FORMAT = 'mirrorc-render-1';

/** Digests of the parts of one run's inputs, each computed once and combined per family. */
export class UnitInputs {
  private readonly fleet: string;
  private readonly targets = new Map<string, string>();
  private readonly sources = new Map<string, string>();

  constructor(private readonly spec: FleetSpec, private readonly snapshot: FleetSnapshot, private readonly version: string, private readonly maxUnitObjects: number) {
    this.fleet = digest(canonicalJson(renderedPartOf(spec)));
  }

  /** The digest of family `family` of `source`, holding `units` (its target `target`, or undefined for `shared`). */
  family(source: string, family: string, target: string | undefined, units: readonly MirrorUnit[], pinned: Readonly<Record<string, string>>): string {
    const targets = target !== undefined ? [target] : [...new Set(this.spec.links.filter((l) => l.source === source).map((l) => l.target))].sort();
    const hash = createHash('sha256');
    hash.update(`${RENDER_FORMAT}\n${this.version}\n${this.maxUnitObjects}\n${this.fleet}\n${family}\n${this.sourceDigest(source)}\n`);
    for (const t of targets) hash.update(`${t}:${this.targetDigest(t)}\n`);
    hash.update(canonicalJson(pinned));
    for (const u of units) {
      hash.update(canonicalJson({ origin: u.origin, namespace: u.namespace, mode: u.mode, target: u.target ?? null, serviceNames: u.serviceNames, adopts: u.adoptsLinkerdMirrorsOf ?? null, pinned: u.pinnedServiceNames ?? [] }));
    }
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
