/**
 * `mirrorc explain`: why one target service is, or is not, mirrored into each source that links to
 * its cluster. Pure: the fleet, the lock and the committed output in, an {@link Explanation} out.
 * It asks compile itself (the same planFleet that synth runs, so the answer cannot drift from what
 * synth writes) and the same predicates selection uses, and names the first check that stops the
 * service for each link.
 */
import { planFleet, type FleetPlan } from '../compile/compile-fleet.js';
import { CompileError, Diagnostics } from '../compile/diagnostics.js';
import { namespaceSelected } from '../compile/namespace-filter.js';
import { selectMirrors, type ModedRequest } from '../compile/select-mirrors.js';
import { isSystemNamespace } from '../compile/system-namespaces.js';
import { checkTrustAnchors } from '../compile/trust-anchors/check-trust-anchors.js';
import type { MirrorUnit } from '../compile/mirror-unit.js';
import type { HeadlessUnit } from '../compile/modes/headless/plan-headless.js';
import { federatedServiceName } from '../compile/names.js';
import { recordLookups } from '../state/unit-records.js';
import type { UnitRecords } from '../state/lock-document.js';
import type { FileTree } from '../emit/render-files.js';
import type { FleetSpec, LinkSpec } from '../model/fleet-spec.js';
import { linkExportQuery, linkSelectorQueries, selectorMatches, selectorToQuery, type LabelSelector } from '../model/label-selector.js';
import type { FleetSnapshot, ObservedService } from '../snapshot/snapshot.js';
import { ExplainReason } from './explain-reason.js';
import { selectorMismatches } from './selector-mismatches.js';
import { unitFiles } from './unit-files.js';

/** A target service, `cluster/namespace/name`. */
export interface ServiceRef {
  readonly cluster: string;
  readonly namespace: string;
  readonly name: string;
}

/** One reason, as a code and one line of plain words. */
export interface ReasonLine {
  readonly reason: ExplainReason;
  readonly message: string;
}

/** How one of a link's selectors fares against the service's labels. */
export interface SelectorCheck {
  /** `selector`, `remoteDiscoverySelector` or `federatedServiceSelector`. */
  readonly field: 'selector' | 'remoteDiscoverySelector' | 'federatedServiceSelector';
  /** The selector in query form (`mirror.linkerd.io/exported=true`). */
  readonly query: string;
  readonly matches: boolean;
  /** Each label or expression that does not match, in plain words; empty when it matches. */
  readonly failing: readonly string[];
}

/** What one link does with the service. */
export interface LinkExplanation {
  /** The link's construct path (`fleet/west-from-east`). */
  readonly link: string;
  readonly source: string;
  readonly target: string;
  readonly mirrored: boolean;
  /** The mode it is (or would be) mirrored in: gateway, remote-discovery, headless, mcs, federated. */
  readonly mode?: string;
  /** How it was selected: `selector`, `remoteDiscoverySelector`, `explicit export`, `ServiceExport`. */
  readonly selectedBy?: string;
  readonly selectors: readonly SelectorCheck[];
  /** The reasons, most important first: what stops it, or `mirrored` and the facts about its mirror. */
  readonly reasons: readonly ReasonLine[];
  /** The mirror's Services in the source, `namespace/name`. */
  readonly mirrorServices: readonly string[];
  /** Its files in the output, relative to the output folder (`west/from-east/shop/service-web-east.yaml`). */
  readonly files: readonly string[];
}

/** The answer of `mirrorc explain`. */
export interface Explanation {
  /** The target service explained. */
  readonly service: ServiceRef;
  /** What was asked, when it was a mirror's name in a source (`west/shop/web-east`). */
  readonly askedMirror?: string;
  /** When {@link askedMirror} is a federated Service (`<svc>-federated`): its members, `cluster/namespace/name`; {@link service} is the first remote one. */
  readonly federatedMembers?: readonly string[];
  /** The service as the lock records it; undefined when the lock does not list it. */
  readonly observed?: {
    readonly labels: Readonly<Record<string, string>>;
    readonly type: string;
    readonly headless: boolean;
    readonly explicit: boolean;
    readonly serviceExport: boolean;
    /** False when the target reported no ready endpoint. */
    readonly ready: boolean;
  };
  /** Facts of the service's cluster as a target (never observed, stale since …). */
  readonly target: readonly ReasonLine[];
  /** One entry per link whose target is the service's cluster, by source. */
  readonly links: readonly LinkExplanation[];
  /** Compile's error, when the fleet does not compile (nothing is written then). */
  readonly compileError?: string;
}

