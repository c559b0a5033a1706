/** The `spec.ports` of a mirror Service, the same in every mode (contract §2.2, §2.3). */
import type { EndpointPortJson, ServicePortJson } from './kube-objects.js';
import type { ObservedEndpointPort, ObservedPort } from '../snapshot/snapshot.js';

/**
 * Only ports, as Linkerd writes them: name, protocol, port and targetPort are copied verbatim;
 * nodePort and appProtocol are dropped.
 */
export function mirrorServicePorts(ports: readonly ObservedPort[]): ServicePortJson[] {
  return ports.map((p) => ({
    ...(p.name ? { name: p.name } : {}),
    port: p.port,
    protocol: p.protocol,
    ...(p.targetPort !== undefined ? { targetPort: p.targetPort } : {}),
  }));
}

/**
 * The ports of endpoints that list pods themselves (headless mirrors, `-global` slices): the remote
 * endpoints' container ports copied verbatim, appProtocol included, as Linkerd does (contract §2.5).
 */
export function podEndpointPorts(ports: readonly ObservedEndpointPort[]): EndpointPortJson[] {
  return ports.map((p) => ({
    ...(p.appProtocol ? { appProtocol: p.appProtocol } : {}),
    ...(p.name ? { name: p.name } : {}),
    port: p.port,
    protocol: p.protocol,
  }));
}
