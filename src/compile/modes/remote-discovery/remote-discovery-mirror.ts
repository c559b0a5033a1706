/**
 * Flat (remote-discovery, pod-to-pod) mode: a selectorless Service `<svc>-<target>` and nothing
 * else (contract §2.3). Linkerd's destination controller in the source sees the
 * `multicluster.linkerd.io/remote-discovery` label and resolves the target's pods through the
 * target's API, with the credentials Secret of contract §4.1 (which mirrorc never writes).
 */
import { Construct } from 'constructs';
import { k8s } from 'cdk8s-plus-28';
import type { ObservedPort } from '../../../snapshot/snapshot.js';
import { mirrorServicePorts } from '../../mirror-ports.js';

/** Properties of a {@link RemoteDiscoveryMirror}. */
export interface RemoteDiscoveryMirrorProps {
  /**
   * Namespace of the mirror (the remote service's namespace).
   */
  readonly namespace: string;
  /**
   * Name of the mirror Service, `<svc>-<target>`.
   */
  readonly name: string;
  /**
   * Labels of the Service, including the remote-discovery and remote-service labels.
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
}

/** A flat-mode mirror: one Service, no Endpoints, no EndpointSlices. */
export class RemoteDiscoveryMirror extends Construct {
  constructor(scope: Construct, id: string, props: RemoteDiscoveryMirrorProps) {
    super(scope, id);
    new k8s.KubeService(this, 'service', {
      metadata: { name: props.name, namespace: props.namespace, labels: { ...props.labels }, annotations: { ...props.annotations } },
      // Only ports, as in gateway mode; no selector and no endpoints: the destination reads the target's.
      spec: { ports: mirrorServicePorts(props.ports) },
    });
  }
}