/** Inputs of {@link explainService}. */
export interface ExplainInput {
  readonly spec: FleetSpec;
  /** The lock. */
  readonly snapshot: FleetSnapshot;
  /** The output as committed (`<cluster>/<file>` → text): settles name clashes as synth does. */
  readonly before: FileTree;
  /** The output synth would write now, to find the mirror's files in. */
  readonly after: FileTree;
}

/** The plan synth would make: compiled the way synth compiles (non-strict, with the name owners of the lock's unit records). */
export function explainPlan(spec: FleetSpec, snapshot: FleetSnapshot, records: UnitRecords): FleetPlan | CompileError {
  try {
    return planFleet(spec, snapshot, recordLookups(records));
  } catch (e) {
    if (e instanceof CompileError) return e;
    throw e;
  }
}

/**
 * Why `ref` is (not) mirrored, link by link.
 * @param failedTrust the links the trust-anchor check leaves out (computed once by a caller that explains many services) @default computed
 */
export function explainService(input: ExplainInput, ref: ServiceRef, plan: FleetPlan | CompileError, failedTrust: ReadonlySet<string> = trustFailures(input.spec, input.snapshot)): Explanation {
  const { spec, snapshot } = input;
  const targetSnapshot = snapshot.targets[ref.cluster];
  const service = targetSnapshot?.services.find((s) => s.namespace === ref.namespace && s.name === ref.name);
  const targetFacts: ReasonLine[] = [];
  const staleSince = snapshot.staleSince?.targets?.[ref.cluster];
  if (staleSince !== undefined) {
    targetFacts.push({ reason: ExplainReason.TARGET_STALE, message: `"${ref.cluster}" could not be observed since ${staleSince}: it is compiled from its last observation in the lock (stale but safe)` });
  }
  const links = spec.links.filter((l) => l.target === ref.cluster);
  if (links.length === 0) {
    targetFacts.push({ reason: ExplainReason.NO_LINK, message: `no link has "${ref.cluster}" as its target, so none of its services is mirrored; add a Link with target ${ref.cluster}` });
  }
  return {
    service: ref,
    ...(service
      ? {
          observed: {
            labels: service.labels,
            type: service.type,
            headless: service.headless,
            explicit: service.explicit === true,
            serviceExport: service.serviceExport === true,
            ready: service.hasReadyEndpoints !== false,
          },
        }
      : {}),
    target: targetFacts,
    links: links.map((link) => explainLink(input, ref, link, service, plan, failedTrust)),
    ...(plan instanceof CompileError ? { compileError: plan.message } : {}),
  };
}

/** Paths of the links that the trust-anchor check leaves out. */
export function trustFailures(spec: FleetSpec, snapshot: FleetSnapshot): Set<string> {
  return new Set(checkTrustAnchors(spec, snapshot, { strict: false }, new Diagnostics()).failedLinks);
}

const SELECTOR_FIELDS = ['selector', 'remoteDiscoverySelector', 'federatedServiceSelector'] as const;

