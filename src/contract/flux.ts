/** Flux names that delivery writes, each defined once (fluxcd.io/flux/components/kustomize/kustomizations). */

/** API version of Flux's kustomize-controller `Kustomization`. */
export const FLUX_KUSTOMIZATION_API_VERSION = 'kustomize.toolkit.fluxcd.io/v1';
/** Namespace of a stock Flux install (`flux bootstrap`). */
export const DEFAULT_FLUX_NAMESPACE = 'flux-system';
/** The GitRepository that `flux bootstrap` creates for the repository it bootstraps from. */
export const DEFAULT_FLUX_SOURCE_NAME = 'flux-system';
/** Kind of Flux source referenced by the Kustomizations. */
export const FLUX_GIT_REPOSITORY_KIND = 'GitRepository';
/** Per-object Flux annotation controlling garbage collection of objects that leave the source. */
export const FLUX_PRUNE_ANNOTATION = 'kustomize.toolkit.fluxcd.io/prune';
/** {@link FLUX_PRUNE_ANNOTATION} value: never prune this object. */
export const FLUX_PRUNE_DISABLED = 'disabled';
