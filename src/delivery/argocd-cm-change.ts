/**
 * The `argocd-cm` change Argo CD ≥ 3.0 needs before it syncs our Endpoints and EndpointSlices:
 * its stock `resource.exclusions` hides both kinds (docs/linkerd-mirror-contract.md §6). The value is one YAML
 * string with no merging, so the change is a new value for the whole key: the same text with
 * exactly that rule (and its comment) cut out, every other rule and comment kept byte for byte.
 */
import YAML from 'yaml';
import { RESOURCE_EXCLUSIONS_KEY, RESOURCE_SELECTORS_KEY } from '../contract/argocd.js';
import { MANAGED_LABEL, MANAGED_VALUE } from '../contract/mirrorc.js';

/** API groups and kinds of the objects Argo CD ≥ 3.0 hides and mirrorc writes. */
const ENDPOINT_GROUPS: readonly string[] = ['', 'discovery.k8s.io'];
const ENDPOINT_KINDS: readonly string[] = ['Endpoints', 'EndpointSlice'];

/** The data keys of `argocd-cm` that the change sets (only those: a merge patch leaves the rest alone). */
export type ArgoCdConfigMapChange = Readonly<Record<string, string>>;

/** The stock `argocd-cm` cannot be changed automatically; the message says what to do by hand. */
export class ArgoCdConfigMapError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ArgoCdConfigMapError';
  }
}

interface ExclusionRule {
  readonly apiGroups?: unknown;
  readonly kinds?: unknown;
  readonly clusters?: unknown;
}

const asStrings = (v: unknown): string[] | undefined => (Array.isArray(v) ? v.map(String) : undefined);

/** Whether a rule hides Endpoints or EndpointSlices (its group and kind globs match them). */
function hidesEndpoints(rule: ExclusionRule): boolean {
  const groups = asStrings(rule.apiGroups) ?? ['*'];
  const kinds = asStrings(rule.kinds) ?? ['*'];
  return groups.some((g) => g === '*' || ENDPOINT_GROUPS.includes(g)) && kinds.some((k) => k === '*' || ENDPOINT_KINDS.includes(k));
}

/** Whether a rule hides nothing but Endpoints and EndpointSlices, so that cutting it out loses nothing else. */
function hidesOnlyEndpoints(rule: ExclusionRule): boolean {
  const groups = asStrings(rule.apiGroups);
  const kinds = asStrings(rule.kinds);
  return !!groups && !!kinds && groups.every((g) => ENDPOINT_GROUPS.includes(g)) && kinds.every((k) => ENDPOINT_KINDS.includes(k));
}

/**
 * `resource.exclusions` without the rules that hide Endpoints/EndpointSlices. Each such rule is cut
 * out of the text with the comment lines directly above it; everything else stays byte for byte.
 * @throws ArgoCdConfigMapError when a rule hides them together with other kinds or groups
 */
export function withoutEndpointExclusion(exclusions: string): string {
  const doc = YAML.parseDocument(exclusions);
  if (doc.errors.length > 0) throw new ArgoCdConfigMapError(`${RESOURCE_EXCLUSIONS_KEY} is not valid YAML: ${doc.errors[0]!.message}`);
  if (doc.contents === null) return exclusions;
  if (!YAML.isSeq(doc.contents)) throw new ArgoCdConfigMapError(`${RESOURCE_EXCLUSIONS_KEY} is not a YAML list of rules`);
  const cuts: [number, number][] = [];
  doc.contents.items.forEach((node, index) => {
    const rule = (YAML.isMap(node) ? node.toJSON() : {}) as ExclusionRule;
    if (!hidesEndpoints(rule)) return;
    if (!hidesOnlyEndpoints(rule) || rule.clusters !== undefined) {
      throw new ArgoCdConfigMapError(
        `rule ${index + 1} of ${RESOURCE_EXCLUSIONS_KEY} hides Endpoints or EndpointSlices together with other kinds, groups or a cluster list; ` +
          'edit it by hand so that it no longer matches Endpoints and EndpointSlice in the clusters that receive mirrors',
      );
    }
    const [start, , end] = (node as YAML.YAMLMap).range!;
    let from = exclusions.lastIndexOf('\n', start - 1) + 1; // the line of the rule's "- "
    // Take the comment lines directly above: in the stock file each rule's comment describes it.
    for (;;) {
      const prevStart = from === 0 ? -1 : exclusions.lastIndexOf('\n', from - 2) + 1;
      if (prevStart < 0 || !exclusions.slice(prevStart, from).trimStart().startsWith('#')) break;
      from = prevStart;
    }
    const to = end > 0 && exclusions[end - 1] !== '\n' ? Math.min(exclusions.length, exclusions.indexOf('\n', end) + 1 || exclusions.length) : end;
    cuts.push([from, to]);
  });
  let out = exclusions;
  for (const [from, to] of cuts.reverse()) out = out.slice(0, from) + out.slice(to);
  return out;
}

/** The `resource.selectors` rule that limits Argo CD's watch of both kinds to the objects mirrorc writes. */
export function managedEndpointsSelectorRule(): string {
  return [
    `### mirrorc: watch only the Endpoints and EndpointSlices that mirrorc writes (label ${MANAGED_LABEL}=${MANAGED_VALUE})`,
    '- apiGroups:',
    ...ENDPOINT_GROUPS.map((g) => `  - ${g === '' ? "''" : g}`),
    '  kinds:',
    ...ENDPOINT_KINDS.map((k) => `  - ${k}`),
    `  selector: ${MANAGED_LABEL}=${MANAGED_VALUE}`,
    '',
  ].join('\n');
}

/** Which change: let all Endpoints/EndpointSlices through, or only ours (Argo CD with `resource.selectors`). */
export type ArgoCdConfigMapVariant = 'all-endpoints' | 'managed-endpoints-only';

/**
 * The data keys to set in an `argocd-cm` (parsed ConfigMap `data`) so that Argo CD syncs mirrorc's
 * Endpoints and EndpointSlices, keeping every other exclusion. The narrower variant also adds a
 * `resource.selectors` rule so Argo CD lists and watches only the ones labelled by mirrorc.
 */
export function argoCdConfigMapChange(data: Readonly<Record<string, string>>, variant: ArgoCdConfigMapVariant): ArgoCdConfigMapChange {
  const exclusions = data[RESOURCE_EXCLUSIONS_KEY];
  const change: Record<string, string> = {};
  if (exclusions !== undefined) change[RESOURCE_EXCLUSIONS_KEY] = withoutEndpointExclusion(exclusions);
  if (variant === 'managed-endpoints-only') {
    const existing = data[RESOURCE_SELECTORS_KEY];
    const rule = managedEndpointsSelectorRule();
    change[RESOURCE_SELECTORS_KEY] = existing && existing.trim() !== '' ? `${existing.replace(/\n*$/, '\n')}${rule}` : rule;
  }
  return change;
}

/** Parses the text of an `argocd-cm` ConfigMap manifest and returns its `data`. */
export function argoCdConfigMapData(manifest: string): Record<string, string> {
  const parsed = YAML.parse(manifest) as { kind?: string; data?: Record<string, string> } | null;
  if (!parsed || parsed.kind !== 'ConfigMap') throw new ArgoCdConfigMapError('the argocd-cm manifest is not a ConfigMap');
  return parsed.data ?? {};
}
