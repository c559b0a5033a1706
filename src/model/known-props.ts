/**
 * The property names of every construct's props, at runtime: the fleet file runs without type
 * checks, so a typo such as `taget:` would otherwise be dropped silently (and reported, if at all,
 * as a consequence: "its target is not a Cluster"). Each list is checked against its TypeScript
 * interface at compile time ({@link propNames}), so a new prop cannot be forgotten here.
 */
import { appendAll } from '../util/append-all.js';
import { didYouMean } from '../util/did-you-mean.js';
import type { ClusterAccess, ClusterProps, GatewayProbeProps, GatewayProps } from './cluster.js';
import type { ExplicitExportProps, MirrorAs } from './explicit-export.js';
import type { ArgoCdDeliveryProps, FluxDeliveryProps, GitOpsDeliveryProps } from './gitops-delivery.js';
import type { LabelSelector, LabelSelectorRequirement } from './label-selector.js';
import type { LinkProps, NamespaceFilter, RemoteDiscoveryCredentials } from './link.js';
import type { ObservationBudgetProps } from './observation-budget.js';
import type { StalenessLimitProps } from './staleness-limit.js';

/** The keys of `T` that `K` does not list (never when it lists them all). */
type Missing<T, K extends readonly string[]> = Exclude<keyof T & string, K[number]>;

/**
 * `names` as the runtime list of `T`'s property names: a type error unless it lists every key of
 * `T` and nothing else.
 */
function propNames<T>() {
  return <const K extends readonly (keyof T & string)[]>(names: K & ([Missing<T, K>] extends [never] ? unknown : { readonly missing: Missing<T, K> })): readonly string[] => names;
}

/** A props shape: its property names, and the shapes of the nested objects among them. */
export interface PropsShape {
  readonly names: readonly string[];
  /** Nested objects checked too, by property name; `[]` marks a list of such objects. */
  readonly nested?: Readonly<Record<string, PropsShape | readonly [PropsShape]>>;
  /** Properties that must be lists of strings (a string there would be read as its characters). */
  readonly stringLists?: readonly string[];
}

const SELECTOR: PropsShape = {
  names: propNames<LabelSelector>()(['matchLabels', 'matchExpressions']),
  nested: { matchExpressions: [{ names: propNames<LabelSelectorRequirement>()(['key', 'operator', 'values']) }] },
};

export const CLUSTER_PROPS: PropsShape = {
  names: propNames<ClusterProps>()([
    'name', 'access', 'clusterDomain', 'trustDomain', 'localFederatedSelector', 'gateway', 'pinnedServiceIPRange', 'additionalPinnedServiceIPRanges',
    'serviceCidrs', 'podCidrs', 'controlPlaneNamespace', 'trustRootExpiryWarningDays', 'observationBudget',
  ]),
  stringLists: ['additionalPinnedServiceIPRanges', 'serviceCidrs', 'podCidrs'],
  nested: {
    access: { names: propNames<ClusterAccess>()(['kubeconfig', 'context']) },
    localFederatedSelector: SELECTOR,
    gateway: {
      names: propNames<GatewayProps>()(['kind', 'servicePorts', 'namespace', 'name', 'addresses', 'port', 'identity', 'probe']),
      stringLists: ['addresses'],
      nested: { probe: { names: propNames<GatewayProbeProps>()(['mode', 'address', 'path', 'allowedCidrs']) } },
    },
    observationBudget: {
      names: propNames<ObservationBudgetProps>()(['deadlineSeconds', 'maxRequests', 'listPageSize', 'maxPagesPerList', 'maxItemsPerList', 'maxBytesPerList', 'maxValuesPerList', 'maxNestingDepth', 'maxStringBytes', 'maxProbeAddresses', 'maxProbeSeconds']),
    },
  },
};

