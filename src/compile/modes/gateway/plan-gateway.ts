/** Turns a mirror request into a gateway-mode {@link MirrorUnit}. */
import type { Diagnostics } from '../../diagnostics.js';
import { mirrorMetadata } from '../../mirror-metadata.js';
import type { MirrorRequest, MirrorUnit } from '../../mirror-unit.js';
import type { PlanMemo } from '../../plan-memo.js';
import type { KubeObject } from '../../kube-objects.js';
import { gatewayMirrorObjects, type MirrorEndpoints } from './gateway-mirror.js';
import { genericGatewayPort, isGenericGateway } from './generic-gateway-port.js';
import { Diag } from '../../../diagnostics/diagnostic-codes.js';

/** The gateway-mode unit for `request`, or undefined (with a warning) when it cannot be built; `memo` shares work between sources (see plan-memo.ts). */
export function planGatewayMirror(request: MirrorRequest, diagnostics: Diagnostics, memo?: PlanMemo): MirrorUnit | undefined {
  const { link, service, targetSnapshot } = request;
  const observed = targetSnapshot.gateway;
  if (!observed) return undefined; // reported once per target by the caller
  let gateway = observed;
  if (isGenericGateway(request.target)) {
    // A generic gateway: its address, this service's own port, and no Linkerd identity.
    const port = genericGatewayPort(request.target, targetSnapshot, service, request.established);
    if ('problem' in port) {
      diagnostics.skip(Diag.GATEWAY_PORT_UNKNOWN, `${link.source}: ${port.problem}`, `${request.target.name}/${service.namespace}/${service.name} is not mirrored`, { cluster: link.source, target: request.target.name, namespace: service.namespace, service: service.name });
      return undefined;
    }
    gateway = { addresses: observed.addresses, port: port.port };
    diagnostics.note(`generic gateway: ${link.source} ← ${request.target.name}/${service.namespace}/${service.name}: ${observed.addresses.join(',')} port ${port.port}`);
  }
  const meta = mirrorMetadata(request, diagnostics, memo);
  if (!meta) return undefined;
  const { origin, name, namespace, fqName, labels, annotations } = meta;
  return {
    source: link.source,
    target: link.target,
    namespace,
    origin,
    mode: 'gateway',
    adoptsLinkerdMirrorsOf: link.adoptLinkerdMirrors === true ? link.target : undefined,
    serviceNames: [name],
    objects: () => {
      const endpoints = mirrorEndpoints(request);
      const by = request.slicesBy ?? 'mirrorc';
      const compute = (): KubeObject[] => gatewayMirrorObjects({ namespace, name, labels, annotations, ports: service.ports, gateway, remoteFqName: fqName, endpoints, slicesBy: by });
      // The same in every source: `labels` is the memo's record of this service and policy (ports, annotations, fq-name follow from it).
      return memo ? memo.sharedObjects(labels, ['gateway', namespace, name, gateway, endpoints, by], compute) : compute();
    },
  };
}

/**
 * The endpoints of a gateway mirror: `empty` when its target service has no ready endpoint and the
 * link follows service readiness (Linkerd empties them too; wins over the gateway's health), else
 * {@link gatewayEndpoints}.
 */
export function mirrorEndpoints(request: MirrorRequest): MirrorEndpoints {
  if (request.link.followServiceReadiness !== false && request.service.hasReadyEndpoints === false) return 'empty';
  return gatewayEndpoints(request);
}

/**
 * `not-ready` when the target asks synth's probe to decide (`gateway.probe.mode: not-ready`) and the
 * last probe failed: Linkerd's form while it holds a gateway dead. Otherwise `ready`.
 */
export function gatewayEndpoints(request: Pick<MirrorRequest, 'target' | 'targetSnapshot'>): MirrorEndpoints {
  const dead = request.target.gateway.probe?.mode === 'not-ready' && request.targetSnapshot.gatewayProbe?.alive === false;
  return dead ? 'not-ready' : 'ready';
}
