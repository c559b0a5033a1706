/**
 * Which remote labels and annotations a mirror carries (contract §2.1), minus the link's
 * exclusions and GitOps tracking keys.
 */
import { isTrackingAnnotation, isTrackingLabel } from '../contract/gitops.js';
import { NEVER_COPIED_ANNOTATIONS, OPAQUE_PORTS_ANNOTATION, SVC_MIRROR_PREFIX } from '../contract/linkerd.js';
import type { LinkSpec } from '../model/fleet-spec.js';

/**
 * Whether `key` matches one of a link's exclusion entries. Like Linkerd, `x/*` excludes every key
 * that starts with `x` (Linkerd trims `/*` and matches the prefix).
 */
export function isExcluded(key: string, exclusions: readonly string[]): boolean {
  return exclusions.some((entry) => (entry.endsWith('/*') ? key.startsWith(entry.slice(0, -2)) : key === entry));
}

/** Remote labels that a mirror copies. */
export function copiedLabels(remote: Readonly<Record<string, string>>, link: Pick<LinkSpec, 'excludedLabels'>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [key, value] of Object.entries(remote)) {
    if (key.startsWith(SVC_MIRROR_PREFIX)) continue;
    if (isTrackingLabel(key) || isExcluded(key, link.excludedLabels)) continue;
    out[key] = value;
  }
  return out;
}

/** Remote annotations that a mirror copies; opaque ports survive an exclusion, as in Linkerd. */
export function copiedAnnotations(remote: Readonly<Record<string, string>>, link: Pick<LinkSpec, 'excludedAnnotations'>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [key, value] of Object.entries(remote)) {
    if (NEVER_COPIED_ANNOTATIONS.includes(key) || isTrackingAnnotation(key)) continue;
    if (isExcluded(key, link.excludedAnnotations)) continue;
    out[key] = value;
  }
  const opaque = remote[OPAQUE_PORTS_ANNOTATION];
  if (opaque !== undefined) out[OPAQUE_PORTS_ANNOTATION] = opaque;
  return out;
}
