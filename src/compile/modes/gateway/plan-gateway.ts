/** Turns a mirror request into a gateway-mode {@link MirrorUnit}. */
import type { Diagnostics } from '../../diagnostics.js';
import { mirrorMetadata } from '../../mirror-metadata.js';
import type { MirrorRequest, MirrorUnit } from '../../mirror-unit.js';
import { GatewayMirror } from './gateway-mirror.js';

/** The gateway-mode unit for `request`, or undefined (with a warning) when it cannot be built. */
export function planGatewayMirror(request: MirrorRequest, diagnostics: Diagnostics): MirrorUnit | undefined {
  const { link, service, targetSnapshot } = request;
  const gateway = targetSnapshot.gateway;
  if (!gateway) return undefined; // reported once per target by the caller
  const meta = mirrorMetadata(request, diagnostics);
  if (!meta) return undefined;
  const { origin, name, fqName, labels, annotations } = meta;
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
