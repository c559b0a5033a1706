/**
 * Keys by which GitOps tools recognise the objects they own. A mirror that copied them from the
 * target would be claimed (and pruned) by the source cluster's Argo CD or Flux (linkerd2#11358), so
 * they are never copied, whatever the link says.
 */

/** Label keys never copied from a target service to its mirrors. */
export const GITOPS_TRACKING_LABELS: readonly string[] = [
  'app.kubernetes.io/instance', // Argo CD label tracking (application.instanceLabelKey default)
  'argocd.argoproj.io/instance',
  'kustomize.toolkit.fluxcd.io/name',
  'kustomize.toolkit.fluxcd.io/namespace',
  'helm.toolkit.fluxcd.io/name',
  'helm.toolkit.fluxcd.io/namespace',
];

/** Key prefixes (labels and annotations) never copied: Argo CD and Flux per-object settings. */
export const GITOPS_TRACKING_PREFIXES: readonly string[] = [
  'argocd.argoproj.io/',
  'kustomize.toolkit.fluxcd.io/',
  'helm.toolkit.fluxcd.io/',
];

/** Annotation keys never copied. */
export const GITOPS_TRACKING_ANNOTATIONS: readonly string[] = [
  'kubectl.kubernetes.io/last-applied-configuration',
];

/** Whether a label key is a GitOps tracking key that must never be copied. */
export function isTrackingLabel(key: string): boolean {
  return GITOPS_TRACKING_LABELS.includes(key) || GITOPS_TRACKING_PREFIXES.some((p) => key.startsWith(p));
}

/** Whether an annotation key is a GitOps tracking key that must never be copied. */
export function isTrackingAnnotation(key: string): boolean {
  return GITOPS_TRACKING_ANNOTATIONS.includes(key) || GITOPS_TRACKING_PREFIXES.some((p) => key.startsWith(p));
}
