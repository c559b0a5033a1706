/**
 * How much and how long observing one cluster may take. A target belongs to another team and its
 * API server may be buggy, overloaded or hostile: a cluster that needs more than its budget is
 * treated like an unreachable one (its last known state is kept, a warning names the budget) and
 * the rest of the fleet proceeds. The defaults and why: docs/observation-budgets.md.
 */

/** A cluster's observation budget, as the fleet definition gives it (every field optional). */
export interface ObservationBudgetProps {
  /**
   * Wall-clock time for observing the cluster in one role (target or source), in seconds: every
   * request, page, DNS lookup and probe of it together. A stalled or trickling API server is cut
   * off when it runs out.
   *
   * @default 120
   */
  readonly deadlineSeconds?: number;
  /**
   * API requests (list pages and gets, retries included) for observing the cluster in one role.
   *
   * @default 10000
   */
  readonly maxRequests?: number;
  /**
   * Items per page asked of the API server (its `limit` parameter).
   *
   * @default 500
   */
  readonly listPageSize?: number;
  /**
   * Pages of one list (an API server that always answers with a `continue` token is stopped here).
   *
   * @default 1000
   */
  readonly maxPagesPerList?: number;
  /**
   * Items of one list, all pages together (Services, EndpointSlices, namespaces, ServiceExports).
   *
   * @default 50000
   */
  readonly maxItemsPerList?: number;
  /**
   * Response bytes of one list, all pages together, counted as they arrive (after decompression);
   * a response that would pass it is aborted, not read whole. Also the limit of one get.
   *
   * @default - 67108864 (64 MiB)
   */
  readonly maxBytesPerList?: number;
  /**
   * JSON values of one list, all pages together (every object, array, string, number, `true`,
   * `false` and `null`; object keys not counted), counted as the bytes arrive, before they are
   * parsed: what bounds the memory of the parsed answer whatever its shape. Also the limit of one get.
   *
   * @default 4000000
   */
  readonly maxValuesPerList?: number;
  /**
   * Objects and arrays open at once in one answer, counted as the bytes arrive.
   *
   * @default 64
   */
  readonly maxNestingDepth?: number;
  /**
   * Bytes of one string (key or value, escapes counted as sent) or one number in an answer,
   * counted as the bytes arrive.
   *
   * @default - 2097152 (2 MiB)
   */
  readonly maxStringBytes?: number;
  /**
   * Gateway addresses the opt-in gateway probe tries (`gateway.probe`); further addresses are not probed.
   *
   * @default 8
   */
  readonly maxProbeAddresses?: number;
  /**
   * Time for the whole gateway probe of the cluster (all attempts and addresses), in seconds; a
   * probe that runs out of it counts as failed.
   *
   * @default 30
   */
  readonly maxProbeSeconds?: number;
}

/** A cluster's observation budget with defaults applied. */
export type ObservationBudgetSpec = Required<ObservationBudgetProps>;

/** The default budget (docs/observation-budgets.md says why each value). */
export const DEFAULT_OBSERVATION_BUDGET: ObservationBudgetSpec = {
  deadlineSeconds: 120,
  maxRequests: 10_000,
  listPageSize: 500,
  maxPagesPerList: 1_000,
  maxItemsPerList: 50_000,
  maxBytesPerList: 64 * 1024 * 1024,
  maxValuesPerList: 4_000_000,
  maxNestingDepth: 64,
  maxStringBytes: 2 * 1024 * 1024,
  maxProbeAddresses: 8,
  maxProbeSeconds: 30,
};

/** The budget fields, in the order messages list them. */
export const OBSERVATION_BUDGET_FIELDS = Object.keys(DEFAULT_OBSERVATION_BUDGET) as (keyof ObservationBudgetSpec)[];

/** `props` over the defaults (fields left out, or undefined, take the default). */
export function resolveObservationBudget(props: ObservationBudgetProps | undefined): ObservationBudgetSpec {
  const budget: Record<string, unknown> = { ...DEFAULT_OBSERVATION_BUDGET };
  for (const [key, value] of Object.entries(props ?? {})) if (value !== undefined) budget[key] = value;
  return budget as ObservationBudgetSpec;
}

/** Why `budget` cannot be used: unknown fields, or values that are not positive whole numbers (seconds may be fractional). */
export function observationBudgetProblems(budget: unknown): string[] {
  if (budget === null || typeof budget !== 'object' || Array.isArray(budget)) return [`observationBudget is not an object such as { deadlineSeconds: 120 }`];
  const problems: string[] = [];
  for (const [key, value] of Object.entries(budget)) {
    if (!(OBSERVATION_BUDGET_FIELDS as string[]).includes(key)) {
      problems.push(`observationBudget.${key} is not a budget field (one of ${OBSERVATION_BUDGET_FIELDS.join(', ')})`);
      continue;
    }
    const seconds = key.endsWith('Seconds');
    const ok = typeof value === 'number' && Number.isFinite(value) && value > 0 && (seconds || Number.isInteger(value));
    if (!ok) problems.push(`observationBudget.${key} ${JSON.stringify(value)} is not a ${seconds ? 'positive number of seconds' : 'positive whole number'}`);
  }
  return problems;
}
