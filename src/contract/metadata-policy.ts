/**
 * The metadata policy: which label and annotation keys of a target's Service may reach the mirror
 * objects written into a source cluster, by key family, each with its reason. Defined once; every
 * mode's mirror copies metadata through it (src/compile/copy-metadata.ts), and a link's allow-list
 * is checked against it (src/model/validate-fleet.ts).
 *
 * A key family is named by patterns: `a.b/c` is one key, `a.b/*` every key with the prefix `a.b`,
 * `*.a.b/*` every key whose prefix is a subdomain of `a.b`, and `a.b*` every key starting with `a.b`.
 * The first family that matches a key decides; a key no family matches is copied.
 */
import { OPAQUE_PORTS_ANNOTATION, SVC_MIRROR_PREFIX } from './linkerd.js';
import { COMPILER_NAME } from './mirrorc.js';

/** Labels or annotations. */
export type MetadataKind = 'label' | 'annotation';

/**
 * What happens to the keys of a family: `always` copied (whatever the link excludes or allows),
 * `allowed` copied unless the link excludes them or its allow-list leaves them out, `never` copied.
 */
export type CopyRule = 'always' | 'allowed' | 'never';

/** One family of keys and how mirrors treat it. */
export interface KeyFamily {
  /** Patterns naming the family's keys (see the module comment). */
  readonly patterns: readonly string[];
  /** Whether the family governs labels, annotations or both. */
  readonly kinds: readonly MetadataKind[];
  /** Whether its keys are copied. */
  readonly rule: CopyRule;
  /** Why, in plain words. */
  readonly reason: string;
}

const BOTH: readonly MetadataKind[] = ['label', 'annotation'];

