/** What every mode's mirror Service shares: its name, origin, fq-name, and the labels and annotations of contract §2.1. */
import { kustomizeUnsafeCharacters } from '../contract/metadata-policy.js';
import type { UndeliverableKey } from './copy-metadata.js';
import type { Diagnostics } from './diagnostics.js';
import type { MirrorRequest } from './mirror-unit.js';
import { PlanMemo } from './plan-memo.js';
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
  /** Shared between the mirrors of every source (frozen): copy before changing. */
  readonly labels: Readonly<Record<string, string>>;
  /** Shared between the mirrors of every source (frozen): copy before changing. */
  readonly annotations: Readonly<Record<string, string>>;
}

/**
 * The common parts of `request`'s mirror, or undefined (with a warning) when the service has no ports.
 * @param memo the planning run's memo: what depends on the target service and the link's metadata
 *   policy alone is computed once for every source. @default computed here
 */
export function mirrorMetadata(request: MirrorRequest, diagnostics: Diagnostics, memo: PlanMemo = new PlanMemo()): MirrorMetadata | undefined {
  const { link, target, service } = request;
  const shared = memo.metadata(service, target, link);
  const origin = shared.origin;
  if (service.ports.length === 0) {
    diagnostics.warn(Diag.NO_PORTS, `${link.source}: ${origin} has no ports, so it cannot be mirrored (a mirror Service needs at least one port); skipped`, { cluster: link.source, target: target.name, namespace: service.namespace, service: service.name });
    return undefined;
  }
  // Each source reports the keys it cannot deliver: the memo shares the finding, not the warning.
  for (const u of shared.undeliverable) diagnostics.warn(Diag.METADATA_NOT_DELIVERED, undeliverableWarning(link.source, origin, target.name, u), { cluster: link.source, target: target.name, namespace: service.namespace, service: service.name });
  return {
    origin,
    name: request.placement?.name ?? shared.name,
    namespace: request.placement?.namespace ?? service.namespace,
    fqName: shared.fqName,
    labels: shared.labels,
    annotations: shared.annotations,
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
