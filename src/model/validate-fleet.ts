/** Checks of the fleet definition itself. Runs before any network call; every message names its construct. */
import { forbiddenFamilyOfEntry, type MetadataKind } from '../contract/metadata-policy.js';
import { GLOBAL_SERVICE_SUFFIX } from '../contract/mirrorc.js';
import { ipRangeProblem } from '../util/ip-range.js';
import { urlPathProblem } from '../util/url-path.js';
import { dns1123SubdomainProblem } from '../util/k8s-names.js';
import { FEDERATED_NAME_SUFFIX } from '../contract/linkerd.js';
import { Cluster } from './cluster.js';
import type { ExplicitExport } from './explicit-export.js';
import { labelKeyProblem, labelSelectorProblems } from './label-selector.js';
import { observationBudgetProblems } from './observation-budget.js';
import { additionalPinnedRangesProblems } from './pinned-ranges.js';
import type { LinkSpec } from './fleet-spec.js';
import type { Link } from './link.js';
import { appendAll } from '../util/append-all.js';
import { typeCheckCommand } from '../diagnostics/type-check-command.js';

const DNS_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
const DNS_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
const NAMESPACE_PATTERN = /^[a-z0-9*]([-a-z0-9*]*[a-z0-9*])?$/;

/** Why `name` is not a DNS label (RFC 1123, at most 63 characters), or undefined. */
export function dnsLabelProblem(name: string): string | undefined {
  if (typeof name !== 'string') return `is not a string (got ${typeof name} ${String(name)})`;
  if (name.length === 0) return 'is empty';
  if (name.length > 63) return `"${name}" is ${name.length} characters long; at most 63 are allowed`;
  if (!DNS_LABEL.test(name)) return `"${name}" is not a DNS label (lower-case letters, digits and '-', starting and ending with a letter or digit)`;
  return undefined;
}

function describe(construct: Cluster | Link | ExplicitExport, kind: string): string {
  return `${kind} ${construct.node.path}`;
}

/** The construct's spec, or undefined with a problem recorded when its props have the wrong types (the fleet file runs without type checks). */
function specOrProblem<T>(construct: { toSpec(): T }, where: string, problems: string[]): T | undefined {
  try {
    return construct.toSpec();
  } catch (e) {
    problems.push(`${where}: its properties have the wrong types (${e instanceof Error ? e.message : String(e)}); ${typeCheckCommand()} shows where`);
    return undefined;
  }
}

/** Problems of a link's allowedLabels / allowedAnnotations: bad syntax, or an entry naming keys the metadata policy never copies. */
function allowListProblems(where: string, spec: LinkSpec): string[] {
  const problems: string[] = [];
  const lists: [string, MetadataKind, readonly string[] | undefined][] = [
    ['allowedLabels', 'label', spec.allowedLabels],
    ['allowedAnnotations', 'annotation', spec.allowedAnnotations],
  ];
  for (const [field, kind, entries] of lists) {
    for (const entry of entries ?? []) {
      if (typeof entry !== 'string' || labelKeyProblem(entry.endsWith('/*') ? `${entry.slice(0, -2)}/x` : entry)) {
        problems.push(`${where}: ${field} entry ${JSON.stringify(entry)} is not a key or a "prefix/*" pattern`);
        continue;
      }
      const family = forbiddenFamilyOfEntry(entry, kind);
      if (family) {
        problems.push(
          `${where}: ${field} entry "${entry}" names ${kind}s that are never copied to mirrors (${family.patterns.join(', ')}: ${family.reason}); remove the entry`,
        );
      }
    }
  }
  return problems;
}

