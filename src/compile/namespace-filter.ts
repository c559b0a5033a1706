import type { NamespaceFilterSpec } from '../model/fleet-spec.js';

function globMatches(pattern: string, name: string): boolean {
  const re = new RegExp(`^${pattern.split('*').map((p) => p.replace(/[.+?^${}()|[\]\\-]/g, '\\$&')).join('.*')}$`);
  return re.test(name);
}

/** Whether a link mirrors services of `namespace`: included (or no include list) and not excluded. */
export function namespaceSelected(filter: NamespaceFilterSpec, namespace: string): boolean {
  if (filter.exclude.some((p) => globMatches(p, namespace))) return false;
  return filter.include.length === 0 || filter.include.some((p) => globMatches(p, namespace));
}
