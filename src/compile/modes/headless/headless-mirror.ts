/**
 * The root of a headless (StatefulSet) mirror: a headless Service `<svc>-<target>` whose endpoints
 * map each pod hostname to the pinned ClusterIP of that pod's per-pod mirror (contract §2.5), so
 * `<pod>.<svc>-<target>.<ns>.svc` resolves to one replica in the target.
 */
import { isIPv6 } from 'node:net';
import { Construct } from 'constructs';
import { k8s } from 'cdk8s-plus-28';
import { REMOTE_GATEWAY_IDENTITY_ANNOTATION, REMOTE_SVC_FQ_NAME_ANNOTATION } from '../../../contract/linkerd.js';
import { ENDPOINTSLICE_MANAGED_BY_LABEL, SERVICE_NAME_LABEL, SKIP_MIRROR_LABEL } from '../../../contract/kubernetes.js';
import { COMPILER_NAME } from '../../../contract/mirrorc.js';
import type { ObservedEndpointPort, ObservedPort } from '../../../snapshot/snapshot.js';
import { compareStrings } from '../../../util/order.js';
import { mirrorServicePorts, podEndpointPorts } from '../../mirror-ports.js';
import { endpointSliceName } from '../../names.js';

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

/** Headless Service + Endpoints + one EndpointSlice per address family. */
export class HeadlessRootMirror extends Construct {
  constructor(scope: Construct, id: string, props: HeadlessRootMirrorProps) {
    super(scope, id);
    const { namespace, name } = props;
    const pods = [...props.pods].sort((a, b) => compareStrings(a.hostname, b.hostname));

    new k8s.KubeService(this, 'service', {
      metadata: { name, namespace, labels: { ...props.labels }, annotations: { ...props.annotations } },
      spec: { clusterIp: 'None', ports: mirrorServicePorts(props.ports) },
    });

    const annotations: Record<string, string> = { [REMOTE_SVC_FQ_NAME_ANNOTATION]: props.remoteFqName };
    if (props.gatewayIdentity) annotations[REMOTE_GATEWAY_IDENTITY_ANNOTATION] = props.gatewayIdentity;
    const ports = podEndpointPorts(props.endpointPorts);

    new k8s.KubeEndpoints(this, 'endpoints', {
      metadata: { name, namespace, labels: props.keepKubernetesSlices === true ? { ...props.labels } : { ...props.labels, [SKIP_MIRROR_LABEL]: 'true' }, annotations },
      // No pods (every one left out as not ready): no subsets, since a subset needs an address.
      ...(pods.length > 0 ? { subsets: [{ addresses: pods.map((p) => ({ hostname: p.hostname, ip: p.ip })), ports }] } : {}),
    });

    for (const addressType of ['IPv4', 'IPv6'] as const) {
      const family = pods.filter((p) => isIPv6(p.ip) === (addressType === 'IPv6'));
      if (family.length === 0) continue;
      new k8s.KubeEndpointSlice(this, `endpointslice-${addressType.toLowerCase()}`, {
        metadata: {
          name: endpointSliceName(name, addressType),
          namespace,
          labels: { ...props.labels, [SERVICE_NAME_LABEL]: name, [ENDPOINTSLICE_MANAGED_BY_LABEL]: COMPILER_NAME },
          annotations,
        },
        addressType,
        endpoints: family.map((p) => ({ addresses: [p.ip], hostname: p.hostname, conditions: { ready: true } })),
        ports,
      });
    }
  }
}