function explainLink(input: ExplainInput, ref: ServiceRef, link: LinkSpec, service: ObservedService | undefined, plan: FleetPlan | CompileError, failedTrust: ReadonlySet<string>): LinkExplanation {
  const { spec, snapshot } = input;
  const origin = `${ref.cluster}/${ref.namespace}/${ref.name}`;
  const base = { link: link.path, source: link.source, target: link.target };
  // A selector the link turns off (null) is not listed: it selects nothing.
  const selectors: SelectorCheck[] = SELECTOR_FIELDS.flatMap((field) => {
    const selector = link[field];
    return selector === null ? [] : [selectorCheck(field, selector, service?.labels ?? {})];
  });
  const stop = (reason: ExplainReason, message: string, extra: Partial<LinkExplanation> = {}): LinkExplanation => ({
    ...base, mirrored: false, selectors, reasons: [{ reason, message }], mirrorServices: [], files: [], ...extra,
  });
  const targetSnapshot = snapshot.targets[link.target];
  if (!targetSnapshot) {
    return stop(ExplainReason.TARGET_NOT_OBSERVED, `"${link.target}" has never been observed successfully, so nothing of it is in the lock; run synth with access to it`);
  }
  if (failedTrust.has(link.path)) {
    return stop(ExplainReason.TRUST_ANCHORS_DIFFER, `"${link.source}" and "${link.target}" share no Linkerd trust root, so link ${link.path} is left out entirely (see the trust-anchor warning of synth)`);
  }
  if (!service) {
    const missing = linkSelectorQueries(link).filter((q) => !targetSnapshot.selectors.includes(q));
    if (missing.length > 0) {
      return stop(ExplainReason.SELECTOR_NOT_OBSERVED, `the lock holds no observation of "${link.target}" with ${missing.map((q) => `"${q}"`).join(', ')} (the link changed since the last live run); run synth with cluster access`);
    }
    if (targetSnapshot.missingExplicitExports.includes(`${ref.namespace}/${ref.name}`)) {
      return stop(ExplainReason.EXPLICIT_EXPORT_MISSING, `an ExplicitExport names ${origin}, but "${link.target}" has no such Service`);
    }
    return stop(ExplainReason.NOT_EXPORTED, notExportedMessage(link, ref));
  }
  if (!namespaceSelected(link.namespaces, ref.namespace)) {
    return stop(ExplainReason.NAMESPACE_FILTERED, `link ${link.path} leaves namespace "${ref.namespace}" out (namespaces: include ${JSON.stringify(link.namespaces.include)}, exclude ${JSON.stringify(link.namespaces.exclude)})`);
  }
  const request = selectedRequest(link, spec, snapshot, service);
  const federated = selectorMatches(link.federatedServiceSelector, service.labels);
  if (!request && !federated) {
    // The export selector's failing labels say what to add; every selector's verdict is in `selectors`.
    const failing = selectors.find((s) => s.field === 'selector')!.failing;
    return stop(ExplainReason.SELECTOR_NOT_MATCHED, `link ${link.path}'s selector "${linkExportQuery(link)}" does not match ${origin} (${failing.join('; ')}), nor does its remoteDiscoverySelector or federatedServiceSelector, and it is not explicitly exported`);
  }
  const found = plan instanceof CompileError ? [] : unitsOf(plan, link.source, origin, request ? undefined : { namespace: ref.namespace, name: federatedServiceName(ref.name), member: `${ref.name}@${ref.cluster}` });
  const mode = request ? (link.mcs && request.mode === 'gateway' ? 'mcs' : request.mode) : 'federated';
  const selectedBy = request ? selectedByOf(link, service, request) : 'federatedServiceSelector';
  const moded = { mode, selectedBy };
  if (request) {
    const ns = request.placement?.namespace ?? service.namespace;
    const system = link.mirrorSystemNamespaces ? undefined : systemNamespaceProblem(spec, link, service.namespace, ns);
    if (system) return stop(ExplainReason.SYSTEM_NAMESPACE, `${system}; set mirrorSystemNamespaces: true on link ${link.path} to mirror system namespaces`, moded);
    const sourceSnapshot = snapshot.sources[link.source];
    if (sourceSnapshot && !sourceSnapshot.namespaces.includes(ns) && !link.createMissingNamespaces) {
      return stop(ExplainReason.SOURCE_NAMESPACE_MISSING, `namespace "${ns}" does not exist in "${link.source}"; create it, or set createMissingNamespaces on link ${link.path}`, moded);
    }
    if (request.mode !== 'remote-discovery' && !targetSnapshot.gateway) {
      return stop(ExplainReason.NO_GATEWAY, `no gateway address is known for "${link.target}", so its gateway-mode mirrors are not compiled; check its gateway Service (or set gateway.addresses)`, moded);
    }
  }
  if (plan instanceof CompileError) {
    return stop(ExplainReason.SKIPPED, `the fleet does not compile, so nothing is written: ${plan.problems[0] ?? plan.message}`, moded);
  }
  if (found.length === 0) {
    const warning = plan.warnings.find((w) => w.startsWith(`${link.source}: `) && w.includes(origin));
    if (!warning) return stop(ExplainReason.SKIPPED, `compile wrote no mirror of ${origin} into "${link.source}"`, moded);
    return stop(skipReasonOf(warning), warning, moded);
  }
  const reasons: ReasonLine[] = [{ reason: request ? ExplainReason.MIRRORED : ExplainReason.FEDERATED_MEMBER, message: mirroredMessage(link, mode, selectedBy, found) }];
  if (federated && request) {
    const federatedUnits = unitsOf(plan, link.source, origin, { namespace: ref.namespace, name: federatedServiceName(ref.name), member: `${ref.name}@${ref.cluster}` }, true);
    if (federatedUnits.length > 0) reasons.push({ reason: ExplainReason.FEDERATED_MEMBER, message: `also a member of ${federatedUnits.map((u) => `${u.namespace}/${u.serviceNames[0]}`).join(', ')} (federatedServiceSelector)` });
  }
  const adoptedRow = plan.planRows.find((r) => r.startsWith(`adopted from Linkerd's service-mirror controller: ${link.source}:`));
  const adopted = found.flatMap((u) => u.serviceNames.map((n) => `${u.namespace}/${n}`)).filter((k) => adoptedRow !== undefined && new RegExp(`[(, ]${escapeRegExp(k)}[,)]`).test(adoptedRow));
  if (adopted.length > 0) reasons.push({ reason: ExplainReason.ADOPTED_FROM_LINKERD, message: `taken over in place from Linkerd's service-mirror controller: ${adopted.join(', ')} (adoptLinkerdMirrors)` });
  for (const r of readiness(link, service, spec, targetSnapshot.gatewayProbe?.alive === false, mode)) reasons.push(r);
  const leftOut = podsLeftOut(service, found);
  if (leftOut.length > 0) reasons.push({ reason: ExplainReason.PODS_NOT_READY, message: `pods not ready, left out of the per-pod mirrors (followPodReadiness): ${leftOut.join(', ')}` });
  const mirrorServices = found.flatMap((u) => u.serviceNames.map((n) => `${u.namespace}/${n}`));
  const names = found.flatMap((u) => u.serviceNames.length > 0 ? u.serviceNames.map((n) => ({ namespace: u.namespace, name: n })) : [{ namespace: u.namespace, name: ref.name, mcsCluster: ref.cluster }]);
  return { ...base, mirrored: true, ...moded, selectors, reasons, mirrorServices, files: unitFiles(input.after, link.source, names) };
}

