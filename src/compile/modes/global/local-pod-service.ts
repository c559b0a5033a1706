/**
 * A per-pod Service for one of the source's own StatefulSet pods, so that the pod reaches
 * `<svc>-global` at a pinned, stable IP (a pod IP changes on every restart and would churn git).
 */
import { Construct } from 'constructs';
import { STATEFULSET_POD_NAME_LABEL } from '../../../contract/kubernetes.js';
import { GLOBAL_SERVICE_LABEL, MANAGED_LABEL, MANAGED_VALUE } from '../../../contract/mirrorc.js';
import type { ObservedPort } from '../../../snapshot/snapshot.js';
import { mirrorServicePorts } from '../../mirror-ports.js';
import { addApiObjects, objectMeta, serviceObject, sortedMap, type KubeObject } from '../../kube-objects.js';

/** Properties of a {@link LocalPodService}. */
export interface LocalPodServiceProps {
  readonly namespace: string;
  /** `<pod>-<source>`. */
  readonly name: string;
  /** The pod (its StatefulSet pod name, which is also its hostname). */
  readonly podName: string;
  /** The headless service's pod selector; the pod-name label narrows it to one pod. */
  readonly selector: Readonly<Record<string, string>>;
  /** The headless service's ports. */
  readonly ports: readonly ObservedPort[];
  /** The pinned ClusterIP. */
  readonly clusterIP: string;
  /** `<svc>-global`, recorded as a label. */
  readonly globalServiceName: string;
}

/** The one object of a per-pod Service of the source's own pod, as written (src/compile/kube-objects.ts). */
export function localPodServiceObjects(props: LocalPodServiceProps): KubeObject[] {
  return [
    serviceObject(objectMeta(props.name, props.namespace, sortedMap({ [MANAGED_LABEL]: MANAGED_VALUE, [GLOBAL_SERVICE_LABEL]: props.globalServiceName })), {
      clusterIP: props.clusterIP,
      ports: mirrorServicePorts(props.ports),
      selector: sortedMap({ ...props.selector, [STATEFULSET_POD_NAME_LABEL]: props.podName }),
    }),
  ];
}

/** A ClusterIP Service selecting exactly one StatefulSet pod: ApiObjects of `localPodServiceObjects`, the objects the render path writes. */
export class LocalPodService extends Construct {
  constructor(scope: Construct, id: string, props: LocalPodServiceProps) {
    super(scope, id);
    addApiObjects(this, localPodServiceObjects(props), () => 'service');
  }
}
