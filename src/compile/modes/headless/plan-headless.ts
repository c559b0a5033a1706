/**
 * Turns a mirror request for a headless service whose endpoints have hostnames (a StatefulSet)
 * into a headless root mirror plus one per-pod gateway mirror `<hostname>-<target>` per pod, each
 * with a ClusterIP pinned at compile time (contract §2.5).
 */
import { HEADLESS_MIRROR_SVC_NAME_LABEL, MIRRORED_RESOURCE_LABEL, REMOTE_CLUSTER_NAME_LABEL, REMOTE_SVC_FQ_NAME_ANNOTATION } from '../../../contract/linkerd.js';
import { GLOBAL_LABEL, GLOBAL_VALUE, MANAGED_LABEL, MANAGED_VALUE } from '../../../contract/mirrorc.js';
import type { ObservedEndpointPort, ObservedPort } from '../../../snapshot/snapshot.js';
import type { Diagnostics } from '../../diagnostics.js';
import { mirrorMetadata } from '../../mirror-metadata.js';
import type { MirrorRequest, MirrorUnit } from '../../mirror-unit.js';
import { PlanMemo } from '../../plan-memo.js';
import { remotePodFqName } from '../../names.js';
import { gatewayMirrorObjects } from '../gateway/gateway-mirror.js';
import { gatewayEndpoints } from '../gateway/plan-gateway.js';
import { headlessRootMirrorObjects } from './headless-mirror.js';

/** A per-pod mirrored headless service, as the `-global` Service of its source sees it. */
export interface PodSetContribution {
  /** The cluster whose pods these are. */
  readonly cluster: string;
  readonly namespace: string;
  /** The service's own name (the `<svc>` of `<svc>-global`). */
  readonly serviceName: string;
  readonly ports: readonly ObservedPort[];
  readonly endpointPorts: readonly ObservedEndpointPort[];
  /** The pods: hostname, and the per-pod Service whose pinned IP reaches it. */
  readonly pods: readonly { readonly hostname: string; readonly serviceName: string }[];
}

/** A headless unit, which can also contribute to `<svc>-global`. */
export interface HeadlessUnit extends MirrorUnit {
  readonly podSet: PodSetContribution;
  /** Whether the link or the service asked for `<svc>-global`. */
  readonly joinsGlobal: boolean;
}

/** The headless unit of `request`, or undefined (with a warning) when it cannot be built; `memo` shares work between sources (see plan-memo.ts). */
export function planHeadlessMirror(request: MirrorRequest, diagnostics: Diagnostics, memo: PlanMemo = new PlanMemo()): HeadlessUnit | undefined {
  const { link, target, service, targetSnapshot } = request;
  const gateway = targetSnapshot.gateway;
  if (!gateway) return undefined; // reported once per target by selection
  const meta = mirrorMetadata(request, diagnostics, memo);
  if (!meta) return undefined;
  const shared = memo.metadata(service, target, link);
  const { origin, name, fqName, labels, annotations } = meta;
  // Following pod readiness (Linkerd's way), a pod none of whose endpoints is ready is left out.
  const notReady = new Set(link.followPodReadiness === true ? (service.notReadyHostnames ?? []) : []);
  const hostnames = service.hostnames ?? [];
  // Endpoints list container ports; without any (an unusual slice), the Service's own ports stand in.
  const endpointPorts = service.endpointPorts?.length
    ? service.endpointPorts
    : service.ports.map((p) => ({ name: p.name, protocol: p.protocol, port: typeof p.targetPort === 'number' ? p.targetPort : p.port }));
  const pods = hostnames.flatMap((hostname, i) => (notReady.has(hostname) ? [] : [{ hostname, serviceName: shared.podServiceNames[i]! }]));
  // Per-pod mirrors copy the remote labels but no annotations (Linkerd does the same).
  const podLabels = {
    ...shared.copiedLabels,
    [MIRRORED_RESOURCE_LABEL]: 'true',
    [REMOTE_CLUSTER_NAME_LABEL]: target.name,
    [HEADLESS_MIRROR_SVC_NAME_LABEL]: name,
    [MANAGED_LABEL]: MANAGED_VALUE,
  };
  return {
    source: link.source,
    target: link.target,
    namespace: service.namespace,
    origin,
    mode: 'headless',
    adoptsLinkerdMirrorsOf: link.adoptLinkerdMirrors === true ? link.target : undefined,
    serviceNames: [name, ...pods.map((p) => p.serviceName)],
    pinnedServiceNames: pods.map((p) => p.serviceName),
    joinsGlobal: link.globalServices || service.labels[GLOBAL_LABEL] === GLOBAL_VALUE,
    podSet: { cluster: target.name, namespace: service.namespace, serviceName: service.name, ports: service.ports, endpointPorts, pods },
    objects: (context) => [
      ...headlessRootMirrorObjects({
        namespace: service.namespace,
        name,
        labels,
        annotations,
        ports: service.ports,
        endpointPorts,
        pods: pods.map((p) => ({ hostname: p.hostname, ip: context.pinnedIP(service.namespace, p.serviceName) })),
        remoteFqName: fqName,
        ...(gateway.identity ? { gatewayIdentity: gateway.identity } : {}),
        slicesBy: request.slicesBy ?? 'mirrorc',
      }),
      ...pods.flatMap((pod) => {
        const podFqName = remotePodFqName(pod.hostname, service.name, service.namespace, target.clusterDomain);
        return gatewayMirrorObjects({
          namespace: service.namespace,
          name: pod.serviceName,
          labels: podLabels,
          annotations: { [REMOTE_SVC_FQ_NAME_ANNOTATION]: podFqName },
          ports: service.ports,
          gateway,
          remoteFqName: podFqName,
          clusterIP: context.pinnedIP(service.namespace, pod.serviceName),
          // A per-pod mirror follows the gateway's health but not the service's readiness (as in Linkerd).
          endpoints: gatewayEndpoints(request),
          slicesBy: request.slicesBy ?? 'mirrorc',
        });
      }),
    ],
  };
}
