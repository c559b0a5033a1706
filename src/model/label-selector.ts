/** Kubernetes label selectors: the type, validation and matching, as the API server defines them. */

import { compareStrings } from '../util/order.js';
import { appendAll } from '../util/append-all.js';

/** One `matchExpressions` entry. */
export interface LabelSelectorRequirement {
  /**
   * The label key.
   */
  readonly key: string;
  /**
   * One of `In`, `NotIn`, `Exists`, `DoesNotExist`.
   */
  readonly operator: 'In' | 'NotIn' | 'Exists' | 'DoesNotExist';
  /**
   * Values for `In`/`NotIn`; must be empty for `Exists`/`DoesNotExist`.
   *
   * @default - none
   */
  readonly values?: readonly string[];
}

/** A Kubernetes `LabelSelector`. All parts must match (AND). */
export interface LabelSelector {
  /**
   * Exact key=value pairs.
   *
   * @default {}
   */
  readonly matchLabels?: Readonly<Record<string, string>>;
  /**
   * Set-based requirements.
   *
   * @default []
   */
  readonly matchExpressions?: readonly LabelSelectorRequirement[];
}

const NAME_PART = /^[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?$/;
const DNS_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;

/** Why `key` is not a valid label key, or undefined if it is. */
export function labelKeyProblem(key: string): string | undefined {
  const slash = key.lastIndexOf('/');
  const prefix = slash >= 0 ? key.slice(0, slash) : undefined;
  const name = slash >= 0 ? key.slice(slash + 1) : key;
  if (prefix !== undefined && (prefix.length === 0 || prefix.length > 253 || !DNS_SUBDOMAIN.test(prefix))) {
    return `label key "${key}" has an invalid prefix "${prefix}" (must be a lower-case DNS subdomain)`;
  }
  if (name.length === 0 || name.length > 63 || !NAME_PART.test(name)) {
    return `label key "${key}" is invalid (name part: 1-63 alphanumerics, '-', '_' or '.', starting and ending alphanumeric)`;
  }
  return undefined;
}

/** Why `value` is not a valid label value, or undefined if it is. */
export function labelValueProblem(value: string): string | undefined {
  if (value === '') return undefined;
  if (value.length > 63 || !NAME_PART.test(value)) {
    return `label value "${value}" is invalid (at most 63 alphanumerics, '-', '_' or '.', starting and ending alphanumeric)`;
  }
  return undefined;
}

/** Every problem with `selector`, in plain words; empty when it is valid. */
export function labelSelectorProblems(selector: LabelSelector): string[] {
  const problems: string[] = [];
  for (const [key, value] of Object.entries(selector.matchLabels ?? {})) {
    const p = labelKeyProblem(key) ?? (typeof value === 'string' ? labelValueProblem(value) : `matchLabels["${key}"] must be a string`);
    if (p) problems.push(p);
  }
  for (const req of selector.matchExpressions ?? []) {
    const keyProblem = labelKeyProblem(req.key);
    if (keyProblem) problems.push(keyProblem);
    const values = req.values ?? [];
    switch (req.operator) {
      case 'In':
      case 'NotIn':
        if (values.length === 0) problems.push(`matchExpressions for "${req.key}": operator ${req.operator} needs at least one value`);
        for (const v of values) {
          const vp = labelValueProblem(v);
          if (vp) problems.push(vp);
        }
        break;
      case 'Exists':
      case 'DoesNotExist':
        if (values.length > 0) problems.push(`matchExpressions for "${req.key}": operator ${req.operator} takes no values`);
        break;
      default:
        problems.push(`matchExpressions for "${req.key}": unknown operator "${String(req.operator)}" (use In, NotIn, Exists or DoesNotExist)`);
    }
  }
  if (Object.keys(selector.matchLabels ?? {}).length === 0 && (selector.matchExpressions ?? []).length === 0) {
    problems.push('the selector is empty; Linkerd treats an empty selector as "match nothing", so nothing would be mirrored');
  }
  return problems;
}

/** Whether `labels` satisfy `selector`; a link's selector turned off (`null`) matches nothing. */
export function selectorMatches(selector: LabelSelector | null, labels: Readonly<Record<string, string>>): boolean {
  if (selector === null) return false;
  for (const [key, value] of Object.entries(selector.matchLabels ?? {})) {
    if (labels[key] !== value) return false;
  }
  for (const req of selector.matchExpressions ?? []) {
    const has = Object.prototype.hasOwnProperty.call(labels, req.key);
    const values = req.values ?? [];
    switch (req.operator) {
      case 'In':
        if (!has || !values.includes(labels[req.key]!)) return false;
        break;
      case 'NotIn':
        if (has && values.includes(labels[req.key]!)) return false;
        break;
      case 'Exists':
        if (!has) return false;
        break;
      case 'DoesNotExist':
        if (has) return false;
        break;
    }
  }
  return true;
}

/** The selector as the API server's `labelSelector` query string, with parts in a stable order. */
export function selectorToQuery(selector: LabelSelector): string {
  const parts: string[] = [];
  for (const key of Object.keys(selector.matchLabels ?? {}).sort()) {
    parts.push(`${key}=${selector.matchLabels![key]}`);
  }
  const exprs: [key: string, text: string][] = [];
  for (const req of selector.matchExpressions ?? []) {
    const values = [...(req.values ?? [])].sort(compareStrings).join(',');
    switch (req.operator) {
      case 'In': exprs.push([req.key, `${req.key} in (${values})`]); break;
      case 'NotIn': exprs.push([req.key, `${req.key} notin (${values})`]); break;
      case 'Exists': exprs.push([req.key, req.key]); break;
      case 'DoesNotExist': exprs.push([req.key, `!${req.key}`]); break;
    }
  }
  exprs.sort(([ka, ta], [kb, tb]) => compareStrings(ka, kb) || compareStrings(ta, tb));
  appendAll(parts, exprs.map(([, text]) => text));
  return parts.join(',');
}

/**
 * The selectors whose services a link mirrors, in query form, sorted and unique. Observation lists
 * exactly these and compile checks the lock holds them, so a new mode's selector is added here once.
 */
export function linkSelectorQueries(link: LinkSelectors): string[] {
  const queries = [link.selector, link.remoteDiscoverySelector, link.federatedServiceSelector].filter((s) => s !== null).map(selectorToQuery);
  return [...new Set(queries)].sort(compareStrings);
}

/** A link's three selectors; `null` turns that mode off for the link. */
export interface LinkSelectors {
  readonly selector: LabelSelector | null;
  readonly remoteDiscoverySelector: LabelSelector | null;
  readonly federatedServiceSelector: LabelSelector | null;
}

/** The label a service needs to be mirrored by `link`, in query form, for hints: its gateway selector's, else the first mode's it has on. */
export function linkExportQuery(link: LinkSelectors): string {
  const on = [link.selector, link.remoteDiscoverySelector, link.federatedServiceSelector].find((s) => s !== null);
  return on ? selectorToQuery(on) : '(none: the link turns every selector off)';
}
