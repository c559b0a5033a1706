/** Turns a mirror request into a flat-mode (remote-discovery) {@link MirrorUnit}. */
import { REMOTE_DISCOVERY_LABEL, REMOTE_SERVICE_LABEL } from '../../../contract/linkerd.js';
import type { Diagnostics } from '../../diagnostics.js';
import { mirrorMetadata } from '../../mirror-metadata.js';
import type { MirrorRequest, MirrorUnit } from '../../mirror-unit.js';
import type { PlanMemo } from '../../plan-memo.js';
import type { KubeObject } from '../../kube-objects.js';
import { remoteDiscoveryMirrorObjects } from './remote-discovery-mirror.js';

/** The flat-mode unit for `request`, or undefined (with a warning) when it cannot be built. Needs no gateway; `memo` shares work between sources (see plan-memo.ts). */
export function planRemoteDiscoveryMirror(request: MirrorRequest, diagnostics: Diagnostics, memo?: PlanMemo): MirrorUnit | undefined {
  const { link, target, service } = request;
  const meta = mirrorMetadata(request, diagnostics, memo);
  if (!meta) return undefined;
  const { origin, name, annotations } = meta;
  // The destination's ClusterStore key and the remote service it subscribes to (contract §4.2).
  const labels = { ...meta.labels, [REMOTE_DISCOVERY_LABEL]: target.name, [REMOTE_SERVICE_LABEL]: service.name };
  return {
    source: link.source,
    target: link.target,
    namespace: service.namespace,
    origin,
    mode: 'remote-discovery',
    adoptsLinkerdMirrorsOf: link.adoptLinkerdMirrors === true ? link.target : undefined,
    serviceNames: [name],
    objects: () => {
      const compute = (): KubeObject[] => remoteDiscoveryMirrorObjects({ namespace: service.namespace, name, labels, annotations, ports: service.ports });
      // The same in every source: `meta.labels` is the memo's record of this service and policy (labels, ports and annotations follow from it).
      return memo ? memo.sharedObjects(meta.labels, ['flat', service.namespace, name, labels], compute) : compute();
    },
  };
}
