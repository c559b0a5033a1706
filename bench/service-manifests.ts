/**
 * Kubernetes objects for the generated services (live mode): the Service a Helm chart would create
 * and, for StatefulSets, the EndpointSlice their endpoint controller would write (the test API
 * servers run no controller-manager).
 */
import { ENDPOINTSLICE_MANAGED_BY_LABEL, SERVICE_NAME_LABEL } from '../src/contract/kubernetes.js';
import type { ObservedService } from '../src/snapshot/snapshot.js';
import { APP_INSTANCE_LABEL, APP_NAME_LABEL } from './sample-metadata.js';

/** The Service (and EndpointSlice for a headless one) of `svc`. */
export function serviceObjects(svc: ObservedService): object[] {
  const selector = { [APP_NAME_LABEL]: svc.labels[APP_NAME_LABEL] ?? svc.name, [APP_INSTANCE_LABEL]: svc.labels[APP_INSTANCE_LABEL] ?? svc.name };
  const service = {
    apiVersion: 'v1',
    kind: 'Service',
    metadata: { name: svc.name, namespace: svc.namespace, labels: svc.labels, annotations: svc.annotations },
    spec: {
      type: svc.type,
      ...(svc.headless ? { clusterIP: 'None' } : {}),
      selector,
      ports: svc.ports.map((p) => ({ name: p.name, protocol: p.protocol, port: p.port, ...(p.targetPort !== undefined ? { targetPort: p.targetPort } : {}) })),
    },
  };
  if (!svc.headless) return [service];
  const slice = {
    apiVersion: 'discovery.k8s.io/v1',
    kind: 'EndpointSlice',
    metadata: {
      name: `${svc.name}-x7k2p`,
      namespace: svc.namespace,
      labels: { [SERVICE_NAME_LABEL]: svc.name, [ENDPOINTSLICE_MANAGED_BY_LABEL]: 'endpointslice-controller.k8s.io' },
    },
    addressType: 'IPv4',
    endpoints: (svc.hostnames ?? []).map((hostname, i) => ({
      addresses: [`10.244.${i}.${10 + i}`],
      hostname,
      conditions: { ready: true },
      targetRef: { kind: 'Pod', name: hostname, namespace: svc.namespace },
    })),
    ports: (svc.endpointPorts ?? []).map((p) => ({ name: p.name, protocol: p.protocol, port: p.port })),
  };
  return [service, slice];
}

/** A `v1` List of `items`, for one `kubectl apply -f -`. */
export function kubeList(items: readonly object[]): string {
  return JSON.stringify({ apiVersion: 'v1', kind: 'List', items });
}
