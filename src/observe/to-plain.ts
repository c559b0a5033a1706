/** Maps client-node's model classes to the snapshot's plain objects, dropping volatile fields. */
import type * as k8s from '@kubernetes/client-node';
import { isTrackingAnnotation, isTrackingLabel } from '../contract/gitops.js';
import { compareStrings, sortedRecord, sortedUnique } from '../util/order.js';
import type { ClusterClient } from './cluster-client.js';
import type { ObservedEndpointPort, ObservedPort, ObservedService } from '../snapshot/snapshot.js';

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

/**
 * Whether a Service's EndpointSlices show a ready endpoint, as {@link ObservedService.hasReadyEndpoints}
 * records it: `{}` when one is ready or no slice exists, `{ hasReadyEndpoints: false }` otherwise. An
 * endpoint without a `ready` condition counts as ready, as the EndpointSlice API defines it.
 */
export function readiness(slices: readonly k8s.V1EndpointSlice[]): { hasReadyEndpoints?: false } {
  if (slices.length === 0) return {};
  return slices.some((s) => (s.endpoints ?? []).some(isReady)) ? {} : { hasReadyEndpoints: false };
}

function isReady(endpoint: k8s.V1Endpoint): boolean {
  return endpoint.conditions?.ready !== false;
}

/** Whether any of a Service's EndpointSlices has a ready endpoint (see {@link readiness}). */
export async function observeReadiness(client: ClusterClient, namespace: string, name: string): Promise<{ hasReadyEndpoints?: false }> {
  return readiness(await client.listEndpointSlices(namespace, name));
}

/**
 * The pod hostnames and endpoint ports of a headless Service, read from its EndpointSlices, with its
 * readiness and, when `podReadiness` is set, the hostnames none of whose endpoints is ready.
 */
export async function observePodEndpoints(
  client: ClusterClient,
  namespace: string,
  name: string,
  podReadiness = false,
): Promise<PodEndpoints> {
  return podEndpoints(await client.listEndpointSlices(namespace, name), podReadiness);
}

/** What {@link podEndpoints} reads from a headless Service's EndpointSlices. */
export interface PodEndpoints {
  readonly hostnames: string[];
  readonly endpointPorts: ObservedEndpointPort[];
  readonly hasReadyEndpoints?: false;
  readonly notReadyHostnames?: string[];
}

/** {@link observePodEndpoints} from slices already listed. */
export function podEndpoints(slices: readonly k8s.V1EndpointSlice[], podReadiness = false): PodEndpoints {
  // Every endpoint with a hostname, whatever its conditions: see ObservedService.hostnames.
  const endpoints = slices.flatMap((s) => s.endpoints ?? []).filter((e) => (e.hostname ?? '') !== '');
  const hostnames = sortedUnique(endpoints.map((e) => e.hostname!));
  const readyHostnames = new Set(endpoints.filter(isReady).map((e) => e.hostname!));
  const notReady = hostnames.filter((h) => !readyHostnames.has(h));
  const ports = new Map<string, ObservedEndpointPort>();
  for (const slice of slices) {
    for (const p of slice.ports ?? []) {
      if (p.port === undefined || p.port === null) continue;
      const port: ObservedEndpointPort = {
        name: p.name ?? '',
        protocol: p.protocol ?? 'TCP',
        port: p.port,
        ...(p.appProtocol ? { appProtocol: p.appProtocol } : {}),
      };
      ports.set(`${port.name}/${port.port}/${port.protocol}`, port);
    }
  }
  const endpointPorts = [...ports.values()].sort(
    (a, b) => compareStrings(a.name, b.name) || a.port - b.port || compareStrings(a.protocol, b.protocol),
  );
  return { hostnames, endpointPorts, ...readiness(slices), ...(podReadiness && notReady.length > 0 ? { notReadyHostnames: notReady } : {}) };
}

/** A Service's pod selector, sorted; empty when it has none. */
export function serviceSelector(svc: k8s.V1Service): Record<string, string> {
  return filtered(svc.spec?.selector, () => false);
}

/** Every ClusterIP of a Service (dual-stack Services have two), without `None`. */
export function serviceClusterIPs(svc: k8s.V1Service): string[] {
  const ips = svc.spec?.clusterIPs?.length ? svc.spec.clusterIPs : svc.spec?.clusterIP ? [svc.spec.clusterIP] : [];
  return ips.filter((ip) => ip !== 'None' && ip !== '');
}
