/**
 * `<svc>-global`: one headless Service per namespace per source that aggregates the pods of a
 * StatefulSet across clusters, with one EndpointSlice per contributing cluster. Each pod appears as
 * hostname `<pod>-<cluster>` at the pinned IP of its per-pod Service, so
 * `<pod>-<cluster>.<svc>-global.<ns>.svc` resolves to one replica and `<svc>-global.<ns>.svc` to all.
 */
import { isIPv6 } from 'node:net';
import { Construct } from 'constructs';
import { ENDPOINTSLICE_MANAGED_BY_LABEL, SERVICE_NAME_LABEL } from '../../../contract/kubernetes.js';
import { COMPILER_NAME, GLOBAL_CLUSTER_LABEL, GLOBAL_SERVICE_LABEL, MANAGED_LABEL, MANAGED_VALUE } from '../../../contract/mirrorc.js';
import type { ObservedEndpointPort, ObservedPort } from '../../../snapshot/snapshot.js';
import { compareStrings } from '../../../util/order.js';
import { mirrorServicePorts, podEndpointPorts } from '../../mirror-ports.js';
import { addApiObjects, endpointSliceObject, objectMeta, serviceObject, sortedMap, type KubeObject } from '../../kube-objects.js';

/** The pods one cluster contributes. */
export interface GlobalSlice {
  readonly cluster: string;
  /** Container ports of that cluster's pods. */
  readonly ports: readonly ObservedEndpointPort[];
  /** Hostname (`<pod>-<cluster>`) and pinned IP of each pod. */
  readonly pods: readonly { readonly hostname: string; readonly ip: string }[];
}

/** Properties of a {@link GlobalService}. */
export interface GlobalServiceProps {
  /**
   * Namespace of the Service (the aggregated services' namespace).
   */
  readonly namespace: string;
  /**
   * `<svc>-global`.
   */
  readonly name: string;
  /**
   * The Service's ports: those of the first contributor by precedence.
   */
  readonly ports: readonly ObservedPort[];
  /**
   * One per contributing cluster, in precedence order.
   */
  readonly slices: readonly GlobalSlice[];
}

/** The objects of a `-global` Service, as written: the headless Service and one EndpointSlice per contributing cluster with pods (src/compile/kube-objects.ts). */
export function globalServiceObjects(props: GlobalServiceProps): KubeObject[] {
  const { namespace, name } = props;
  const labels = { [MANAGED_LABEL]: MANAGED_VALUE, [GLOBAL_SERVICE_LABEL]: name };
  // Headless and selectorless: DNS answers from the EndpointSlices below.
  const objects: KubeObject[] = [serviceObject(objectMeta(name, namespace, sortedMap(labels)), { clusterIP: 'None', ports: mirrorServicePorts(props.ports) })];
  for (const slice of props.slices) {
    if (slice.pods.length === 0) continue;
    const pods = [...slice.pods].sort((a, b) => compareStrings(a.hostname, b.hostname));
    objects.push(endpointSliceObject(
      objectMeta(`${name}-${slice.cluster}`, namespace, sortedMap({ ...labels, [SERVICE_NAME_LABEL]: name, [ENDPOINTSLICE_MANAGED_BY_LABEL]: COMPILER_NAME, [GLOBAL_CLUSTER_LABEL]: slice.cluster })),
      // Every pinned IP comes from the source's one range, so a slice never mixes families.
      isIPv6(pods[0]!.ip) ? 'IPv6' : 'IPv4',
      pods.map((p) => ({ addresses: [p.ip], conditions: { ready: true }, hostname: p.hostname })),
      podEndpointPorts(slice.ports),
    ));
  }
  return objects;
}

/** The aggregated headless Service and its EndpointSlices: ApiObjects of `globalServiceObjects`, the objects the render path writes. */
export class GlobalService extends Construct {
  constructor(scope: Construct, id: string, props: GlobalServiceProps) {
    super(scope, id);
    // Slice names are `<name>-<cluster>`: the slice's id is `endpointslice-<cluster>`.
    addApiObjects(this, globalServiceObjects(props), (o) => (o.kind === 'Service' ? 'service' : `endpointslice-${o.metadata.name.slice(props.name.length + 1)}`));
  }
}
