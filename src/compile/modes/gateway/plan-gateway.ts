/** Turns a mirror request into a gateway-mode {@link MirrorUnit}. */
import { MIRRORED_RESOURCE_LABEL, REMOTE_CLUSTER_NAME_LABEL, REMOTE_SVC_FQ_NAME_ANNOTATION } from '../../../contract/linkerd.js';
import { MANAGED_LABEL, MANAGED_VALUE } from '../../../contract/mirrorc.js';
import { copiedAnnotations, copiedLabels } from '../../copy-metadata.js';
import type { Diagnostics } from '../../diagnostics.js';
import type { MirrorRequest, MirrorUnit } from '../../mirror-unit.js';
import { mirrorServiceName, remoteFqName } from '../../names.js';
import { GatewayMirror } from './gateway-mirror.js';

/** The gateway-mode unit for `request`, or undefined (with a warning) when it cannot be built. */
export function planGatewayMirror(request: MirrorRequest, diagnostics: Diagnostics): MirrorUnit | undefined {
  const { link, target, service, targetSnapshot } = request;
  const origin = `${target.name}/${service.namespace}/${service.name}`;
  const gateway = targetSnapshot.gateway;
  if (!gateway) return undefined; // reported once per target by the caller
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
    [MANAGED_LABEL]: MANAGED_VALUE,
  };
  const annotations = { ...copiedAnnotations(service.annotations, link), [REMOTE_SVC_FQ_NAME_ANNOTATION]: fqName };
  return {
    source: link.source,
    namespace: service.namespace,
    origin,
    mode: 'gateway',
    serviceNames: [name],
    render: (scope) =>
      new GatewayMirror(scope, `${service.namespace}.${name}`, {
        namespace: service.namespace,
        name,
        labels,
        annotations,
        ports: service.ports,
        gateway,
        remoteFqName: fqName,
      }),
  };
}
