/**
 * Which remote labels and annotations a mirror carries: what the metadata policy
 * (src/contract/metadata-policy.ts) allows, within the link's allow-list, minus the link's exclusions.
 */
import { allowEntryMatches, copyRule, type MetadataKind } from '../contract/metadata-policy.js';
import type { LinkSpec } from '../model/fleet-spec.js';

/**
 * Whether `key` matches one of a link's exclusion entries. Like Linkerd, `x/*` excludes every key
 * that starts with `x` (Linkerd trims `/*` and matches the prefix).
 */
export function isExcluded(key: string, exclusions: readonly string[]): boolean {
  return exclusions.some((entry) => (entry.endsWith('/*') ? key.startsWith(entry.slice(0, -2)) : key === entry));
}

/** The keys of `remote` that the policy, the allow-list (absent: everything) and the exclusions let through. */
function copied(
  remote: Readonly<Record<string, string>>,
  kind: MetadataKind,
  allowed: readonly string[] | undefined,
  excluded: readonly string[],
): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [key, value] of Object.entries(remote)) {
    const rule = copyRule(key, kind);
    if (rule === 'never') continue;
    if (rule === 'allowed') {
      if (allowed !== undefined && !allowed.some((entry) => allowEntryMatches(entry, key))) continue;
      if (isExcluded(key, excluded)) continue;
    }
    out[key] = value;
  }
  return out;
}

/** Remote labels that a mirror copies. */
export function copiedLabels(
  remote: Readonly<Record<string, string>>,
  link: Pick<LinkSpec, 'excludedLabels' | 'allowedLabels'>,
): Record<string, string> {
  return copied(remote, 'label', link.allowedLabels, link.excludedLabels);
}

/** Remote annotations that a mirror copies; opaque ports survive an exclusion or allow-list, as in Linkerd. */
export function copiedAnnotations(
  remote: Readonly<Record<string, string>>,
  link: Pick<LinkSpec, 'excludedAnnotations' | 'allowedAnnotations'>,
): Record<string, string> {
  return copied(remote, 'annotation', link.allowedAnnotations, link.excludedAnnotations);
}
