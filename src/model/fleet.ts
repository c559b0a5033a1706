import { Construct } from 'constructs';
import { compareBy, compareStrings } from '../util/order.js';
import { Cluster } from './cluster.js';
import { ExplicitExport } from './explicit-export.js';
import type { FleetSpec } from './fleet-spec.js';
import { deliveryProblems, GitOpsDelivery } from './gitops-delivery.js';
import { Link } from './link.js';
import { StalenessLimit, stalenessLimitProblems, stalenessLimitSpec } from './staleness-limit.js';
import { fleetProblems } from './validate-fleet.js';

const FLEET_BRAND = Symbol.for('mirrorc.Fleet');

/**
 * A function that defines clusters, links and exports on a fleet: the default export of
 * `clusters/fleet.ts`. It must be synchronous and do no I/O (synth is deterministic).
 */
export type FleetDefinition = (fleet: Fleet) => void;

/** The fleet definition is wrong; `problems` lists every mistake found, each naming its construct. */
export class FleetDefinitionError extends Error {
  /** Every problem found, one line each, naming its construct. */
  public readonly problems: readonly string[];

  /** @param problems every problem, one line each, naming its construct */
  constructor(problems: readonly string[]) {
    super(`the fleet definition has ${problems.length} problem${problems.length === 1 ? '' : 's'}:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
    this.name = 'FleetDefinitionError';
    this.problems = problems;
  }
}

/**
 * The root of a fleet definition: every {@link Cluster}, {@link Link} and {@link ExplicitExport}
 * created anywhere below it belongs to it. Usable inside any cdk8s app or construct tree.
 */
export class Fleet extends Construct {
  /** Whether `x` is a Fleet (works across copies of this library). */
  public static isFleet(x: unknown): x is Fleet {
    return x !== null && typeof x === 'object' && FLEET_BRAND in x;
  }

  /** The fleet that `construct` belongs to. */
  public static of(construct: Construct): Fleet {
    const fleet = construct.node.scopes.slice().reverse().find((s) => Fleet.isFleet(s));
    if (!fleet) throw new Error(`${construct.node.path} is not inside a Fleet`);
    return fleet as Fleet;
  }

  constructor(scope: Construct, id: string) {
    super(scope, id);
    Object.defineProperty(this, FLEET_BRAND, { value: true });
  }

  /** Clusters of this fleet, in construct order. */
  public get clusters(): Cluster[] {
    return this.node.findAll().filter((c): c is Cluster => Cluster.isCluster(c));
  }

  /** Links of this fleet, in construct order. */
  public get links(): Link[] {
    return this.node.findAll().filter((c): c is Link => Link.isLink(c));
  }

  /** Explicit exports of this fleet, in construct order. */
  public get explicitExports(): ExplicitExport[] {
    return this.node.findAll().filter((c): c is ExplicitExport => ExplicitExport.isExplicitExport(c));
  }

  /**
   * The validated fleet as plain, sorted data.
   * @throws FleetDefinitionError listing every problem, before anything touches a cluster
   */
  public toSpec(): FleetSpec {
    const clusters = this.clusters;
    const links = this.links;
    const exports = this.explicitExports;
    const deliveries = this.node.findAll().filter((c): c is GitOpsDelivery => GitOpsDelivery.isGitOpsDelivery(c));
    const limits = this.node.findAll().filter((c): c is StalenessLimit => StalenessLimit.isStalenessLimit(c));
    const problems = [...fleetProblems(clusters, links, exports), ...deliveryProblems(deliveries, clusters.map((c) => c.name)), ...stalenessLimitProblems(limits)];
    if (problems.length > 0) throw new FleetDefinitionError(problems);
    return {
      clusters: clusters.map((c) => c.toSpec()).sort(compareBy((c) => c.name)),
      links: links.map((l) => l.toSpec()).sort(compareBy((l) => l.source, (l) => l.target)),
      explicitExports: exports
        .map((e) => e.toSpec())
        .sort(compareBy((e) => e.cluster, (e) => e.namespace, (e) => e.name)),
      ...(deliveries[0] ? { delivery: deliveries[0].toSpec() } : {}),
      ...(limits[0] ? { stalenessLimit: stalenessLimitSpec(limits[0]) } : {}),
    };
  }

  /** Names of all clusters, sorted. */
  public get clusterNames(): string[] {
    return this.clusters.map((c) => c.name).sort(compareStrings);
  }
}
