/** Which part of a label selector a service's labels fail: the answer to "why does my selector not match?". */
import type { LabelSelector } from '../model/label-selector.js';

/**
 * Each `matchLabels` entry and `matchExpressions` requirement of `selector` that `labels` fail, in
 * plain words (`label mirror.linkerd.io/exported=true: the service has no such label`); empty when
 * the selector matches. The same rules as `selectorMatches`.
 */
export function selectorMismatches(selector: LabelSelector, labels: Readonly<Record<string, string>>): string[] {
  const out: string[] = [];
  const has = (key: string): boolean => Object.prototype.hasOwnProperty.call(labels, key);
  const actual = (key: string): string => (has(key) ? `the service has ${key}=${JSON.stringify(labels[key])}` : 'the service has no such label');
  for (const [key, value] of Object.entries(selector.matchLabels ?? {})) {
    if (labels[key] !== value) out.push(`label ${key}=${value}: ${actual(key)}`);
  }
  for (const req of selector.matchExpressions ?? []) {
    const values = req.values ?? [];
    const text = `${req.key} ${req.operator}${values.length > 0 ? ` (${values.join(', ')})` : ''}`;
    switch (req.operator) {
      case 'In':
        if (!has(req.key) || !values.includes(labels[req.key]!)) out.push(`expression ${text}: ${actual(req.key)}`);
        break;
      case 'NotIn':
        if (has(req.key) && values.includes(labels[req.key]!)) out.push(`expression ${text}: ${actual(req.key)}`);
        break;
      case 'Exists':
        if (!has(req.key)) out.push(`expression ${text}: the service has no such label`);
        break;
      case 'DoesNotExist':
        if (has(req.key)) out.push(`expression ${text}: ${actual(req.key)}`);
        break;
    }
  }
  return out;
}
