import { Construct } from 'constructs';
import { compareBy, compareStrings } from '../util/order.js';
import { Cluster } from './cluster.js';
import { ExplicitExport } from './explicit-export.js';
import type { FleetSpec } from './fleet-spec.js';
import { deliveryProblems, GitOpsDelivery } from './gitops-delivery.js';
import { Link } from './link.js';
import { StalenessLimit, stalenessLimitProblems, stalenessLimitSpec } from './staleness-limit.js';
import { fleetProblems } from './validate-fleet.js';
import { InvalidInputError } from '../errors/mirrorc-error.js';
import { creationLocation, unknownProps } from './construct-origin.js';

const FLEET_BRAND = Symbol.for('mirrorc.Fleet');

/**
 * A function that defines clusters, links and exports on a fleet: the default export of
 * `clusters/fleet.ts`. It must be synchronous and do no I/O (synth is deterministic).
 */
export type FleetDefinition = (fleet: Fleet) => void;

/** The fleet definition is wrong; `problems` lists every mistake found, each naming its construct. */
export class FleetDefinitionError extends InvalidInputError {
  /** Every problem found, one line each, naming its construct. */
  public readonly problems: readonly string[];
  /** Per problem, `file:line:column` of the user's code that created its construct (undefined where unknown). */
  public readonly locations: readonly (string | undefined)[];

  /**
   * @param problems every problem, one line each, naming its construct
   * @param locations per problem, `file:line:column` of the user's code that created its construct (undefined where unknown); shown before it
   */
  constructor(problems: readonly string[], locations: readonly (string | undefined)[] = []) {
    super(`the fleet definition has ${problems.length} problem${problems.length === 1 ? '' : 's'}:\n${problems.map((p, i) => `  - ${locations[i] !== undefined ? `${locations[i]}: ` : ''}${p}`).join('\n')}`);
    this.name = 'FleetDefinitionError';
    this.problems = problems;
    this.locations = locations;
  }
}

/** The kind word each construct's problems start with (`link fleet/l: ...`). */
function kindOf(c: Construct): string {
  if (Cluster.isCluster(c)) return 'cluster';
  if (Link.isLink(c)) return 'link';
  if (ExplicitExport.isExplicitExport(c)) return 'explicit export';
  if (GitOpsDelivery.isGitOpsDelivery(c)) return 'delivery';
  return 'staleness limit';
}

/**
 * Where each problem's construct was created: a problem starts with `<kind> <construct path>: `, and
 * the construct remembers the user's code that created it.
 */
function problemLocations(problems: readonly string[], constructs: readonly Construct[]): (string | undefined)[] {
  const byPrefix = new Map(constructs.map((c) => [`${kindOf(c)} ${c.node.path}: `, c]));
  return problems.map((p) => {
    const prefix = /^[a-z ]+ [^ :]+: /.exec(p)?.[0];
    const construct = prefix === undefined ? undefined : byPrefix.get(prefix);
    return construct ? creationLocation(construct) : undefined;
  });
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
    const constructs: Construct[] = [...clusters, ...links, ...exports, ...deliveries, ...limits];
    const problems = [
      ...constructs.flatMap((c) => unknownProps(c).map((p) => `${kindOf(c)} ${c.node.path}: ${p}`)),
      ...fleetProblems(clusters, links, exports),
      ...deliveryProblems(deliveries, clusters.map((c) => c.name)),
      ...stalenessLimitProblems(limits),
    ];
    if (problems.length > 0) throw new FleetDefinitionError(problems, problemLocations(problems, constructs));
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
