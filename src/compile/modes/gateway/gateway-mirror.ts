/**
 * Gateway (hierarchical) mode: a selectorless Service `<svc>-<target>`, plus Endpoints and
 * EndpointSlices that send every port to the target's gateway (contract §2.2, §4.3).
 */
import { isIPv6 } from 'node:net';
import { Construct } from 'constructs';
import { k8s } from 'cdk8s-plus-28';
import { REMOTE_GATEWAY_IDENTITY_ANNOTATION, REMOTE_SVC_FQ_NAME_ANNOTATION } from '../../../contract/linkerd.js';
import { ENDPOINTSLICE_MANAGED_BY_LABEL, SERVICE_NAME_LABEL, SKIP_MIRROR_LABEL } from '../../../contract/kubernetes.js';
import { COMPILER_NAME } from '../../../contract/mirrorc.js';
import type { ObservedGateway, ObservedPort } from '../../../snapshot/snapshot.js';
import { compareStrings } from '../../../util/order.js';
import { mirrorServicePorts } from '../../mirror-ports.js';
import { endpointSliceName } from '../../names.js';

/** Properties of a {@link GatewayMirror}. */
export interface GatewayMirrorProps {
  /**
   * Namespace of the mirror (the remote service's namespace).
   */
  readonly namespace: string;
  /**
   * Name of the mirror Service, `<svc>-<target>`.
   */
  readonly name: string;
  /**
   * Labels of the Service; Endpoints and EndpointSlices carry them too.
   */
  readonly labels: Readonly<Record<string, string>>;
  /**
   * Annotations of the Service.
   */
  readonly annotations: Readonly<Record<string, string>>;
  /**
   * The remote service's ports, in its order.
   */
  readonly ports: readonly ObservedPort[];
  /**
   * The target's gateway.
   */
  readonly gateway: ObservedGateway;
  /**
   * `<svc>.<ns>.svc.<target domain>`, the proxy's authority for this mirror.
   */
  readonly remoteFqName: string;
  /**
   * A ClusterIP pinned at compile time (per-pod mirrors).
   *
   * @default - allocated by the API server
   */
  readonly clusterIP?: string;
  /**
   * What the endpoints say: `ready` gateway addresses; `not-ready` ones (Linkerd's form for a dead
   * gateway: `notReadyAddresses`, slices `ready: false`); or `empty` (Linkerd's form for a target
   * service without ready endpoints: Endpoints without subsets, slices without endpoints).
   *
   * @default 'ready'
   */
  readonly endpoints?: MirrorEndpoints;
  /**
   * Leave the Endpoints without `endpointslice.kubernetes.io/skip-mirror`, so that Kubernetes'
   * EndpointSlice mirroring keeps (or makes) its own slice of them beside mirrorc's: while a link
   * adopts Linkerd's mirrors, that slice is what the data plane reads until mirrorc's slices are live.
   *
   * @default - false: mirrorc's slices are the only ones
   */
  readonly keepKubernetesSlices?: boolean;
}

/** The three forms of a gateway mirror's endpoints; see {@link GatewayMirrorProps.endpoints}. */
export type MirrorEndpoints = 'ready' | 'not-ready' | 'empty';

/** A gateway-mode mirror: Service + Endpoints + one EndpointSlice per address family. */
export class GatewayMirror extends Construct {
  constructor(scope: Construct, id: string, props: GatewayMirrorProps) {
    super(scope, id);
    const { namespace, name, gateway } = props;
    // Sorted here too, so the output never depends on the order addresses were listed in.
    const gatewayAddresses = [...gateway.addresses].sort(compareStrings);

    new k8s.KubeService(this, 'service', {
      metadata: { name, namespace, labels: { ...props.labels }, annotations: { ...props.annotations } },
      spec: {
        ...(props.clusterIP !== undefined ? { clusterIp: props.clusterIP } : {}),
        // Only ports; no selector, so the endpoints below are used.
        ports: mirrorServicePorts(props.ports),
      },
    });

    // The proxy reads identity and authority from these annotations on Endpoints/EndpointSlices.
    const endpointAnnotations: Record<string, string> = { [REMOTE_SVC_FQ_NAME_ANNOTATION]: props.remoteFqName };
    if (gateway.identity) endpointAnnotations[REMOTE_GATEWAY_IDENTITY_ANNOTATION] = gateway.identity;
    // Port names are the join key between Service and endpoints; every port goes to the gateway port.
    const gatewayPorts = props.ports.map((p) => ({ ...(p.name ? { name: p.name } : {}), port: gateway.port, protocol: p.protocol }));
    const form = props.endpoints ?? 'ready';
    const ready = form === 'ready';
    const addressList = gatewayAddresses.map((ip) => ({ ip }));
    // No subsets at all when empty, as Linkerd writes it (an empty list reads back as absent anyway).
    const subsets = form === 'empty' ? {} : { subsets: [{ ...(ready ? { addresses: addressList } : { notReadyAddresses: addressList }), ports: gatewayPorts }] };

    new k8s.KubeEndpoints(this, 'endpoints', {
      metadata: {
        name,
        namespace,
        // skip-mirror: we write the EndpointSlices ourselves; mirroring these Endpoints would duplicate them.
        labels: props.keepKubernetesSlices === true ? { ...props.labels } : { ...props.labels, [SKIP_MIRROR_LABEL]: 'true' },
        annotations: endpointAnnotations,
      },
      ...subsets,
    });

    for (const addressType of ['IPv4', 'IPv6'] as const) {
      const addresses = gatewayAddresses.filter((ip) => isIPv6(ip) === (addressType === 'IPv6'));
      if (addresses.length === 0) continue;
      new k8s.KubeEndpointSlice(this, `endpointslice-${addressType.toLowerCase()}`, {
        metadata: {
          name: endpointSliceName(name, addressType),
          namespace,
          labels: { ...props.labels, [SERVICE_NAME_LABEL]: name, [ENDPOINTSLICE_MANAGED_BY_LABEL]: COMPILER_NAME },
          annotations: endpointAnnotations,
        },
        addressType,
        // The slices stay when empty (same names, nothing pruned and re-created when endpoints return).
        endpoints: form === 'empty' ? [] : addresses.map((ip) => ({ addresses: [ip], conditions: { ready } })),
        ports: gatewayPorts,
      });
    }
  }
}