/** The policy, in order: the first family matching a key decides. */
export const METADATA_POLICY: readonly KeyFamily[] = [
  {
    patterns: [OPAQUE_PORTS_ANNOTATION],
    kinds: ['annotation'],
    rule: 'always',
    reason: 'the source\'s proxies must know which ports of the service are opaque; Linkerd copies it whatever a link excludes, and so does mirrorc',
  },
  {
    patterns: [`${SVC_MIRROR_PREFIX}*`],
    kinds: BOTH,
    rule: 'never',
    reason: 'Linkerd\'s mirror keys: the source\'s service mirror, destination controller and proxies read them (cluster name, remote fq-name, gateway identity); mirrorc writes the ones each mode needs',
  },
  {
    patterns: [`${COMPILER_NAME}/*`, `*.${COMPILER_NAME}/*`],
    kinds: BOTH,
    rule: 'never',
    reason: 'mirrorc\'s own keys: observation and compile read them (managed, global, global-service), so only mirrorc writes them; a target\'s mirrorc.io/global still opts its service in, without being copied',
  },
  {
    patterns: ['multicluster.linkerd.io/*'],
    kinds: BOTH,
    rule: 'never',
    reason: 'the destination controller resolves a Service carrying remote-discovery/remote-service through another cluster\'s API with the source\'s credentials; mirrorc writes these keys only where flat or federated mode needs them',
  },
  {
    patterns: ['config.linkerd.io/*', 'retry.linkerd.io/*', 'timeout.linkerd.io/*'],
    kinds: BOTH,
    rule: 'allowed',
    reason: 'they describe the service to its clients\' proxies (protocol, retries, timeouts); Linkerd\'s own mirror copies them',
  },
  {
    patterns: ['linkerd.io/*', '*.linkerd.io/*'],
    kinds: BOTH,
    rule: 'never',
    reason: 'Linkerd\'s own bookkeeping: linkerd uninstall and extension uninstalls select the objects they delete by keys such as linkerd.io/control-plane-ns and linkerd.io/extension',
  },
  {
    patterns: ['app.kubernetes.io/instance'],
    kinds: ['label'],
    rule: 'never',
    reason: 'Argo CD\'s default tracking label: the source\'s Argo CD would claim the mirror for the target\'s application and prune it',
  },
  {
    patterns: ['app.kubernetes.io/managed-by'],
    kinds: BOTH,
    rule: 'never',
    reason: 'names the tool that manages the object (the mirror is managed by mirrorc); with Helm\'s meta.helm.sh annotations it lets a Helm release in the source adopt the mirror',
  },
  {
    patterns: ['app.kubernetes.io/*'],
    kinds: BOTH,
    rule: 'allowed',
    reason: 'Kubernetes\' recommended descriptive labels (name, version, component, part-of): no controller acts on them',
  },
  {
    patterns: ['kubectl.kubernetes.io/*'],
    kinds: BOTH,
    rule: 'never',
    reason: 'kubectl\'s bookkeeping: last-applied-configuration drives kubectl apply\'s three-way merge in the source; the others describe the target\'s workloads',
  },
  {
    patterns: ['service.kubernetes.io/*'],
    kinds: BOTH,
    rule: 'never',
    reason: 'kube-proxy and the endpoint controllers of the source read them: service-proxy-name makes kube-proxy ignore the mirror, headless and the topology keys change how it is served',
  },
  {
    patterns: ['endpointslice.kubernetes.io/*'],
    kinds: BOTH,
    rule: 'never',
    reason: 'they decide which controller owns or mirrors the endpoints (managed-by, skip-mirror); mirrorc writes its own',
  },
  {
    patterns: ['config.kubernetes.io/*', 'internal.config.kubernetes.io/*'],
    kinds: BOTH,
    rule: 'never',
    reason: 'kustomize and kpt read them while building: config.kubernetes.io/local-config: "true" makes kustomize drop the mirror Service while its Endpoints still apply',
  },
  {
    patterns: ['kustomize.config.k8s.io/*'],
    kinds: BOTH,
    rule: 'never',
    reason: 'kustomize\'s per-resource options (behavior, needs-hash) change how the source\'s kustomize build treats the mirror',
  },
  {
    patterns: ['config.k8s.io/*', 'cli-utils.sigs.k8s.io/*'],
    kinds: BOTH,
    rule: 'never',
    reason: 'kpt and cli-utils inventories: owning-inventory makes kpt live apply in the source claim and prune the mirror',
  },
  {
    patterns: ['kubernetes.io/*', '*.kubernetes.io/*', 'k8s.io/*', '*.k8s.io/*'],
    kinds: BOTH,
    rule: 'never',
    reason: 'reserved for Kubernetes and its add-ons, which act on them in the source (e.g. external-dns.alpha.kubernetes.io/hostname publishes the mirror under the target\'s DNS name, service.beta.kubernetes.io/* configures cloud load balancers)',
  },
  {
    patterns: ['argoproj.io/*', '*.argoproj.io/*'],
    kinds: BOTH,
    rule: 'never',
    reason: 'Argo CD\'s per-object keys (argocd.argoproj.io/tracking-id, instance, sync-options, hook; link.argocd.argoproj.io/* deep links): the source\'s Argo CD would claim, prune, hook or link the mirror by them',
  },
  {
    patterns: ['fluxcd.io/*', '*.fluxcd.io/*'],
    kinds: BOTH,
    rule: 'never',
    reason: 'Flux\'s ownership and per-object settings (kustomize.toolkit.fluxcd.io/name, prune, ssa; helm.toolkit.fluxcd.io/*): the source\'s Flux would claim the mirror or stop reconciling it',
  },
  {
    patterns: ['helm.sh/*'],
    kinds: BOTH,
    rule: 'never',
    reason: 'Helm\'s keys: Argo CD runs an object with helm.sh/hook as a sync hook (deleted and recreated around syncs), helm.sh/resource-policy keeps it after uninstall, helm.sh/chart describes the target\'s release',
  },
  {
    patterns: ['meta.helm.sh/*'],
    kinds: BOTH,
    rule: 'never',
    reason: 'Helm\'s release ownership: a release in the source named like the target\'s would adopt the mirror (and delete it on uninstall)',
  },
  {
    patterns: ['k14s.io/*', '*.k14s.io/*'],
    kinds: BOTH,
    rule: 'never',
    reason: 'kapp\'s ownership keys (kapp.k14s.io/app, association): kapp in the source would claim and prune the mirror',
  },
  {
    patterns: ['cattle.io/*', '*.cattle.io/*'],
    kinds: BOTH,
    rule: 'never',
    reason: 'Rancher\'s apply engine (objectset.rio.cattle.io/*, Fleet) claims and prunes objects carrying them',
  },
];

