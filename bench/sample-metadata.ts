/**
 * What the generated services carry besides mirrorc's own labels: the metadata real Helm charts and
 * teams put on Services. These keys are sample input data of the benchmark, not part of mirrorc's
 * contract (that lives in src/contract/).
 */

export const APP_NAME_LABEL = 'app.kubernetes.io/name';
export const APP_INSTANCE_LABEL = 'app.kubernetes.io/instance';
export const APP_VERSION_LABEL = 'app.kubernetes.io/version';
export const APP_COMPONENT_LABEL = 'app.kubernetes.io/component';
export const APP_PART_OF_LABEL = 'app.kubernetes.io/part-of';
export const APP_MANAGED_BY_LABEL = 'app.kubernetes.io/managed-by';
export const HELM_CHART_LABEL = 'helm.sh/chart';
export const TEAM_LABEL = 'team';
export const VERSION_LABEL = 'version';
/** Team bookkeeping: every generated link excludes `billing.example.com/*` from the mirrors. */
export const COST_CENTER_LABEL = 'billing.example.com/cost-center';
/** Label values YAML 1.1 or 1.2 would read as something other than a string. */
export const FEATURE_FLAG_LABEL = 'features.example.com/canary';
export const BUILD_LABEL = 'ci.example.com/build';
export const REPLICAS_HINT_LABEL = 'ops.example.com/replicas-hint';

export const PROMETHEUS_SCRAPE_ANNOTATION = 'prometheus.io/scrape';
export const PROMETHEUS_PORT_ANNOTATION = 'prometheus.io/port';
export const PROMETHEUS_PATH_ANNOTATION = 'prometheus.io/path';
export const DESCRIPTION_ANNOTATION = 'docs.example.com/description';
export const OWNER_ANNOTATION = 'docs.example.com/owner';
export const RUNBOOK_ANNOTATION = 'docs.example.com/runbook';
export const OPAQUE_PORTS_ANNOTATION = 'config.linkerd.io/opaque-ports';

/** Application namespaces every generated cluster has (besides the system ones). */
export const APP_NAMESPACES: readonly string[] = ['analytics', 'catalog', 'checkout', 'identity', 'media', 'payments', 'platform', 'search'];

/** Namespaces every cluster has before anyone deploys anything. */
export const SYSTEM_NAMESPACES: readonly string[] = ['default', 'kube-node-lease', 'kube-public', 'kube-system', 'linkerd', 'linkerd-multicluster'];

/** Base names of services; the service index makes them unique. None ends like a mirror (`-c01`, `-federated`, `-global`). */
export const SERVICE_BASES: readonly string[] = [
  'api', 'web', 'worker', 'cache', 'auth', 'cart', 'orders', 'billing', 'ledger', 'indexer', 'recommender', 'profile',
  'session', 'notifier', 'mailer', 'thumbnailer', 'uploader', 'reporter', 'etl', 'inventory', 'pricing', 'shipping', 'reviews', 'tokens',
];

export const TEAMS: readonly string[] = ['checkout-squad', 'core-platform', 'data-eng', 'growth', 'identity', 'media-team', 'payments-ops', 'search-relevance'];
export const COMPONENTS: readonly string[] = ['api', 'backend', 'frontend', 'worker', 'cache'];
export const OWNERS: readonly string[] = [
  'Zoë Ångström\u0085on call: #payments-ops',
  'José Müller <jose@example.com>',
  '山田 太郎 (search)',
  'ops@example.com',
];
/** Values that YAML would parse as a boolean, an octal number and a float when left unquoted. */
export const YAML_AMBIGUOUS_VALUES: readonly string[] = ['yes', '0o12', '1e3', 'on', 'null', '012'];
