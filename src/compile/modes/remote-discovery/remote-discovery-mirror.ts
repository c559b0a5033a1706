/**
 * Flat (remote-discovery, pod-to-pod) mode: a selectorless Service `<svc>-<target>` and nothing
 * else (contract §2.3). Linkerd's destination controller in the source sees the
 * `multicluster.linkerd.io/remote-discovery` label and resolves the target's pods through the
 * target's API, with the credentials Secret of contract §4.1 (which mirrorc never writes).
 */
import { Construct } from 'constructs';
import type { ObservedPort } from '../../../snapshot/snapshot.js';
import { mirrorServicePorts } from '../../mirror-ports.js';
import { addApiObjects, objectMeta, serviceObject, sortedMap, type KubeObject } from '../../kube-objects.js';

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

/** The one object of a flat-mode mirror, as written (src/compile/kube-objects.ts). */
export function remoteDiscoveryMirrorObjects(props: RemoteDiscoveryMirrorProps): KubeObject[] {
  // Only ports, as in gateway mode; no selector and no endpoints: the destination reads the target's.
  return [serviceObject(objectMeta(props.name, props.namespace, sortedMap(props.labels), sortedMap(props.annotations)), { ports: mirrorServicePorts(props.ports) })];
}

/** A flat-mode mirror: one Service, no Endpoints, no EndpointSlices: ApiObjects of `remoteDiscoveryMirrorObjects`, the objects the render path writes. */
export class RemoteDiscoveryMirror extends Construct {
  constructor(scope: Construct, id: string, props: RemoteDiscoveryMirrorProps) {
    super(scope, id);
    addApiObjects(this, remoteDiscoveryMirrorObjects(props), () => 'service');
  }
}
