/**
 * Argo CD names and `argocd-cm` keys that delivery writes or edits, each defined once
 * (Argo CD docs: operator-manual/declarative-setup.md, "Resource Exclusion/Inclusion").
 */

/** `argocd-cm` key: rules of group/kind/cluster that Argo CD neither watches nor syncs. */
export const RESOURCE_EXCLUSIONS_KEY = 'resource.exclusions';
/** `argocd-cm` key: a label selector per group/kind/cluster pushed into Argo CD's list/watch calls (argoproj/argo-cd#29423). */
export const RESOURCE_SELECTORS_KEY = 'resource.selectors';
/** Name of Argo CD's main ConfigMap. */
export const ARGOCD_CM_NAME = 'argocd-cm';
/** Namespace of a stock Argo CD install. */
export const DEFAULT_ARGOCD_NAMESPACE = 'argocd';
/** API version of Application, ApplicationSet and AppProject. */
export const ARGOCD_API_VERSION = 'argoproj.io/v1alpha1';
/** Per-object Argo CD sync options annotation. */
export const SYNC_OPTIONS_ANNOTATION = 'argocd.argoproj.io/sync-options';
/** {@link SYNC_OPTIONS_ANNOTATION} value: never prune this object, even when it leaves git. */
export const SYNC_OPTION_NO_PRUNE = 'Prune=false';
/** Per-Application (or per-object) comparison options annotation. */
export const COMPARE_OPTIONS_ANNOTATION = 'argocd.argoproj.io/compare-options';
/**
 * {@link COMPARE_OPTIONS_ANNOTATION} value: diff through a server-side apply dry-run. Argo CD 3.1–3.5
 * otherwise use the structured-merge diff, where an empty list against a null one is a known false OutOfSync.
 */
export const COMPARE_OPTION_SERVER_SIDE_DIFF = 'ServerSideDiff=true';
/** Application annotation that asks for a refresh now (`normal` or `hard`: regenerate the manifests too). */
export const REFRESH_ANNOTATION = 'argocd.argoproj.io/refresh';
/** ApplicationSet annotation that asks for a reconcile now (what Argo CD's git webhook sets on a push). */
export const APPLICATION_SET_REFRESH_ANNOTATION = 'argocd.argoproj.io/application-set-refresh';
/** Label of a Secret that registers a cluster in Argo CD. */
export const SECRET_TYPE_LABEL = 'argocd.argoproj.io/secret-type';
/** Application annotation: `;`-separated paths (relative to the source path; globs of `filepath.Match`) whose changes alone make a new commit regenerate its manifests. */
export const MANIFEST_GENERATE_PATHS_ANNOTATION = 'argocd.argoproj.io/manifest-generate-paths';
/** Per-object annotation: the sync wave of the object inside its Application (lower waves are applied first). */
export const SYNC_WAVE_ANNOTATION = 'argocd.argoproj.io/sync-wave';
/** {@link SYNC_WAVE_ANNOTATION} value of every Service with a pinned ClusterIP: applied before every Service without one (wave 0) of its Application. */
export const PINNED_SERVICE_SYNC_WAVE = '-1';
/** Sync option: server-side apply. */
export const SYNC_OPTION_SERVER_SIDE_APPLY = 'ServerSideApply=true';
/** Sync option: apply only the resources that are OutOfSync (and prune), not every resource of the Application. */
export const SYNC_OPTION_APPLY_OUT_OF_SYNC_ONLY = 'ApplyOutOfSyncOnly=true';
