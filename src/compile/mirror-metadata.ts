/** What every mode's mirror Service shares: its name, origin, fq-name, and the labels and annotations of contract §2.1. */
import { MIRRORED_RESOURCE_LABEL, REMOTE_CLUSTER_NAME_LABEL, REMOTE_SVC_FQ_NAME_ANNOTATION } from '../contract/linkerd.js';
import { MANAGED_LABEL, MANAGED_VALUE } from '../contract/mirrorc.js';
import { kustomizeUnsafeCharacters } from '../contract/metadata-policy.js';
import { copiedAnnotations, copiedLabels, undeliverableMetadata, type UndeliverableKey } from './copy-metadata.js';
import type { Diagnostics } from './diagnostics.js';
import type { MirrorRequest } from './mirror-unit.js';
import { mirrorServiceName, remoteFqName } from './names.js';
import { Diag } from '../diagnostics/diagnostic-codes.js';

/** The common parts of a mirror Service. */
export interface MirrorMetadata {
  /** `target/namespace/service`, for messages. */
  readonly origin: string;
  /** `<svc>-<target>`, or the renamed mirror's name. */
  readonly name: string;
  /** The source namespace of the mirror: the service's, or the relocated one. */
  readonly namespace: string;
  /** `<svc>.<ns>.svc.<target domain>`. */
  readonly fqName: string;
  readonly labels: Record<string, string>;
  readonly annotations: Record<string, string>;
}

/** The common parts of `request`'s mirror, or undefined (with a warning) when the service has no ports. */
export function mirrorMetadata(request: MirrorRequest, diagnostics: Diagnostics): MirrorMetadata | undefined {
  const { link, target, service } = request;
  const origin = `${target.name}/${service.namespace}/${service.name}`;
  if (service.ports.length === 0) {
    diagnostics.warn(Diag.NO_PORTS, `${link.source}: ${origin} has no ports, so it cannot be mirrored (a mirror Service needs at least one port); skipped`, { cluster: link.source, target: target.name, namespace: service.namespace, service: service.name });
    return undefined;
  }
  for (const u of undeliverableMetadata(service, link)) diagnostics.warn(Diag.METADATA_NOT_DELIVERED, undeliverableWarning(link.source, origin, target.name, u), { cluster: link.source, target: target.name, namespace: service.namespace, service: service.name });
  const fqName = remoteFqName(service.name, service.namespace, target.clusterDomain);
  return {
    origin,
    name: request.placement?.name ?? mirrorServiceName(service.name, target.name),
    namespace: request.placement?.namespace ?? service.namespace,
    fqName,
    labels: {
      ...copiedLabels(service.labels, link),
      [MIRRORED_RESOURCE_LABEL]: 'true',
      [REMOTE_CLUSTER_NAME_LABEL]: target.name,
      [MANAGED_LABEL]: MANAGED_VALUE,
    },
    annotations: { ...copiedAnnotations(service.annotations, link), [REMOTE_SVC_FQ_NAME_ANNOTATION]: fqName },
  };
}

/** The warning for a label or annotation left out because kustomize cannot carry it. */
export function undeliverableWarning(source: string, origin: string, target: string, u: UndeliverableKey): string {
  return (
    `${source}: ${origin}: the ${u.kind} ${JSON.stringify(u.key)} is not copied to the mirror: it holds ${kustomizeUnsafeCharacters(u.text)}, ` +
    'which kustomize (and so Argo CD, Flux and kubectl apply -k) turns into spaces (U+0085, U+2028, U+2029) or cannot build at all (DEL, C1 controls, U+FFFE, U+FFFF); ' +
    `change the value on ${target}, or exclude the key on the link to silence this`
  );
}