export const LINK_PROPS: PropsShape = {
  names: propNames<LinkProps>()([
    'source', 'target', 'selector', 'remoteDiscoverySelector', 'federatedServiceSelector', 'remoteDiscoveryCredentials',
    'excludedLabels', 'excludedAnnotations', 'allowedLabels', 'allowedAnnotations', 'namespaces', 'createMissingNamespaces',
    'mirrorSystemNamespaces', 'globalServices', 'followServiceReadiness', 'followPodReadiness', 'namespaceMap', 'mcs',
    'serviceExports', 'adoptLinkerdMirrors',
  ]),
  stringLists: ['excludedLabels', 'excludedAnnotations', 'allowedLabels', 'allowedAnnotations'],
  nested: {
    selector: SELECTOR,
    remoteDiscoverySelector: SELECTOR,
    federatedServiceSelector: SELECTOR,
    remoteDiscoveryCredentials: { names: propNames<RemoteDiscoveryCredentials>()(['provided', 'secretName']) },
    namespaces: { names: propNames<NamespaceFilter>()(['include', 'exclude']), stringLists: ['include', 'exclude'] },
  },
};

export const EXPLICIT_EXPORT_PROPS: PropsShape = {
  names: propNames<ExplicitExportProps>()(['cluster', 'namespace', 'name', 'mirrorAs']),
  nested: { mirrorAs: { names: propNames<MirrorAs>()(['name', 'namespace']) } },
};

export const GITOPS_DELIVERY_PROPS: PropsShape = {
  names: propNames<GitOpsDeliveryProps>()(['repoUrl', 'revision', 'path', 'argoCd', 'flux']),
  nested: {
    argoCd: { names: propNames<ArgoCdDeliveryProps>()(['namespace', 'project', 'configMapChangeApplied', 'clusterNames']) },
    flux: { names: propNames<FluxDeliveryProps>()(['namespace', 'sourceName', 'interval']) },
  },
};

export const STALENESS_LIMIT_PROPS: PropsShape = { names: propNames<StalenessLimitProps>()(['maxStale']) };

function isPlainObject(x: unknown): x is Record<string, unknown> {
  if (x === null || typeof x !== 'object' || Array.isArray(x)) return false;
  const proto = Object.getPrototypeOf(x) as unknown;
  return proto === Object.prototype || proto === null;
}

/**
 * Each property of `props` (and of its nested objects) that `shape` does not know, in plain words
 * with the closest known name: `unknown property "taget"; did you mean "target"?`; and each list of
 * strings given as something else (`include: 'shop'` would otherwise be read as s, h, o, p).
 * @param at the property path so far (`gateway.`)
 */
export function unknownPropProblems(props: unknown, shape: PropsShape, at = ''): string[] {
  if (!isPlainObject(props)) return [];
  const problems: string[] = [];
  for (const key of Object.keys(props)) {
    if (!shape.names.includes(key)) {
      const suggestion = didYouMean(key, shape.names);
      problems.push(`unknown property "${at}${key}"${suggestion ? `; did you mean "${at}${suggestion}"?` : ` (known: ${shape.names.join(', ')})`}`);
      continue;
    }
    const value = props[key];
    if (shape.stringLists?.includes(key) && value !== undefined && !(Array.isArray(value) && value.every((v) => typeof v === 'string'))) {
      problems.push(`property "${at}${key}" must be a list of strings, e.g. ${JSON.stringify([typeof value === 'string' ? value : 'x'])}; got ${Array.isArray(value) ? 'a list with a non-string entry' : JSON.stringify(value)}`);
    }
    const nested = shape.nested?.[key];
    if (nested === undefined) continue;
    if (Array.isArray(nested)) {
      if (Array.isArray(value)) value.forEach((item, i) => appendAll(problems, unknownPropProblems(item, nested[0], `${at}${key}[${i}].`)));
    } else {
      appendAll(problems, unknownPropProblems(value, nested as PropsShape, `${at}${key}.`));
    }
  }
  return problems;
}
