/**
 * The root of a headless (StatefulSet) mirror: a headless Service `<svc>-<target>` whose endpoints
 * map each pod hostname to the pinned ClusterIP of that pod's per-pod mirror (contract §2.5), so
 * `<pod>.<svc>-<target>.<ns>.svc` resolves to one replica in the target.
 */
import { Construct } from 'constructs';
import { REMOTE_GATEWAY_IDENTITY_ANNOTATION, REMOTE_SVC_FQ_NAME_ANNOTATION } from '../../../contract/linkerd.js';
import type { ObservedEndpointPort, ObservedPort } from '../../../snapshot/snapshot.js';
import { appendAll } from '../../../util/append-all.js';
import { compareStrings } from '../../../util/order.js';
import { mirrorServicePorts, podEndpointPorts } from '../../mirror-ports.js';
import { mirrorEndpointsLabels, mirrorLabels, mirrorSliceObjects, type SlicesBy } from '../../mirror-slices.js';
import { addApiObjects, byAddressFamily, endpointsObject, objectMeta, serviceObject, sortedMap, type KubeObject } from '../../kube-objects.js';
import { childId } from '../gateway/gateway-mirror.js';

/** One pod of the headless service: its hostname and the ClusterIP it is reached at. */
export interface PodAddress {
  readonly hostname: string;
  readonly ip: string;
}

/** Properties of a {@link HeadlessRootMirror}. */
export interface HeadlessRootMirrorProps {
  /**
   * Namespace of the mirror (the remote service's namespace).
   */
  readonly namespace: string;
  /**
   * Name of the headless mirror Service, `<svc>-<target>`.
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
   * The remote Service's ports.
   */
  readonly ports: readonly ObservedPort[];
  /**
   * The remote endpoints' ports (container ports), copied verbatim like Linkerd does.
   */
  readonly endpointPorts: readonly ObservedEndpointPort[];
  /**
   * Hostname → pinned per-pod IP, one per pod.
   */
  readonly pods: readonly PodAddress[];
  /**
   * `<svc>.<ns>.svc.<target domain>`.
   */
  readonly remoteFqName: string;
  /**
   * The target gateway's identity.
   *
   * @default - none
   */
  readonly gatewayIdentity?: string;
  /**
   * Who makes the EndpointSlices: mirrorc, or Kubernetes' EndpointSlice mirroring controller from
   * the Endpoints (Linkerd's form; mirrorc's slices are then written retired). See
   * src/compile/mirror-slices.ts.
   *
   * @default 'mirrorc'
   */
  readonly slicesBy?: SlicesBy;
}

/** The objects of a headless root mirror, as written: headless Service, Endpoints and one EndpointSlice per address family (src/compile/kube-objects.ts). */
export function headlessRootMirrorObjects(props: HeadlessRootMirrorProps): KubeObject[] {
  const { namespace, name } = props;
  const pods = [...props.pods].sort((a, b) => compareStrings(a.hostname, b.hostname));
  const labels = mirrorLabels(props.labels, props.slicesBy ?? 'mirrorc');
  const objects: KubeObject[] = [serviceObject(objectMeta(name, namespace, labels, sortedMap(props.annotations)), { clusterIP: 'None', ports: mirrorServicePorts(props.ports) })];

  const annotations = sortedMap({ [REMOTE_SVC_FQ_NAME_ANNOTATION]: props.remoteFqName, ...(props.gatewayIdentity ? { [REMOTE_GATEWAY_IDENTITY_ANNOTATION]: props.gatewayIdentity } : {}) });
  const ports = podEndpointPorts(props.endpointPorts);

  const endpointsLabels = mirrorEndpointsLabels(labels, props.slicesBy ?? 'mirrorc');
  // No pods (every one left out as not ready): no subsets, since a subset needs an address.
  objects.push(endpointsObject(objectMeta(name, namespace, endpointsLabels, annotations), pods.length > 0 ? [{ addresses: pods.map((p) => ({ hostname: p.hostname, ip: p.ip })), ports }] : undefined));

  const slices = byAddressFamily(pods, (p) => p.ip).map(([addressType, family]) => ({
    addressType,
    endpoints: family.map((p) => ({ addresses: [p.ip], conditions: { ready: true }, hostname: p.hostname })),
    ports,
  }));
  appendAll(objects, mirrorSliceObjects({ namespace, name, labels, annotations }, slices, props.slicesBy ?? 'mirrorc'));
  return objects;
}

/** Headless Service + Endpoints + one EndpointSlice per address family: ApiObjects of `headlessRootMirrorObjects`, the objects the render path writes. */
export class HeadlessRootMirror extends Construct {
  constructor(scope: Construct, id: string, props: HeadlessRootMirrorProps) {
    super(scope, id);
    addApiObjects(this, headlessRootMirrorObjects(props), childId);
  }
}
