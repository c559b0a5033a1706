/**
 * Which remote labels and annotations a mirror carries: what the metadata policy
 * (src/contract/metadata-policy.ts) allows, within the link's allow-list, minus the link's exclusions,
 * minus keys and values that kustomize cannot carry.
 */
import { allowEntryMatches, copyRule, KUSTOMIZE_UNSAFE, type MetadataKind } from '../contract/metadata-policy.js';
import type { LinkSpec } from '../model/fleet-spec.js';

/**
 * Whether `key` matches one of a link's exclusion entries. Like Linkerd, `x/*` excludes every key
 * that starts with `x` (Linkerd trims `/*` and matches the prefix).
 */
export function isExcluded(key: string, exclusions: readonly string[]): boolean {
  return exclusions.some((entry) => (entry.endsWith('/*') ? key.startsWith(entry.slice(0, -2)) : key === entry));
}

/** Whether the policy, the allow-list (absent: everything) and the exclusions let `key` through. */
function selected(key: string, kind: MetadataKind, allowed: readonly string[] | undefined, excluded: readonly string[]): boolean {
  const rule = copyRule(key, kind);
  if (rule === 'never') return false;
  if (rule === 'always') return true;
  if (allowed !== undefined && !allowed.some((entry) => allowEntryMatches(entry, key))) return false;
  return !isExcluded(key, excluded);
}

function copied(
  remote: Readonly<Record<string, string>>,
  kind: MetadataKind,
  allowed: readonly string[] | undefined,
  excluded: readonly string[],
): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [key, value] of Object.entries(remote)) {
    if (selected(key, kind, allowed, excluded) && !KUSTOMIZE_UNSAFE.test(key) && !KUSTOMIZE_UNSAFE.test(value)) out[key] = value;
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

/** A selected label or annotation left out because its key or value holds characters kustomize cannot carry. */
export interface UndeliverableKey {
  readonly kind: MetadataKind;
  readonly key: string;
  /** The key and value, for messages. */
  readonly text: string;
}

/** The labels and annotations of a remote service that would be copied but for kustomize-unsafe characters. */
export function undeliverableMetadata(
  remote: { readonly labels: Readonly<Record<string, string>>; readonly annotations: Readonly<Record<string, string>> },
  link: Pick<LinkSpec, 'excludedLabels' | 'allowedLabels' | 'excludedAnnotations' | 'allowedAnnotations'>,
): UndeliverableKey[] {
  const found: UndeliverableKey[] = [];
  const lists = [
    ['label', remote.labels, link.allowedLabels, link.excludedLabels],
    ['annotation', remote.annotations, link.allowedAnnotations, link.excludedAnnotations],
  ] as const;
  for (const [kind, record, allowed, excluded] of lists) {
    for (const [key, value] of Object.entries(record)) {
      if (!selected(key, kind, allowed, excluded)) continue;
      if (KUSTOMIZE_UNSAFE.test(key) || KUSTOMIZE_UNSAFE.test(value)) found.push({ kind, key, text: key + value });
    }
  }
  return found;
}

/** What a link's policy copies of a remote service, and what it would copy but for kustomize-unsafe characters. */
export interface CopiedMetadata {
  readonly labels: Record<string, string>;
  readonly annotations: Record<string, string>;
  readonly undeliverable: UndeliverableKey[];
}

/**
 * {@link copiedLabels}, {@link copiedAnnotations} and {@link undeliverableMetadata} of one service in
 * one pass over its keys (each key is judged once).
 */
export function copiedMetadata(
  remote: { readonly labels: Readonly<Record<string, string>>; readonly annotations: Readonly<Record<string, string>> },
  link: Pick<LinkSpec, 'excludedLabels' | 'allowedLabels' | 'excludedAnnotations' | 'allowedAnnotations'>,
): CopiedMetadata {
  const out: CopiedMetadata = { labels: {}, annotations: {}, undeliverable: [] };
  const lists = [
    ['label', remote.labels, link.allowedLabels, link.excludedLabels, out.labels],
    ['annotation', remote.annotations, link.allowedAnnotations, link.excludedAnnotations, out.annotations],
  ] as const;
  for (const [kind, record, allowed, excluded, copies] of lists) {
    for (const [key, value] of Object.entries(record)) {
      if (!selected(key, kind, allowed, excluded)) continue;
      if (KUSTOMIZE_UNSAFE.test(key) || KUSTOMIZE_UNSAFE.test(value)) out.undeliverable.push({ kind, key, text: key + value });
      else copies[key] = value;
    }
  }
  return out;
}
