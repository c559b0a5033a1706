import { Construct } from 'constructs';
import { parseDuration } from '../util/duration.js';
import { recordOrigin } from './construct-origin.js';
import { STALENESS_LIMIT_PROPS } from './known-props.js';

const STALENESS_LIMIT_BRAND = Symbol.for('mirrorc.StalenessLimit');

/** Properties of a {@link StalenessLimit}. */
export interface StalenessLimitProps {
  /**
   * How long a cluster may stay unobservable before a run that observes fails with exit 9
   * (STALE_LIMIT), after writing its stale-but-safe output: one or more `<whole number><s|m|h|d>`,
   * e.g. `'24h'` or `'1d12h'`. Measured from the cluster's `staleSince` in the lock (the first run
   * that could not observe it). `--max-stale` on the command line overrides it (`--max-stale off`
   * turns it off for one run).
   *
   * @default - no limit: stale clusters only warn, exit 0
   */
  readonly maxStale: string;
}

/** The fleet's staleness limit, as plain data. */
export interface StalenessLimitSpec {
  /** The limit as written (`'24h'`), for messages. */
  readonly maxStale: string;
  /** The limit in milliseconds. */
  readonly maxStaleMs: number;
}

/**
 * The fleet's default staleness limit: a fleet whose mirrors silently freeze because a cluster
 * stopped answering fails its CI job once that has lasted longer than `maxStale`. One per fleet.
 */
export class StalenessLimit extends Construct {
  /** Whether `x` is a StalenessLimit (works across copies of this library). */
  public static isStalenessLimit(x: unknown): x is StalenessLimit {
    return x !== null && typeof x === 'object' && STALENESS_LIMIT_BRAND in x;
  }

  /** The limit as given. */
  public readonly maxStale: string;

  constructor(scope: Construct, id: string, props: StalenessLimitProps) {
    super(scope, id);
    Object.defineProperty(this, STALENESS_LIMIT_BRAND, { value: true });
    recordOrigin(this, props, STALENESS_LIMIT_PROPS);
    this.maxStale = props.maxStale;
  }
}

/** Problems of the fleet's staleness limits (at most one, with a valid duration). */
export function stalenessLimitProblems(limits: readonly StalenessLimit[]): string[] {
  const problems: string[] = [];
  if (limits.length > 1) problems.push(`staleness limit ${limits[1]!.node.path}: the fleet already has a StalenessLimit (${limits[0]!.node.path}); keep one`);
  for (const limit of limits) {
    if (typeof limit.maxStale !== 'string' || parseDuration(limit.maxStale) === undefined) {
      problems.push(`staleness limit ${limit.node.path}: maxStale ${JSON.stringify(limit.maxStale)} is not a duration; write e.g. '24h', '90m' or '1d12h'`);
    }
  }
  return problems;
}

/** The spec of a valid limit. */
export function stalenessLimitSpec(limit: StalenessLimit): StalenessLimitSpec {
  return { maxStale: limit.maxStale, maxStaleMs: parseDuration(limit.maxStale)! };
}
