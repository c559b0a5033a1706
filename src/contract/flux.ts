/** Flux names that delivery writes, each defined once (fluxcd.io/flux/components/kustomize/kustomizations). */

/** API group of Flux's kustomize-controller. */
export const FLUX_KUSTOMIZE_API_GROUP = 'kustomize.toolkit.fluxcd.io';
/** Version of the `Kustomization` API that delivery writes and status reads. */
export const FLUX_KUSTOMIZATION_VERSION = 'v1';
/** Resource (plural) of `Kustomization`, as RBAC and the API's paths name it. */
export const FLUX_KUSTOMIZATIONS_RESOURCE = 'kustomizations';
/** API version of Flux's kustomize-controller `Kustomization`. */
export const FLUX_KUSTOMIZATION_API_VERSION = `${FLUX_KUSTOMIZE_API_GROUP}/${FLUX_KUSTOMIZATION_VERSION}`;
/** The condition type whose status says whether a Kustomization applied its last revision. */
export const FLUX_READY_CONDITION = 'Ready';
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
