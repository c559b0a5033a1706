/**
 * Federated mode: one selectorless Service `<svc>-federated` per namespace and service name whose
 * annotations list its members (contract §2.4). Linkerd's destination controller sees the
 * `multicluster.linkerd.io/remote-discovery` / `local-discovery` annotations and unions the
 * endpoints of every member; no Endpoints are written.
 */
import { Construct } from 'constructs';
import type { ObservedPort } from '../../../snapshot/snapshot.js';
import { mirrorServicePorts } from '../../mirror-ports.js';
import { addApiObjects, objectMeta, serviceObject, sortedMap, type KubeObject } from '../../kube-objects.js';

/** Properties of a {@link FederatedService}. */
export interface FederatedServiceProps {
  /**
   * Namespace of the federated Service (the members' namespace).
   */
  readonly namespace: string;
  /**
   * Name of the federated Service, `<svc>-federated`.
   */
  readonly name: string;
  /**
   * Labels: the first member's copied labels plus the mirror labels.
   */
  readonly labels: Readonly<Record<string, string>>;
  /**
   * Annotations: the first member's copied annotations plus the member list annotations.
   */
  readonly annotations: Readonly<Record<string, string>>;
  /**
   * The first member's ports, in its order.
   */
  readonly ports: readonly ObservedPort[];
}

/** The one object of a federated Service, as written (src/compile/kube-objects.ts). */
export function federatedServiceObjects(props: FederatedServiceProps): KubeObject[] {
  // Only ports, like the other modes; the destination resolves the members, so no selector and no endpoints.
  return [serviceObject(objectMeta(props.name, props.namespace, sortedMap(props.labels), sortedMap(props.annotations)), { ports: mirrorServicePorts(props.ports) })];
}

/** A federated Service: one Service, no Endpoints, no EndpointSlices: ApiObjects of `federatedServiceObjects`, the objects the render path writes. */
export class FederatedService extends Construct {
  constructor(scope: Construct, id: string, props: FederatedServiceProps) {
    super(scope, id);
    addApiObjects(this, federatedServiceObjects(props), () => 'service');
  }
}
