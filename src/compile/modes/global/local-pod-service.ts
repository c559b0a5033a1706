/**
 * A per-pod Service for one of the source's own StatefulSet pods, so that the pod reaches
 * `<svc>-global` at a pinned, stable IP (a pod IP changes on every restart and would churn git).
 */
import { Construct } from 'constructs';
import { k8s } from 'cdk8s-plus-28';
import { STATEFULSET_POD_NAME_LABEL } from '../../../contract/kubernetes.js';
import { GLOBAL_SERVICE_LABEL, MANAGED_LABEL, MANAGED_VALUE } from '../../../contract/mirrorc.js';
import type { ObservedPort } from '../../../snapshot/snapshot.js';
import { mirrorServicePorts } from '../../mirror-ports.js';

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

/** A ClusterIP Service selecting exactly one StatefulSet pod. */
export class LocalPodService extends Construct {
  constructor(scope: Construct, id: string, props: LocalPodServiceProps) {
    super(scope, id);
    new k8s.KubeService(this, 'service', {
      metadata: {
        name: props.name,
        namespace: props.namespace,
        labels: { [MANAGED_LABEL]: MANAGED_VALUE, [GLOBAL_SERVICE_LABEL]: props.globalServiceName },
      },
      spec: {
        clusterIp: props.clusterIP,
        selector: { ...props.selector, [STATEFULSET_POD_NAME_LABEL]: props.podName },
        ports: mirrorServicePorts(props.ports),
      },
    });
  }
}
