/**
 * The Flux Kustomization of one cluster: applied in that cluster's own Flux (no credentials of other
 * clusters anywhere), it syncs `<outputPath>/<cluster>` with prune on.
 */
import { FLUX_GIT_REPOSITORY_KIND, FLUX_KUSTOMIZATION_API_VERSION } from '../contract/flux.js';
import { MANAGED_LABEL, MANAGED_VALUE } from '../contract/mirrorc.js';
import type { DeliverySpec, FluxDeliverySpec } from '../model/gitops-delivery.js';

/** Name of the Kustomization in every cluster. */
export const FLUX_KUSTOMIZATION_NAME = 'mirrorc';

/** The Kustomization that cluster `cluster` applies. */
export function fluxKustomization(delivery: DeliverySpec, flux: FluxDeliverySpec, cluster: string): object {
  return {
    apiVersion: FLUX_KUSTOMIZATION_API_VERSION,
    kind: 'Kustomization',
    metadata: { name: FLUX_KUSTOMIZATION_NAME, namespace: flux.namespace, labels: { [MANAGED_LABEL]: MANAGED_VALUE } },
    spec: {
      interval: flux.interval,
      path: `./${delivery.outputPath}/${cluster}`,
      prune: true,
      sourceRef: { kind: FLUX_GIT_REPOSITORY_KIND, name: flux.sourceName },
    },
  };
}
