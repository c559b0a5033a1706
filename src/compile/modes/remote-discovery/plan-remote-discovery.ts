/** Turns a mirror request into a flat-mode (remote-discovery) {@link MirrorUnit}. */
import {
  MIRRORED_RESOURCE_LABEL,
  REMOTE_CLUSTER_NAME_LABEL,
  REMOTE_DISCOVERY_LABEL,
  REMOTE_SERVICE_LABEL,
  REMOTE_SVC_FQ_NAME_ANNOTATION,
} from '../../../contract/linkerd.js';
import { MANAGED_LABEL, MANAGED_VALUE } from '../../../contract/mirrorc.js';
import { copiedAnnotations, copiedLabels } from '../../copy-metadata.js';
import type { Diagnostics } from '../../diagnostics.js';
import type { MirrorRequest, MirrorUnit } from '../../mirror-unit.js';
import { mirrorServiceName, remoteFqName } from '../../names.js';
import { RemoteDiscoveryMirror } from './remote-discovery-mirror.js';

/** The flat-mode unit for `request`, or undefined (with a warning) when it cannot be built. Needs no gateway. */
export function planRemoteDiscoveryMirror(request: MirrorRequest, diagnostics: Diagnostics): MirrorUnit | undefined {
  const { link, target, service } = request;
  const origin = `${target.name}/${service.namespace}/${service.name}`;
  if (service.ports.length === 0) {
    diagnostics.warn(`${link.source}: ${origin} has no ports, so it cannot be mirrored (a mirror Service needs at least one port); skipped`);
    return undefined;
  }
  const name = mirrorServiceName(service.name, target.name);
  const fqName = remoteFqName(service.name, service.namespace, target.clusterDomain);
  const labels = {
    ...copiedLabels(service.labels, link),
    [MIRRORED_RESOURCE_LABEL]: 'true',
    [REMOTE_CLUSTER_NAME_LABEL]: target.name,
    // The destination's ClusterStore key and the remote service it subscribes to (contract §7.2).
    [REMOTE_DISCOVERY_LABEL]: target.name,
    [REMOTE_SERVICE_LABEL]: service.name,
    [MANAGED_LABEL]: MANAGED_VALUE,
  };
  const annotations = { ...copiedAnnotations(service.annotations, link), [REMOTE_SVC_FQ_NAME_ANNOTATION]: fqName };
  return {
    source: link.source,
    namespace: service.namespace,
    origin,
    mode: 'remote-discovery',
    serviceNames: [name],
    render: (scope) =>
      new RemoteDiscoveryMirror(scope, `${service.namespace}.${name}`, {
        namespace: service.namespace,
        name,
        labels,
        annotations,
        ports: service.ports,
      }),
  };
}
