/**
 * The root of a headless (StatefulSet) mirror: a headless Service `<svc>-<target>` whose endpoints
 * map each pod hostname to the pinned ClusterIP of that pod's per-pod mirror (contract §2.5), so
 * `<pod>.<svc>-<target>.<ns>.svc` resolves to one replica in the target.
 */
import { Construct } from 'constructs';
import { REMOTE_GATEWAY_IDENTITY_ANNOTATION, REMOTE_SVC_FQ_NAME_ANNOTATION } from '../../../contract/linkerd.js';
import { ENDPOINTSLICE_MANAGED_BY_LABEL, SERVICE_NAME_LABEL, SKIP_MIRROR_LABEL } from '../../../contract/kubernetes.js';
import { COMPILER_NAME } from '../../../contract/mirrorc.js';
import type { ObservedEndpointPort, ObservedPort } from '../../../snapshot/snapshot.js';
import { compareStrings } from '../../../util/order.js';
import { mirrorServicePorts, podEndpointPorts } from '../../mirror-ports.js';
import { endpointSliceName } from '../../names.js';
import { addApiObjects, byAddressFamily, endpointsObject, endpointSliceObject, objectMeta, serviceObject, sortedMap, type KubeObject } from '../../kube-objects.js';
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
   * Leave the Endpoints without `endpointslice.kubernetes.io/skip-mirror`, so that Kubernetes'
   * EndpointSlice mirroring keeps (or makes) its own slice of them beside mirrorc's: while a link
   * adopts Linkerd's mirrors, that slice is what the data plane reads until mirrorc's slices are live.
   *
   * @default - false: mirrorc's slices are the only ones
   */
  readonly keepKubernetesSlices?: boolean;
}

/** The objects of a headless root mirror, as written: headless Service, Endpoints and one EndpointSlice per address family (src/compile/kube-objects.ts). */
export function headlessRootMirrorObjects(props: HeadlessRootMirrorProps): KubeObject[] {
  const { namespace, name } = props;
  const pods = [...props.pods].sort((a, b) => compareStrings(a.hostname, b.hostname));
  const labels = sortedMap(props.labels);
  const objects: KubeObject[] = [serviceObject(objectMeta(name, namespace, labels, sortedMap(props.annotations)), { clusterIP: 'None', ports: mirrorServicePorts(props.ports) })];

  const annotations = sortedMap({ [REMOTE_SVC_FQ_NAME_ANNOTATION]: props.remoteFqName, ...(props.gatewayIdentity ? { [REMOTE_GATEWAY_IDENTITY_ANNOTATION]: props.gatewayIdentity } : {}) });
  const ports = podEndpointPorts(props.endpointPorts);

  const endpointsLabels = props.keepKubernetesSlices === true ? labels : sortedMap({ ...labels, [SKIP_MIRROR_LABEL]: 'true' });
  // No pods (every one left out as not ready): no subsets, since a subset needs an address.
  objects.push(endpointsObject(objectMeta(name, namespace, endpointsLabels, annotations), pods.length > 0 ? [{ addresses: pods.map((p) => ({ hostname: p.hostname, ip: p.ip })), ports }] : undefined));

  const sliceLabels = sortedMap({ ...labels, [SERVICE_NAME_LABEL]: name, [ENDPOINTSLICE_MANAGED_BY_LABEL]: COMPILER_NAME });
  for (const [addressType, family] of byAddressFamily(pods, (p) => p.ip)) {
    objects.push(endpointSliceObject(
      objectMeta(endpointSliceName(name, addressType), namespace, sliceLabels, annotations),
      addressType,
      family.map((p) => ({ addresses: [p.ip], conditions: { ready: true }, hostname: p.hostname })),
      ports,
    ));
  }
  return objects;
}

/** Headless Service + Endpoints + one EndpointSlice per address family: ApiObjects of `headlessRootMirrorObjects`, the objects the render path writes. */
export class HeadlessRootMirror extends Construct {
  constructor(scope: Construct, id: string, props: HeadlessRootMirrorProps) {
    super(scope, id);
    addApiObjects(this, headlessRootMirrorObjects(props), childId);
  }
}
