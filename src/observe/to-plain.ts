/** Maps client-node's model classes to the snapshot's plain objects, dropping volatile fields. */
import type * as k8s from '@kubernetes/client-node';
import { isTrackingAnnotation, isTrackingLabel } from '../contract/gitops.js';
import { sortedRecord } from '../util/order.js';
import type { ObservedPort, ObservedService } from './snapshot.js';

function filtered(record: Record<string, string> | undefined, drop: (key: string) => boolean): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(record ?? {})) if (!drop(k)) out[k] = String(v);
  return sortedRecord(out);
}

/** A target Service as the snapshot stores it. */
export function toObservedService(svc: k8s.V1Service): ObservedService {
  const ports: ObservedPort[] = (svc.spec?.ports ?? []).map((p) => ({
    name: p.name ?? '',
    protocol: p.protocol ?? 'TCP',
    port: p.port,
    ...(p.targetPort !== undefined && p.targetPort !== null ? { targetPort: p.targetPort as number | string } : {}),
  }));
  return {
    namespace: svc.metadata?.namespace ?? '',
    name: svc.metadata?.name ?? '',
    labels: filtered(svc.metadata?.labels, isTrackingLabel),
    annotations: filtered(svc.metadata?.annotations, isTrackingAnnotation),
    type: svc.spec?.type ?? 'ClusterIP',
    headless: svc.spec?.clusterIP === 'None',
    ports,
  };
}