function selectorCheck(field: SelectorCheck['field'], selector: LabelSelector, labels: Readonly<Record<string, string>>): SelectorCheck {
  const failing = selectorMismatches(selector, labels);
  return { field, query: selectorToQuery(selector), matches: failing.length === 0, failing };
}

/** Selection's own answer for this link and service (its mode and placement), or undefined. */
function selectedRequest(link: LinkSpec, spec: FleetSpec, snapshot: FleetSnapshot, service: ObservedService): ModedRequest | undefined {
  const only = { ...snapshot, targets: { [link.target]: { ...snapshot.targets[link.target]!, services: [service] } } };
  return selectMirrors(link, { fleet: spec, snapshot: only }, new Diagnostics())[0];
}

function selectedByOf(link: LinkSpec, service: ObservedService, request: ModedRequest): string {
  if (request.mode === 'remote-discovery') return 'remoteDiscoverySelector';
  if (selectorMatches(link.selector, service.labels)) return 'selector';
  if (service.explicit) return 'explicit export';
  return 'ServiceExport';
}

function notExportedMessage(link: LinkSpec, ref: ServiceRef): string {
  return (
    `the lock lists no Service ${ref.namespace}/${ref.name} in "${ref.cluster}": when it was last observed, none of link ${link.path}'s selectors ` +
    `(${linkSelectorQueries(link).map((q) => `"${q}"`).join(', ')}) matched it, or it did not exist. If it exists, it lacks the export label: ` +
    `add ${linkExportQuery(link)} to it (or an ExplicitExport), then run synth`
  );
}

/** Why the service's namespace, or its mirror's `ns`, is a system namespace, or undefined. */
function systemNamespaceProblem(spec: FleetSpec, link: LinkSpec, namespace: string, ns: string): string | undefined {
  const target = spec.clusters.find((c) => c.name === link.target);
  const source = spec.clusters.find((c) => c.name === link.source);
  if (target && isSystemNamespace(target, namespace)) return `"${namespace}" is a system namespace of "${link.target}"`;
  if (source && isSystemNamespace(source, ns)) return `its mirror would go to "${ns}", a system namespace of "${link.source}"`;
  return undefined;
}

/**
 * The units of `source` that mirror `origin`; with `federated`, the federated Service that has
 * the service as a member (`svc@cluster` in its origin) instead, or as well (`federatedOnly`).
 */
