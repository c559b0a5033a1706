/** The `spec.ports` of a mirror Service, the same in every mode (contract §2.2, §2.3). */
import { k8s } from 'cdk8s-plus-28';
import type { ObservedEndpointPort, ObservedPort } from '../snapshot/snapshot.js';

/**
 * Only ports, as Linkerd writes them: name, protocol, port and targetPort are copied verbatim;
 * nodePort and appProtocol are dropped.
 */
export function mirrorServicePorts(ports: readonly ObservedPort[]): k8s.ServicePort[] {
  return ports.map((p) => ({
    ...(p.name ? { name: p.name } : {}),
    protocol: p.protocol,
    port: p.port,
    ...(p.targetPort !== undefined ? { targetPort: intOrString(p.targetPort) } : {}),
  }));
}

function intOrString(value: number | string): k8s.IntOrString {
  return typeof value === 'number' ? k8s.IntOrString.fromNumber(value) : k8s.IntOrString.fromString(value);
}

/**
 * The ports of endpoints that list pods themselves (headless mirrors, `-global` slices): the remote
 * endpoints' container ports copied verbatim, appProtocol included, as Linkerd does (contract §2.5).
 */
export function podEndpointPorts(ports: readonly ObservedEndpointPort[]): { name?: string; port: number; protocol: string; appProtocol?: string }[] {
  return ports.map((p) => ({
    ...(p.name ? { name: p.name } : {}),
    port: p.port,
    protocol: p.protocol,
    ...(p.appProtocol ? { appProtocol: p.appProtocol } : {}),
  }));
}