/** The part of a key before its `/`, or undefined for a key without prefix. */
function keyPrefix(key: string): string | undefined {
  const slash = key.indexOf('/');
  return slash < 0 ? undefined : key.slice(0, slash);
}

/** Whether `pattern` names every key with prefix `prefix` (the pattern is not a single key). */
function patternCoversPrefix(pattern: string, prefix: string): boolean {
  if (pattern.startsWith('*.') && pattern.endsWith('/*')) return prefix.endsWith(pattern.slice(1, -2));
  if (pattern.endsWith('/*')) return prefix === pattern.slice(0, -2);
  if (pattern.endsWith('*')) return prefix.startsWith(pattern.slice(0, -1));
  return false;
}

/** Whether `pattern` names `key`. */
function patternMatches(pattern: string, key: string): boolean {
  if (!pattern.endsWith('*')) return key === pattern;
  if (!pattern.endsWith('/*')) return key.startsWith(pattern.slice(0, -1));
  const prefix = keyPrefix(key);
  return prefix !== undefined && patternCoversPrefix(pattern, prefix);
}

/** The family that decides about `key`, or undefined when none does (the key is then copied). */
export function keyFamily(key: string, kind: MetadataKind): KeyFamily | undefined {
  return METADATA_POLICY.find((f) => f.kinds.includes(kind) && f.patterns.some((p) => patternMatches(p, key)));
}

/** The family that decides about every key with prefix `prefix` (single-key families aside), or undefined. */
export function prefixFamily(prefix: string, kind: MetadataKind): KeyFamily | undefined {
  return METADATA_POLICY.find((f) => f.kinds.includes(kind) && f.patterns.some((p) => patternCoversPrefix(p, prefix)));
}

/** How the policy treats `key`: families decide, every other key is `allowed`. */
export function copyRule(key: string, kind: MetadataKind): CopyRule {
  // The same keys come back for every service and source: decide each once (a pure function of key and kind).
  const cache = kind === 'label' ? labelRules : annotationRules;
  let rule = cache.get(key);
  if (rule === undefined) {
    rule = keyFamily(key, kind)?.rule ?? 'allowed';
    if (cache.size >= RULE_CACHE_LIMIT) cache.clear();
    cache.set(key, rule);
  }
  return rule;
}

const labelRules = new Map<string, CopyRule>();
const annotationRules = new Map<string, CopyRule>();
const RULE_CACHE_LIMIT = 50_000;

/**
 * Whether a link allow-list entry matches `key`: `a.b/*` every key with prefix `a.b` (the prefix
 * exactly, unlike exclusions), any other entry that one key.
 */
export function allowEntryMatches(entry: string, key: string): boolean {
  return entry.endsWith('/*') ? keyPrefix(key) === entry.slice(0, -2) : key === entry;
}

/** The family an allow-list entry names when that family is never copied (so the entry is a mistake), or undefined. */
export function forbiddenFamilyOfEntry(entry: string, kind: MetadataKind): KeyFamily | undefined {
  const family = entry.endsWith('/*') ? prefixFamily(entry.slice(0, -2), kind) : keyFamily(entry, kind);
  return family?.rule === 'never' ? family : undefined;
}

/**
 * Characters that kustomize cannot carry through its YAML round trip (its go-yaml v3 emitter writes them
 * raw): NEL, U+2028 and U+2029 come out as spaces; DEL, the other C1 controls, U+FFFE and U+FFFF make the
 * build fail. Argo CD, Flux and `kubectl apply -k` all build `dist/<cluster>/` with kustomize, so a label
 * or annotation whose key or value holds one is never copied (compile warns, naming it).
 */
export const KUSTOMIZE_UNSAFE = /[\x7f-\x9f\u2028\u2029\ufffe\uffff]/;

/** `U+0085, U+2028`: the kustomize-unsafe characters of `text`, for messages. */
export function kustomizeUnsafeCharacters(text: string): string {
  const found = new Set<string>();
  for (const ch of text) if (KUSTOMIZE_UNSAFE.test(ch)) found.add(`U+${ch.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}`);
  return [...found].join(', ');
}
