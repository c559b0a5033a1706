/**
 * `<svc>-global`: one headless Service per namespace per source that aggregates the pods of a
 * StatefulSet across clusters, with one EndpointSlice per contributing cluster. Each pod appears as
 * hostname `<pod>-<cluster>` at the pinned IP of its per-pod Service, so
 * `<pod>-<cluster>.<svc>-global.<ns>.svc` resolves to one replica and `<svc>-global.<ns>.svc` to all.
 */
import { isIPv6 } from 'node:net';
import { Construct } from 'constructs';
import { k8s } from 'cdk8s-plus-28';
import { ENDPOINTSLICE_MANAGED_BY_LABEL, SERVICE_NAME_LABEL } from '../../../contract/kubernetes.js';
import { COMPILER_NAME, GLOBAL_CLUSTER_LABEL, GLOBAL_SERVICE_LABEL, MANAGED_LABEL, MANAGED_VALUE } from '../../../contract/mirrorc.js';
import type { ObservedEndpointPort, ObservedPort } from '../../../snapshot/snapshot.js';
import { compareStrings } from '../../../util/order.js';
import { mirrorServicePorts, podEndpointPorts } from '../../mirror-ports.js';

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

/** The aggregated headless Service and its EndpointSlices. */
export class GlobalService extends Construct {
  constructor(scope: Construct, id: string, props: GlobalServiceProps) {
    super(scope, id);
    const { namespace, name } = props;
    const labels = { [MANAGED_LABEL]: MANAGED_VALUE, [GLOBAL_SERVICE_LABEL]: name };
    new k8s.KubeService(this, 'service', {
      metadata: { name, namespace, labels },
      // Headless and selectorless: DNS answers from the EndpointSlices below.
      spec: { clusterIp: 'None', ports: mirrorServicePorts(props.ports) },
    });
    for (const slice of props.slices) {
      if (slice.pods.length === 0) continue;
      const pods = [...slice.pods].sort((a, b) => compareStrings(a.hostname, b.hostname));
      new k8s.KubeEndpointSlice(this, `endpointslice-${slice.cluster}`, {
        metadata: {
          name: `${name}-${slice.cluster}`,
          namespace,
          labels: { ...labels, [SERVICE_NAME_LABEL]: name, [ENDPOINTSLICE_MANAGED_BY_LABEL]: COMPILER_NAME, [GLOBAL_CLUSTER_LABEL]: slice.cluster },
        },
        // Every pinned IP comes from the source's one range, so a slice never mixes families.
        addressType: isIPv6(pods[0]!.ip) ? 'IPv6' : 'IPv4',
        endpoints: pods.map((p) => ({ addresses: [p.ip], hostname: p.hostname, conditions: { ready: true } })),
        ports: podEndpointPorts(slice.ports),
      });
    }
  }
}
