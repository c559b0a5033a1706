/**
 * Work that planning would otherwise repeat for every source. In a full mesh each target service
 * is mirrored into every other cluster, through links that usually share one metadata policy: the
 * copied labels and annotations, the keys kustomize cannot carry, the origin and the fq-name of a
 * mirror depend on the target service, its cluster and the link's metadata policy alone, never on
 * the source. A memo lives for one `planFleet` call (compile stays a pure function of its inputs)
 * and keeps only facts: every warning that belongs to a source is still issued by that source's
 * planning, from the memoised facts (e.g. each undeliverable key is reported once per source and
 * link, as before).
 *
 * Memoised records are frozen and shared between the mirrors of several sources, and so are the
 * objects of a mirror that every source writes alike ({@link PlanMemo.sharedObjects}); the ApiObjects
 * of the constructs copy them (test/unit/plan-memo.test.ts checks that a memo never carries one link's
 * policy into another's mirrors).
 */
import { MIRRORED_RESOURCE_LABEL, REMOTE_CLUSTER_NAME_LABEL, REMOTE_SVC_FQ_NAME_ANNOTATION } from '../contract/linkerd.js';
import { MANAGED_LABEL, MANAGED_VALUE } from '../contract/mirrorc.js';
import type { ClusterSpec, ExplicitExportSpec, LinkSpec, NamespaceFilterSpec } from '../model/fleet-spec.js';
import type { ObservedService } from '../snapshot/snapshot.js';
import { serviceNameProblem } from '../util/k8s-names.js';
import { copiedMetadata, type UndeliverableKey } from './copy-metadata.js';
import { mirrorServiceName, perPodServiceName, remoteFqName } from './names.js';
import { namespaceSelected } from './namespace-filter.js';
import type { KubeObject } from './kube-objects.js';

/** The link fields that decide which labels and annotations a mirror copies. */
export type MetadataPolicy = Pick<LinkSpec, 'excludedLabels' | 'allowedLabels' | 'excludedAnnotations' | 'allowedAnnotations'>;

/** What every mirror of one target service through one metadata policy shares, whatever its source. */
export interface SharedMetadata {
  /** `target/namespace/service`. */
  readonly origin: string;
  /** `<svc>-<target>`, the mirror's name unless renamed (one string for every source, so maps find it fast). */
  readonly name: string;
  /** `<hostname>-<target>` of each of the service's hostnames, in their order (per-pod mirrors). */
  readonly podServiceNames: readonly string[];
  /** `<svc>.<ns>.svc.<target domain>`. */
  readonly fqName: string;
  /** The remote labels the policy copies (per-pod mirrors carry these). */
  readonly copiedLabels: Readonly<Record<string, string>>;
  /** The mirror Service's labels: the copied ones plus the mirror labels of contract §2.1. */
  readonly labels: Readonly<Record<string, string>>;
  /** The mirror Service's annotations: the copied ones plus `remote-svc-fq-name`. */
  readonly annotations: Readonly<Record<string, string>>;
  /** Selected keys left out because kustomize cannot carry them (each source warns about them). */
  readonly undeliverable: readonly UndeliverableKey[];
}

/** Bounds a memo of pure string functions, so that no input can grow it without limit. */
const NAME_CACHE_LIMIT = 200_000;

/** The memo of one planning run; see the module comment. */
export class PlanMemo {
  /** Policy object → target → the number of the (target name, target domain, policy text) it stands for. */
  private readonly variantIds = new WeakMap<MetadataPolicy, WeakMap<ClusterSpec, number>>();
  private readonly variantNumbers = new Map<string, number>();
  /** Per variant number: each service's shared metadata. */
  private readonly metadataTables = new Map<number, Map<ObservedService, SharedMetadata>>();
  /** The last (policy, target) asked for and its table: a link's mirrors are planned one after another. */
  private last: { readonly policy: MetadataPolicy; readonly target: ClusterSpec; readonly table: Map<ObservedService, SharedMetadata> } | undefined;
  private readonly namespaceFilters = new WeakMap<NamespaceFilterSpec, Map<string, boolean>>();
  private readonly nameProblems = new Map<string, string | undefined>();
  private readonly byOwner = new WeakMap<object, Map<string, unknown>>();
  private clustersByName: Map<string, ClusterSpec> | undefined;

  private explicitByKey: Map<string, ExplicitExportSpec> | undefined;

  /**
   * @param clusters the fleet's clusters, for {@link cluster}
   * @param explicitExports the fleet's explicit exports, for {@link explicitExport}
   */
  constructor(private readonly clusters: readonly ClusterSpec[] = [], private readonly explicitExports: readonly ExplicitExportSpec[] = []) {}

  /** The first explicit export of service `namespace/name` of `cluster`, as `explicitExports.find` would give, or undefined. */
  explicitExport(cluster: string, namespace: string, name: string): ExplicitExportSpec | undefined {
    if (this.explicitExports.length === 0) return undefined;
    if (!this.explicitByKey) {
      this.explicitByKey = new Map();
      for (const e of this.explicitExports) {
        const key = JSON.stringify([e.cluster, e.namespace, e.name]);
        if (!this.explicitByKey.has(key)) this.explicitByKey.set(key, e);
      }
    }
    return this.explicitByKey.get(JSON.stringify([cluster, namespace, name]));
  }

