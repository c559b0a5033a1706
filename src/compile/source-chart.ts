import { Chart } from 'cdk8s';
import { Construct } from 'constructs';
import { SYNC_OPTION_NO_PRUNE, SYNC_OPTIONS_ANNOTATION } from '../contract/argocd.js';
import { FLUX_PRUNE_ANNOTATION, FLUX_PRUNE_DISABLED } from '../contract/flux.js';
import { MIRRORED_RESOURCE_LABEL } from '../contract/linkerd.js';
import { MANAGED_LABEL, MANAGED_VALUE } from '../contract/mirrorc.js';
import type { MirrorUnit, RenderContext } from './mirror-unit.js';
import { addApiObjects, namespaceObject, objectMeta, sortedMap, type KubeObject } from './kube-objects.js';
import { pinnedKey } from './pinned-ips/allocate-pinned-ips.js';

/** Properties of a {@link SourceChart}. */
export interface SourceChartProps {
  /** Namespaces to create in the source (a link asks for missing ones), or that this compiler created and a mirror still needs; sorted. */
  readonly namespaces: readonly string[];
  /** The mirrors of this source, sorted by namespace and name. */
  readonly units: readonly MirrorUnit[];
  /** `namespace/name` → ClusterIP pinned for the units' per-pod Services. */
  readonly pinnedIPs: Readonly<Record<string, string>>;
}

/** Everything one source cluster gets: its chart id is the cluster name, its output `dist/<cluster>/`. */
export class SourceChart extends Chart {
  /** Each mirror unit with the construct its objects are rendered under (delivery groups them by unit). */
  public readonly unitScopes: readonly { readonly unit: MirrorUnit; readonly scope: Construct }[];

  constructor(scope: Construct, public readonly cluster: string, props: SourceChartProps) {
    super(scope, cluster, { disableResourceNameHashes: true });
    for (const ns of props.namespaces) addApiObjects(this, [sourceNamespaceObject(ns)], () => `namespace.${ns}`);
    const context = renderContext(cluster, props.pinnedIPs);
    this.unitScopes = props.units.map((unit, index) => {
      const scope = new Construct(this, `unit.${index}`);
      addApiObjects(scope, unit.objects(context), (o) => `${o.kind}.${o.metadata.name}`);
      return { unit, scope };
    });
  }
}

/** A Namespace synth creates in a source (see {@link SourceChartProps.namespaces}), as written. */
export function sourceNamespaceObject(ns: string): KubeObject {
  return namespaceObject(objectMeta(ns, undefined, NAMESPACE_LABELS, NAMESPACE_ANNOTATIONS));
}

const NAMESPACE_LABELS = sortedMap({ [MIRRORED_RESOURCE_LABEL]: 'true', [MANAGED_LABEL]: MANAGED_VALUE });
// Pruning a Namespace deletes everything in it, including what others put there: GitOps tools
// never delete these; an empty one left behind costs nothing.
const NAMESPACE_ANNOTATIONS = sortedMap({ [SYNC_OPTIONS_ANNOTATION]: SYNC_OPTION_NO_PRUNE, [FLUX_PRUNE_ANNOTATION]: FLUX_PRUNE_DISABLED });

/** What the units of source `cluster` look up when they render: the ClusterIPs pinned in it (`namespace/name` → IP). */
export function renderContext(cluster: string, pinnedIPs: Readonly<Record<string, string>>): RenderContext {
  return {
    pinnedIP: (namespace, name) => {
      const ip = pinnedIPs[pinnedKey(namespace, name)];
      if (ip === undefined) throw new Error(`internal error: no pinned ClusterIP for ${namespace}/${name} in ${cluster}`);
      return ip;
    },
  };
}
