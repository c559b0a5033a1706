/**
 * Generic gateways (`gateway.kind: 'generic'`): a gateway that reserves one port per service. The
 * port of each exported service comes from the fleet model (`gateway.servicePorts`) or from the
 * service's `mirrorc.io/gateway-port` annotation; a missing, malformed, contradictory or shared
 * port is a problem of that service alone.
 */
import { GATEWAY_PORT_ANNOTATION } from '../../../contract/mirrorc.js';
import type { ClusterSpec } from '../../../model/fleet-spec.js';
import type { ObservedService, TargetSnapshot } from '../../../snapshot/snapshot.js';
import { compareStrings } from '../../../util/order.js';

/** The gateway port of one service, or why it has none. */
export type GatewayPortOutcome = { readonly port: number } | { readonly problem: string };

const PORT_TEXT = /^[1-9][0-9]{0,4}$/;
/** Whether the current output holds a mirror of `target/namespace/service` (its established owner keeps a contested port). */
export type EstablishedMirror = (origin: string) => boolean;
const NONE_ESTABLISHED: EstablishedMirror = () => false;
const byTarget = new WeakMap<TargetSnapshot, WeakMap<EstablishedMirror, Map<string, GatewayPortOutcome>>>();

/** Whether `target`'s gateway is generic (a port per service) rather than Linkerd's. */
export function isGenericGateway(target: ClusterSpec): boolean {
  return target.gateway.kind === 'generic';
}

/** The gateway port of `service` of generic-gateway `target`, or the problem that names the service and what to do. */
export function genericGatewayPort(target: ClusterSpec, snapshot: TargetSnapshot, service: ObservedService, established: EstablishedMirror = NONE_ESTABLISHED): GatewayPortOutcome {
  let byLookup = byTarget.get(snapshot);
  if (!byLookup) byTarget.set(snapshot, (byLookup = new WeakMap()));
  let ports = byLookup.get(established);
  if (!ports) byLookup.set(established, (ports = servicePorts(target, snapshot, established)));
  return ports.get(`${service.namespace}/${service.name}`)!;
}

/**
 * Every exported service's outcome, keyed `namespace/name`. A port claimed by several services stays
 * with the one whose mirror the current output holds (as in a name clash, a newcomer cannot take an
 * established mirror's port); when none or several have one, it is a problem of every claimant.
 */
function servicePorts(target: ClusterSpec, snapshot: TargetSnapshot, established: EstablishedMirror): Map<string, GatewayPortOutcome> {
  const model = target.gateway.servicePorts ?? {};
  const out = new Map<string, GatewayPortOutcome>();
  const claims = new Map<number, string[]>();
  for (const service of snapshot.services) {
    const key = `${service.namespace}/${service.name}`;
    const where = `${target.name}/${key}`;
    const text = service.annotations[GATEWAY_PORT_ANNOTATION];
    const annotated = text !== undefined && PORT_TEXT.test(text) && Number(text) <= 65535 ? Number(text) : undefined;
    const declared = model[key];
    let outcome: GatewayPortOutcome;
    if (text !== undefined && annotated === undefined) {
      outcome = { problem: `${where}: its annotation ${GATEWAY_PORT_ANNOTATION}: ${JSON.stringify(text)} is not a port number (1-65535); correct it on the service in "${target.name}"` };
    } else if (declared !== undefined && annotated !== undefined && declared !== annotated) {
      outcome = { problem: `${where}: the fleet model gives gateway port ${declared} (gateway.servicePorts) but its annotation ${GATEWAY_PORT_ANNOTATION} says ${annotated}; keep one of them` };
    } else if (declared === undefined && annotated === undefined) {
      outcome = { problem: `${where}: cluster "${target.name}" has a generic gateway, but no gateway port is known for this service; annotate it with ${GATEWAY_PORT_ANNOTATION}: "<port>" or add "${key}" to gateway.servicePorts of cluster "${target.name}"` };
    } else {
      const port = (declared ?? annotated)!;
      outcome = { port };
      claims.set(port, [...(claims.get(port) ?? []), key]);
    }
    out.set(key, outcome);
  }
  for (const [port, keys] of claims) {
    if (keys.length < 2) continue;
    const owners = keys.filter((k) => established(`${target.name}/${k}`));
    if (owners.length === 1) {
      const owner = owners[0]!;
      for (const key of keys.filter((k) => k !== owner)) {
        out.set(key, { problem: `${target.name}/${key}: gateway port ${port} of cluster "${target.name}" is also given to ${owner}, which has that mirror already and keeps the port; a generic gateway needs a port of its own per service, so give this service a different one` });
      }
      continue;
    }
    for (const key of keys) {
      const others = keys.filter((k) => k !== key).sort(compareStrings);
      out.set(key, { problem: `${target.name}/${key}: gateway port ${port} of cluster "${target.name}" is also given to ${others.join(', ')}; a generic gateway needs a port of its own per service, so give each service a different one` });
    }
  }
  return out;
}