  /** The cluster named `name`, or undefined. */
  cluster(name: string): ClusterSpec | undefined {
    if (!this.clustersByName) {
      // The first of a name, as `clusters.find` would give.
      this.clustersByName = new Map();
      for (const c of this.clusters) if (!this.clustersByName.has(c.name)) this.clustersByName.set(c.name, c);
    }
    return this.clustersByName.get(name);
  }

  /** The shared metadata of `service` of `target` as mirrored through a link with `policy`. */
  metadata(service: ObservedService, target: ClusterSpec, policy: MetadataPolicy): SharedMetadata {
    let table = this.last !== undefined && this.last.policy === policy && this.last.target === target ? this.last.table : undefined;
    if (!table) {
      const variant = this.variant(target, policy);
      table = this.metadataTables.get(variant);
      if (!table) this.metadataTables.set(variant, (table = new Map()));
      this.last = { policy, target, table };
    }
    let shared = table.get(service);
    if (!shared) table.set(service, (shared = sharedMetadata(service, target, policy)));
    return shared;
  }

  /** Whether a link with namespace filter `filter` mirrors services of `namespace` ({@link namespaceSelected}, memoised per filter). */
  namespaceSelected(filter: NamespaceFilterSpec, namespace: string): boolean {
    let byNamespace = this.namespaceFilters.get(filter);
    if (!byNamespace) this.namespaceFilters.set(filter, (byNamespace = new Map()));
    let selected = byNamespace.get(namespace);
    if (selected === undefined) byNamespace.set(namespace, (selected = namespaceSelected(filter, namespace)));
    return selected;
  }

  /**
   * `compute()`, once per `owner` object and `key` text: for facts that depend on one object of the
   * snapshot (e.g. a target's observation) and a few fields of a link, given as `key` (equal text,
   * equal fact; the caller names its table in the key).
   */
  shared<T>(owner: object, key: string, compute: () => T): T {
    let byKey = this.byOwner.get(owner);
    if (!byKey) this.byOwner.set(owner, (byKey = new Map()));
    if (byKey.has(key)) return byKey.get(key) as T;
    const value = compute();
    byKey.set(key, value);
    return value;
  }

  /**
   * The objects of a mirror that every source writes alike (a gateway or flat mirror of one target
   * service through one metadata policy), computed once and frozen: the render path writes a frozen
   * object's file once and reuses the text (src/emit/render-units.ts).
   * @param owner the memo's shared record the objects derive from (a {@link SharedMetadata} map)
   * @param key every other input of the objects (equal JSON text, equal objects)
   */
  sharedObjects(owner: object, key: readonly unknown[], compute: () => KubeObject[]): readonly KubeObject[] {
    return this.shared(owner, `objects ${JSON.stringify(key)}`, () => Object.freeze(compute().map((o) => Object.freeze(o))));
  }

  /** Why `name` is not a Service name ({@link serviceNameProblem}, memoised). */
  serviceNameProblem(name: string): string | undefined {
    if (this.nameProblems.has(name)) return this.nameProblems.get(name);
    const problem = serviceNameProblem(name);
    if (this.nameProblems.size >= NAME_CACHE_LIMIT) this.nameProblems.clear();
    this.nameProblems.set(name, problem);
    return problem;
  }

  /**
   * A number that is equal for two (target, policy) pairs exactly when they give the same metadata:
   * the target's name and domain (a snapshot may hold one service object for several targets) and
   * the policy's lists, compared as text. Worked out once per link, not per mirror.
   */
  private variant(target: ClusterSpec, policy: MetadataPolicy): number {
    let byTarget = this.variantIds.get(policy);
    if (!byTarget) this.variantIds.set(policy, (byTarget = new WeakMap()));
    let id = byTarget.get(target);
    if (id === undefined) {
      const text = JSON.stringify([target.name, target.clusterDomain, policy.excludedLabels, policy.allowedLabels ?? null, policy.excludedAnnotations, policy.allowedAnnotations ?? null]);
      id = this.variantNumbers.get(text);
      if (id === undefined) this.variantNumbers.set(text, (id = this.variantNumbers.size));
      byTarget.set(target, id);
    }
    return id;
  }
}

function sharedMetadata(service: ObservedService, target: ClusterSpec, policy: MetadataPolicy): SharedMetadata {
  const fqName = remoteFqName(service.name, service.namespace, target.clusterDomain);
  const { labels, annotations, undeliverable } = copiedMetadata(service, policy);
  const copied = Object.freeze(labels);
  return Object.freeze({
    origin: `${target.name}/${service.namespace}/${service.name}`,
    name: mirrorServiceName(service.name, target.name),
    podServiceNames: Object.freeze((service.hostnames ?? []).map((h) => perPodServiceName(h, target.name))),
    fqName,
    copiedLabels: copied,
    labels: Object.freeze({ ...copied, [MIRRORED_RESOURCE_LABEL]: 'true', [REMOTE_CLUSTER_NAME_LABEL]: target.name, [MANAGED_LABEL]: MANAGED_VALUE }),
    annotations: Object.freeze({ ...annotations, [REMOTE_SVC_FQ_NAME_ANNOTATION]: fqName }),
    undeliverable: Object.freeze(undeliverable),
  });
}