/** Every problem of the fleet definition, in plain words; empty when it is valid. */
export function fleetProblems(clusters: readonly Cluster[], links: readonly Link[], exports: readonly ExplicitExport[]): string[] {
  const problems: string[] = [];
  const byName = new Map<string, Cluster>();

  for (const cluster of clusters) {
    const where = describe(cluster, 'cluster');
    const spec = specOrProblem(cluster, where, problems);
    if (!spec) continue;
    const nameProblem = dnsLabelProblem(spec.name);
    if (nameProblem) problems.push(`${where}: the cluster name ${nameProblem}; it becomes the mirror-name suffix and the dist/ folder name`);
    if (spec.name === FEDERATED_NAME_SUFFIX) {
      problems.push(`${where}: the cluster name "${FEDERATED_NAME_SUFFIX}" is reserved: its mirrors "<svc>-${FEDERATED_NAME_SUFFIX}" would take the names of federated Services; rename the cluster (set its name prop)`);
    }
    for (const p of labelSelectorProblems(spec.localFederatedSelector)) problems.push(`${where}: localFederatedSelector: ${p}`);
    const other = byName.get(spec.name);
    if (other) problems.push(`${where}: the cluster name "${spec.name}" is already used by ${other.node.path}; cluster names must be unique`);
    else byName.set(spec.name, cluster);
    if (!DNS_SUBDOMAIN.test(spec.clusterDomain)) problems.push(`${where}: clusterDomain "${spec.clusterDomain}" is not a DNS domain`);
    if (!DNS_SUBDOMAIN.test(spec.trustDomain)) problems.push(`${where}: trustDomain "${spec.trustDomain}" is not a DNS domain`);
    if (spec.access.context.length === 0) problems.push(`${where}: access.context is empty`);
    const gw = spec.gateway;
    if (dnsLabelProblem(gw.namespace)) problems.push(`${where}: gateway.namespace ${dnsLabelProblem(gw.namespace)}`);
    if (dnsLabelProblem(gw.name)) problems.push(`${where}: gateway.name ${dnsLabelProblem(gw.name)}`);
    if (gw.port !== undefined && !(Number.isInteger(gw.port) && gw.port >= 1 && gw.port <= 65535)) {
      problems.push(`${where}: gateway.port ${gw.port} is not a port number (1-65535)`);
    }
    if (gw.kind !== undefined && gw.kind !== 'linkerd' && gw.kind !== 'generic') problems.push(`${where}: gateway.kind ${JSON.stringify(gw.kind)} is not 'linkerd' or 'generic'`);
    if (gw.servicePorts !== undefined) {
      if (gw.kind !== 'generic') problems.push(`${where}: gateway.servicePorts is set, but only a generic gateway (gateway.kind: 'generic') has a port per service`);
      for (const [key, port] of Object.entries(gw.servicePorts)) {
        const [ns, name, ...rest] = key.split('/');
        if (rest.length > 0 || dnsLabelProblem(ns ?? '') || dnsLabelProblem(name ?? '')) problems.push(`${where}: gateway.servicePorts key ${JSON.stringify(key)} is not "namespace/name" of a Service`);
        if (!(Number.isInteger(port) && port >= 1 && port <= 65535)) problems.push(`${where}: gateway.servicePorts["${key}"] ${port} is not a port number (1-65535)`);
      }
    }
    if (gw.kind === 'generic' && gw.identity !== undefined) problems.push(`${where}: gateway.identity is set, but a generic gateway has no Linkerd identity; remove it, or use kind 'linkerd'`);
    if (gw.addresses !== undefined) {
      if (gw.addresses.length === 0) problems.push(`${where}: gateway.addresses is empty; leave it out to read the gateway Service instead`);
      for (const a of gw.addresses) if (typeof a !== 'string' || a.trim() === '') problems.push(`${where}: gateway.addresses has an empty entry`);
    }
    if (gw.identity !== undefined && gw.identity.trim() === '') problems.push(`${where}: gateway.identity is empty; leave it out to read the gateway Service instead`);
    else if (gw.identity !== undefined && dns1123SubdomainProblem(gw.identity, 'gateway identity')) problems.push(`${where}: gateway.identity ${dns1123SubdomainProblem(gw.identity, 'gateway identity')}`);
    if (gw.probe !== undefined) {
      if (gw.probe.mode !== 'warn' && gw.probe.mode !== 'not-ready') problems.push(`${where}: gateway.probe.mode ${JSON.stringify(gw.probe.mode)} is not "warn" or "not-ready"`);
      if (gw.probe.address !== undefined && probeAddressProblem(gw.probe.address)) problems.push(`${where}: gateway.probe.address ${probeAddressProblem(gw.probe.address)}`);
      if (urlPathProblem(gw.probe.path)) problems.push(`${where}: gateway.probe.path ${urlPathProblem(gw.probe.path)}`);
      const allowed = gw.probe.allowedCidrs;
      if (allowed !== undefined && !Array.isArray(allowed)) problems.push(`${where}: gateway.probe.allowedCidrs is not a list of CIDR blocks (e.g. ['10.20.0.0/16'])`);
      else for (const cidr of allowed ?? []) {
        const p = ipRangeProblem(cidr);
        if (p) problems.push(`${where}: gateway.probe.allowedCidrs entry ${p}; give the ranges of your gateways' addresses, e.g. ['10.20.0.0/16']`);
      }
    }
    if (spec.pinnedServiceIPRange !== undefined) {
      const rangeProblem = ipRangeProblem(spec.pinnedServiceIPRange);
      if (rangeProblem) problems.push(`${where}: pinnedServiceIPRange ${rangeProblem}; give a block of the cluster's Service CIDR, e.g. 10.96.0.0/24`);
    }
    for (const p of additionalPinnedRangesProblems(spec)) problems.push(`${where}: ${p}`);
    for (const [field, cidrs, example] of [['serviceCidrs', spec.serviceCidrs, '10.96.0.0/12'], ['podCidrs', spec.podCidrs, '10.244.0.0/16']] as const) {
      if (cidrs === undefined) continue;
      if (!Array.isArray(cidrs)) problems.push(`${where}: ${field} is not a list of CIDR blocks (e.g. ['${example}'])`);
      else for (const cidr of cidrs) {
        const p = ipRangeProblem(cidr);
        if (p) problems.push(`${where}: ${field} entry ${p}; give the cluster's CIDR blocks, e.g. ['${example}']`);
      }
    }
    if (dnsLabelProblem(spec.controlPlaneNamespace)) problems.push(`${where}: controlPlaneNamespace ${dnsLabelProblem(spec.controlPlaneNamespace)}`);
    const days = spec.trustRootExpiryWarningDays;
    if (!(typeof days === 'number' && Number.isInteger(days) && days >= 0)) problems.push(`${where}: trustRootExpiryWarningDays ${JSON.stringify(days)} is not a whole number of days (0 or more)`);
    for (const p of observationBudgetProblems(spec.observationBudget)) problems.push(`${where}: ${p}`);
    if (spec.name === GLOBAL_SERVICE_SUFFIX) {
      problems.push(`${where}: a cluster cannot be named "${GLOBAL_SERVICE_SUFFIX}": its mirrors "<svc>-${GLOBAL_SERVICE_SUFFIX}" would clash with the aggregated "<svc>-${GLOBAL_SERVICE_SUFFIX}" Services; rename the cluster`);
    }
  }

  const knownCluster = (c: unknown): c is Cluster => Cluster.isCluster(c) && byName.get(c.name) === c;
  const seenLinks = new Map<string, Link>();
  for (const link of links) {
    const where = describe(link, 'link');
    const { source, target } = link;
    for (const [end, cluster] of [['source', source as unknown], ['target', target as unknown]] as const) {
      if (knownCluster(cluster)) continue;
      if (cluster === undefined) {
        problems.push(`${where}: it has no ${end} (the property ${end} is missing); pass ${end}: a Cluster created with new Cluster(fleet, ...)`);
        continue;
      }
      const what = Cluster.isCluster(cluster) ? `cluster "${cluster.name}" (${cluster.node.path}) is` : 'is not a Cluster, so it is';
      problems.push(`${where}: its ${end} ${what} not defined in this fleet; create it with new Cluster(fleet, ...) and pass that object`);
    }
    if (!knownCluster(source) || !knownCluster(target)) continue;
    if (source === target) {
      problems.push(`${where}: a cluster cannot link to itself ("${source.name}"); its own services need no mirror`);
      continue;
    }
    const spec = specOrProblem(link, where, problems);
    if (!spec) continue;
    const key = `${spec.source}<-${spec.target}`;
    const dup = seenLinks.get(key);
    if (dup) problems.push(`${where}: "${spec.source}" already links to "${spec.target}" in ${dup.node.path}; keep one link per source and target`);
    else seenLinks.set(key, link);
    for (const field of ['selector', 'remoteDiscoverySelector', 'federatedServiceSelector'] as const) {
      const selector = spec[field];
      if (selector !== null) for (const p of labelSelectorProblems(selector)) problems.push(`${where}: ${field}: ${p}`);
    }
    if (spec.selector === null && spec.remoteDiscoverySelector === null && spec.federatedServiceSelector === null) {
      problems.push(`${where}: selector, remoteDiscoverySelector and federatedServiceSelector are all null: the link would mirror nothing; remove it, or keep one selector`);
    }
    const credentials = spec.remoteDiscoveryCredentials;
    if (credentials !== undefined) {
      if (credentials.provided !== 'external') {
        problems.push(`${where}: remoteDiscoveryCredentials.provided must be 'external' (mirrorc never writes credentials); got ${JSON.stringify(credentials.provided)}`);
      }
      const secretProblem = typeof credentials.secretName === 'string' && DNS_SUBDOMAIN.test(credentials.secretName) && credentials.secretName.length <= 253
        ? undefined
        : `"${String(credentials.secretName)}" is not a Secret name (a DNS subdomain)`;
      if (secretProblem) problems.push(`${where}: remoteDiscoveryCredentials.secretName ${secretProblem}`);
    }
    for (const [field, keys] of [['excludedLabels', spec.excludedLabels], ['excludedAnnotations', spec.excludedAnnotations]] as const) {
      for (const k of keys) {
        const bare = k.endsWith('/*') ? `${k.slice(0, -2)}/x` : k;
        const p = labelKeyProblem(bare);
        if (p) problems.push(`${where}: ${field} entry "${k}" is not a key or a "prefix/*" pattern`);
      }
    }
    appendAll(problems, allowListProblems(where, spec));
    if (spec.serviceExports !== undefined && spec.mcs !== true) {
      problems.push(`${where}: serviceExports applies only to a link with mcs: true (ServiceExport objects feed MCS output); set mcs: true or remove serviceExports`);
    }
    if (spec.adoptLinkerdMirrors === true && spec.mcs === true) {
      problems.push(`${where}: adoptLinkerdMirrors takes over Linkerd's mirror Services, but an mcs link writes ServiceImports instead; migrate with a Linkerd-mirror link first (docs/migrate-from-linkerd-controller.md), or remove adoptLinkerdMirrors`);
    }
    for (const [from, to] of Object.entries(spec.namespaceMap ?? {})) {
      for (const [what, ns] of [['key', from], ['value', to]] as const) {
        const p = dnsLabelProblem(ns);
        if (p) problems.push(`${where}: namespaceMap ${what} ${p}`);
      }
    }
    for (const [field, names] of [['namespaces.include', spec.namespaces.include], ['namespaces.exclude', spec.namespaces.exclude]] as const) {
      for (const n of names) {
        if (!NAMESPACE_PATTERN.test(n) || n.length > 63) problems.push(`${where}: ${field} entry "${n}" is not a namespace name or pattern ('*' is the only wildcard)`);
      }
    }
  }

  const targets = new Set(links.filter((l) => knownCluster(l.target)).map((l) => l.target.name));
  const seenExports = new Map<string, ExplicitExport>();
  for (const exp of exports) {
    const where = describe(exp, 'explicit export');
    const spec = specOrProblem(exp, where, problems);
    if (!spec) continue;
    if (!knownCluster(exp.cluster as unknown)) {
      const what = Cluster.isCluster(exp.cluster) ? `cluster "${exp.cluster.name}" (${exp.cluster.node.path})` : 'cluster (not a Cluster)';
      problems.push(`${where}: its ${what} is not defined in this fleet; pass a Cluster created in this fleet`);
      continue;
    }
    const nsProblem = dnsLabelProblem(spec.namespace);
    if (nsProblem) problems.push(`${where}: namespace ${nsProblem}`);
    const nameProblem = dnsLabelProblem(spec.name);
    if (nameProblem) problems.push(`${where}: service name ${nameProblem}`);
    if (!targets.has(spec.cluster)) problems.push(`${where}: no link has "${spec.cluster}" as its target, so ${spec.namespace}/${spec.name} would never be mirrored; add a Link or remove the export`);
    if (spec.mirrorAs?.name !== undefined && dnsLabelProblem(spec.mirrorAs.name)) problems.push(`${where}: mirrorAs.name ${dnsLabelProblem(spec.mirrorAs.name)}`);
    if (spec.mirrorAs?.namespace !== undefined && dnsLabelProblem(spec.mirrorAs.namespace)) problems.push(`${where}: mirrorAs.namespace ${dnsLabelProblem(spec.mirrorAs.namespace)}`);
    const key = `${spec.cluster}/${spec.namespace}/${spec.name}`;
    const dup = seenExports.get(key);
    if (dup) problems.push(`${where}: ${key} is already exported by ${dup.node.path}`);
    else seenExports.set(key, exp);
  }
  return problems;
}

/** Why `address` is not `host:port` (an IPv6 host in brackets), or undefined. */
function probeAddressProblem(address: unknown): string | undefined {
  const match = typeof address === 'string' ? /^(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9.-]+):(\d{1,5})$/.exec(address) : null;
  const port = match ? Number(match[2]) : 0;
  if (match && port >= 1 && port <= 65535) return undefined;
  return `${JSON.stringify(address)} is not host:port, such as 10.0.0.7:4191 or [fd00::7]:4191`;
}
