/**
 * Gateway (hierarchical) mode: a selectorless Service `<svc>-<target>`, plus Endpoints and
 * EndpointSlices that send every port to the target's gateway (contract §2.2, §4.3).
 */
import { Construct } from 'constructs';
import { REMOTE_GATEWAY_IDENTITY_ANNOTATION, REMOTE_SVC_FQ_NAME_ANNOTATION } from '../../../contract/linkerd.js';
import type { ObservedGateway, ObservedPort } from '../../../snapshot/snapshot.js';
import { appendAll } from '../../../util/append-all.js';
import { compareStrings } from '../../../util/order.js';
import { mirrorServicePorts } from '../../mirror-ports.js';
import { mirrorEndpointsLabels, mirrorLabels, mirrorSliceObjects, type SlicesBy } from '../../mirror-slices.js';
import { addApiObjects, byAddressFamily, endpointsObject, objectMeta, serviceObject, sortedMap, type KubeObject } from '../../kube-objects.js';

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
   * Who makes the EndpointSlices: mirrorc, or Kubernetes' EndpointSlice mirroring controller from
   * the Endpoints (Linkerd's form, for links that adopt Linkerd's mirrors; mirrorc's slices are then
   * written retired). See src/compile/mirror-slices.ts.
   *
   * @default 'mirrorc'
   */
  readonly slicesBy?: SlicesBy;
}

/** The three forms of a gateway mirror's endpoints; see {@link GatewayMirrorProps.endpoints}. */
export type MirrorEndpoints = 'ready' | 'not-ready' | 'empty';

/**
 * The objects of a gateway-mode mirror, as written: Service, Endpoints and one EndpointSlice per
 * address family (src/compile/kube-objects.ts).
 */
export function gatewayMirrorObjects(props: GatewayMirrorProps): KubeObject[] {
  const { namespace, name, gateway } = props;
  // Sorted here too, so the output never depends on the order addresses were listed in.
  const gatewayAddresses = [...gateway.addresses].sort(compareStrings);
  const labels = mirrorLabels(props.labels, props.slicesBy ?? 'mirrorc');
  const objects: KubeObject[] = [
    serviceObject(objectMeta(name, namespace, labels, sortedMap(props.annotations)), {
      ...(props.clusterIP !== undefined ? { clusterIP: props.clusterIP } : {}),
      // Only ports; no selector, so the endpoints below are used.
      ports: mirrorServicePorts(props.ports),
    }),
  ];

  // The proxy reads identity and authority from these annotations on Endpoints/EndpointSlices.
  const endpointAnnotations = sortedMap({ [REMOTE_SVC_FQ_NAME_ANNOTATION]: props.remoteFqName, ...(gateway.identity ? { [REMOTE_GATEWAY_IDENTITY_ANNOTATION]: gateway.identity } : {}) });
  // Port names are the join key between Service and endpoints; every port goes to the gateway port.
  const gatewayPorts = props.ports.map((p) => ({ ...(p.name ? { name: p.name } : {}), port: gateway.port, protocol: p.protocol }));
  const form = props.endpoints ?? 'ready';
  const ready = form === 'ready';
  const addressList = gatewayAddresses.map((ip) => ({ ip }));
  const endpointsLabels = mirrorEndpointsLabels(labels, props.slicesBy ?? 'mirrorc');
  // No subsets at all when empty, as Linkerd writes it (an empty list reads back as absent anyway).
  objects.push(endpointsObject(objectMeta(name, namespace, endpointsLabels, endpointAnnotations), form === 'empty' ? undefined : [{ ...(ready ? { addresses: addressList } : { notReadyAddresses: addressList }), ports: gatewayPorts }]));

  // The slices stay when empty (same names, nothing pruned and re-created when endpoints return).
  const slices = byAddressFamily(gatewayAddresses, (ip) => ip).map(([addressType, addresses]) => ({
    addressType,
    endpoints: form === 'empty' ? [] : addresses.map((ip) => ({ addresses: [ip], conditions: { ready } })),
    ports: gatewayPorts,
  }));
  appendAll(objects, mirrorSliceObjects({ namespace, name, labels, annotations: endpointAnnotations }, slices, props.slicesBy ?? 'mirrorc'));
  return objects;
}

/** A gateway-mode mirror: Service + Endpoints + one EndpointSlice per address family: ApiObjects of `gatewayMirrorObjects`, the objects the render path writes. */
export class GatewayMirror extends Construct {
  constructor(scope: Construct, id: string, props: GatewayMirrorProps) {
    super(scope, id);
    addApiObjects(this, gatewayMirrorObjects(props), childId);
  }
}

/** The construct id of one object of a mirror: `service`, `endpoints`, `endpointslice-ipv4`, `endpointslice-ipv6`. */
export function childId(object: KubeObject): string {
  return object.kind === 'EndpointSlice' ? `endpointslice-${String(object.addressType).toLowerCase()}` : object.kind.toLowerCase();
}
