/** The `spec.ports` of a mirror Service, the same in every mode (contract §2.2, §2.3). */
import { k8s } from 'cdk8s-plus-28';
import type { ObservedPort } from '../observe/snapshot.js';

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