function unitsOf(plan: FleetPlan, source: string, origin: string, federated?: { namespace: string; name: string; member: string }, federatedOnly = false): MirrorUnit[] {
  const units = plan.plans.find((p) => p.source === source)?.units ?? [];
  const [target, namespace, name] = origin.split('/') as [string, string, string];
  const own = federatedOnly ? [] : units.filter((u) => u.origin === origin || (u.mode === 'mcs' && u.origin === `ServiceImport ${namespace}/${name}` && u.target === undefined && mcsHasCluster(plan, source, namespace, name, target)));
  const fed = federated ? units.filter((u) => u.namespace === federated.namespace && u.serviceNames[0] === federated.name && new RegExp(`[ ,]${escapeRegExp(federated.member)}[,)]`).test(u.origin)) : [];
  return [...own, ...fed];
}

/** Whether the plan row of ServiceImport `namespace/name` of `source` lists `cluster` among its exporting clusters. */
function mcsHasCluster(plan: FleetPlan, source: string, namespace: string, name: string, cluster: string): boolean {
  const row = plan.planRows.find((r) => r.startsWith(`mcs: ${source} ← ServiceImport ${namespace}/${name} (`));
  const from = row ? /\) from ([^;]+)/.exec(row)?.[1] : undefined;
  return from !== undefined && from.split(', ').includes(cluster);
}

function mirroredMessage(link: LinkSpec, mode: string, selectedBy: string, units: readonly MirrorUnit[]): string {
  const names = units.flatMap((u) => (u.serviceNames.length > 0 ? [`${u.namespace}/${u.serviceNames[0]}${u.serviceNames.length > 1 ? ` (+${u.serviceNames.length - 1} per-pod)` : ''}`] : [u.origin]));
  return `mirrored into "${link.source}" in ${mode} mode as ${names.join(', ')} (matched by ${selectedBy} of link ${link.path})`;
}

/** The compile warning's kind of skip. */
function skipReasonOf(warning: string): ExplainReason {
  if (/was not written by mirrorc|Linkerd's controller mirrored/.test(warning)) return ExplainReason.NAME_TAKEN;
  if (/characters\), but Kubernetes allows at most/.test(warning)) return ExplainReason.NAME_TOO_LONG;
  if (/would be named /.test(warning)) return ExplainReason.NAME_INVALID;
  if (/would (all|both) be mirrored as Service/.test(warning)) return ExplainReason.NAME_CLASH;

  if (/ClusterIP|pinned/i.test(warning)) return ExplainReason.PINNED_IP_UNAVAILABLE;
  if (/a system namespace of "[^"]+", so .* is not mirrored; /.test(warning)) return ExplainReason.SYSTEM_NAMESPACE;
  return ExplainReason.SKIPPED;
}

/** Readiness facts of a mirrored service. */
function readiness(link: LinkSpec, service: ObservedService, spec: FleetSpec, gatewayDead: boolean, mode: string): ReasonLine[] {
  const out: ReasonLine[] = [];
  const gatewayModes = ['gateway', 'mcs', 'headless'];
  if (service.hasReadyEndpoints === false) {
    out.push(
      link.followServiceReadiness !== false && (mode === 'gateway' || mode === 'mcs')
        ? { reason: ExplainReason.NOT_READY, message: `the target service has no ready endpoint, so its mirror's endpoints are empty (clients fail fast) until it has one again` }
        : { reason: ExplainReason.NOT_READY, message: `the target service has no ready endpoint${link.followServiceReadiness === false ? ', but link ' + link.path + ' sets followServiceReadiness: false, so its mirror keeps the gateway address' : ''}` },
    );
  }
  const target = spec.clusters.find((c) => c.name === link.target);
  if (gatewayDead && target?.gateway.probe?.mode === 'not-ready' && gatewayModes.includes(mode)) {
    out.push({ reason: ExplainReason.GATEWAY_PROBE_FAILED, message: `the gateway of "${link.target}" failed its probe (probe mode not-ready), so its gateway-mode mirrors are written not ready` });
  }
  return out;
}

/**
 * The pods of `service` that the plan's per-pod mirrors leave out (compile's decision, read from its
 * headless unit: the pods not ready, when the link follows pod readiness), in the service's order.
 */
function podsLeftOut(service: ObservedService, units: readonly MirrorUnit[]): string[] {
  const headless = units.find((u): u is HeadlessUnit => u.mode === 'headless' && 'podSet' in u);
  if (!headless) return [];
  const planned = new Set(headless.podSet.pods.map((p) => p.hostname));
  return (service.hostnames ?? []).filter((h) => !planned.has(h));
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
