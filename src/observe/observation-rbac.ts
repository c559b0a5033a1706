/**
 * Exactly what observation asks of each cluster's API, as RBAC rules. Observation never uses a
 * verb or resource outside this list, so an identity bound to these rules is sufficient.
 */

/** One RBAC policy rule, in the shape of `rbac.authorization.k8s.io/v1` PolicyRule. */
export interface ObservationRule {
  /** API groups; `''` is the core group. */
  readonly apiGroups: readonly string[];
  /** Resources within those groups. */
  readonly resources: readonly string[];
  /** Verbs allowed. */
  readonly verbs: readonly string[];
}

// Observation only lists (never gets or watches), so the reader role grants `list` and nothing else.
const READ_VERBS = ['list'] as const;

/** What observing a cluster as a link *target* needs: its exported Services (the gateway is one of them). */
export const TARGET_OBSERVATION_RULES: readonly ObservationRule[] = [
  { apiGroups: [''], resources: ['services'], verbs: READ_VERBS },
];

/** What observing a cluster as a link *source* needs: its namespaces and Services (for collisions). */
export const SOURCE_OBSERVATION_RULES: readonly ObservationRule[] = [
  { apiGroups: [''], resources: ['namespaces'], verbs: READ_VERBS },
  { apiGroups: [''], resources: ['services'], verbs: READ_VERBS },
];

/** The union, for a cluster that is both a source and a target. */
export function observationRules(roles: { readonly source: boolean; readonly target: boolean }): ObservationRule[] {
  const byKey = new Map<string, ObservationRule>();
  const rules = [...(roles.target ? TARGET_OBSERVATION_RULES : []), ...(roles.source ? SOURCE_OBSERVATION_RULES : [])];
  for (const rule of rules) {
    for (const group of rule.apiGroups) {
      for (const resource of rule.resources) {
        byKey.set(`${group}/${resource}`, { apiGroups: [group], resources: [resource], verbs: [...rule.verbs] });
      }
    }
  }
  return [...byKey.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([, r]) => r);
}
