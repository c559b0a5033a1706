/**
 * Compile: a pure function of (fleet, snapshot, options) → one {@link SourceChart} per source cluster.
 * No clock, no randomness, no network. Every name is checked before anything is rendered; any
 * error throws {@link CompileError} so that nothing is written. A problem of one service's mirror
 * (over-long name, name clash, pinned-IP collision) skips that mirror with a warning, so one team
 * cannot freeze the fleet; `strict` makes it an error again.
 */
import type { Construct } from 'constructs';
import type { ClusterSpec, FleetSpec, LinkSpec } from '../model/fleet-spec.js';
import { pinnedRangesOf } from '../model/pinned-ranges.js';
import { canonicalJson } from '../util/canonical-json.js';
import { unitFamily } from '../delivery/delivery-units.js';
import type { FleetSnapshot, ObservedService, SourceSnapshot } from '../snapshot/snapshot.js';
import { compareBy, compareStrings, sortedRecord, sortedUnique } from '../util/order.js';
import { CompileError, Diagnostics } from './diagnostics.js';
import type { MirrorUnit } from './mirror-unit.js';
import { planGatewayMirror } from './modes/gateway/plan-gateway.js';
import { planGlobalServices } from './modes/global/plan-global.js';
import { planHeadlessMirror, type HeadlessUnit } from './modes/headless/plan-headless.js';
import { allocatePinnedIPs, pinnedKey } from './pinned-ips/allocate-pinned-ips.js';
import { staticBandProblem } from './pinned-ips/static-band.js';
import { credentialsPlanRow, credentialsRequirement, undeclaredCredentialsWarning, type SecretRequirement } from './modes/remote-discovery/credentials-requirement.js';
import { planFederatedServices, type FederatedPlan } from './modes/federated/plan-federated.js';
import { planRemoteDiscoveryMirror } from './modes/remote-discovery/plan-remote-discovery.js';
import { perPodServiceName } from './names.js';
import { PlanMemo } from './plan-memo.js';
import { selectMirrors, type ModedRequest } from './select-mirrors.js';
import { SourceChart } from './source-chart.js';
import { checkTrustAnchors } from './trust-anchors/check-trust-anchors.js';
import { planMcsImports } from './modes/mcs/plan-mcs.js';
import { isSystemNamespace } from './system-namespaces.js';
import type { MirrorRequest } from './mirror-unit.js';
import { appendAll } from '../util/append-all.js';
import { adoptedClusterIPs } from './adopt-linkerd-mirrors.js';
import { isolateNames, type Isolation } from './isolate-names.js';
import type { ForeignService } from '../snapshot/snapshot.js';
import { Diag } from '../diagnostics/diagnostic-codes.js';
import { linkContribution } from './link-contribution.js';
import type { Diagnostic } from '../diagnostics/diagnostic.js';

/** What compile produced. */
export interface CompileResult {
  /** One chart per source cluster, by cluster name order. */
  readonly charts: readonly SourceChart[];
  /** The warning messages (the `message` of each of {@link diagnostics}). */
  readonly warnings: readonly string[];
  /** The warnings as coded data. */
  readonly diagnostics: readonly Diagnostic[];
  /**
   * Secrets that must exist in source clusters but that mirrorc never writes: one per link with
   * flat-mode (remote-discovery) mirrors or federated members, sorted by cluster and target.
   */
  readonly requirements: readonly SecretRequirement[];
  /**
   * The pinned ClusterIPs to remember in the lock: those of the compiled sources, as allocated now,
   * and the previous ones of every other source, untouched. Sorted by source, then `namespace/name`.
   */
  readonly pinnedServiceIPs: Readonly<Record<string, Readonly<Record<string, string>>>>;
  /** Lines `plan` shows besides the file changes (e.g. each link's trust-anchor check). */
  readonly planRows: readonly string[];
}

/** Options of {@link compileFleet}. */
export interface CompileOptions {
  /** Compile only these source clusters. @default all */
  readonly sources?: ReadonlySet<string>;
  /**
   * Sources of {@link sources} that are not planned this run, because their plan is known unchanged
   * (synth's source skip, src/pipeline/source-skip.ts): their links are still checked with every
   * other (trust anchors, expiry warnings) and their pinned IPs are kept, but they get no plan.
   * @default every source is planned
   */
  readonly unplanned?: ReadonlySet<string>;
  /**
   * Sources that may be planned in part: only the unit families of their changed targets and
   * `shared` (synth's family planning, src/pipeline/family-plan.ts). A source whose partial plan
   * cannot be shown equal to its full plan is planned in full. @default every source planned in full
   */
  readonly partial?: ReadonlyMap<string, PartialSourceInput>;
  /**
   * Make a problem of one mirror (over-long name, name clash, pinned-IP collision) a fleet-wide
   * error, as `--strict` does; otherwise that mirror alone is skipped with a warning. @default false
   */
  readonly strict?: boolean;
  /**
   * Who owns each mirror Service in the current output: source → `namespace/name` → origin
   * (`target/namespace/service`). In a clash between two target services, the current owner keeps
   * the name. @default none known
   */
  readonly previousOwners?: Readonly<Record<string, Readonly<Record<string, string>>>> | PreviousOwnerLookup;
  /** The time trust-root expiry is measured from (compile reads no clock). @default no expiry warnings */
  readonly now?: Date;
  /**
   * Whether the current output holds a mirror of origin `target/namespace/service` in any source: when
   * several services claim one generic gateway port, the one already mirrored keeps it. `source` is
   * the source whose planning asks (each source's questions go through a lookup of its own).
   * @default none does
   */
  readonly previousMirrors?: (origin: string, source: string) => boolean;
}

/**
 * What the partial plan of one source starts from: which targets changed, and what the families of
 * the others left in the lock (docs/incremental-planning.md, "Per-family planning").
 */
export interface PartialSourceInput {
  /** The targets whose `from-<target>` family is planned (their observation changed); `shared` is always planned. */
  readonly changedTargets: ReadonlySet<string>;
  /** The warnings of the source's last plan, in order. */
  readonly warnings: readonly Diagnostic[];
  /** How many of {@link warnings} each link's selection and mirrors gave, in link order (the rest came after every link). */
  readonly linkWarnings: readonly number[];
  /** `namespace/name` of every Service the families that are not planned hold (the inventories of their unit records). */
  readonly keptNames: ReadonlySet<string>;
  /**
   * Each linked target → the digest of what its link gave the source-wide steps at the last plan
   * (link-contribution.ts). With {@link namespaces} and {@link sharedNames}, a source whose changed
   * links give the same digests is planned by those links alone. @default none: never by those links alone
   */
  readonly contributions?: Readonly<Record<string, string>>;
  /** The Namespaces the last plan created (its base unit's). @default none */
  readonly namespaces?: readonly string[];
  /** `namespace/name` of every Service the `shared` units hold, when they may be kept (recorded with an input digest, intact). @default none: `shared` is planned */
  readonly sharedNames?: ReadonlySet<string>;
}

/** The origin (`target/namespace/service`) of the mirror Service `namespace/name` of `source` in the current output, or undefined. */
export type PreviousOwnerLookup = (source: string, key: string) => string | undefined;

/**
 * Compiles the mirrors of every source cluster into charts under `scope`.
 * @throws CompileError listing every error; nothing is rendered then
 */
export function compileFleet(scope: Construct, fleet: FleetSpec, snapshot: FleetSnapshot, options: CompileOptions = {}): CompileResult {
  const { plans, ...planned } = planFleet(fleet, snapshot, options);
  return { charts: plans.map((plan) => sourceChart(scope, plan)), ...planned };
}

/** What {@link planFleet} decided: everything of a {@link CompileResult} but the charts, which {@link sourceChart} makes one at a time. */
export interface FleetPlan extends Omit<CompileResult, 'charts'> {
  /** One plan per source cluster, by cluster name order. */
  readonly plans: readonly SourcePlan[];
}

/**
 * Compile without creating the constructs: every check, warning, error and pinned IP of
 * {@link compileFleet}. A large fleet's synth then creates (and drops) one source's chart at a time,
 * so its memory is bounded by the largest source, not by the fleet.
 * @throws CompileError listing every error
 */
export function planFleet(fleet: FleetSpec, snapshot: FleetSnapshot, options: CompileOptions = {}): FleetPlan {
  const diagnostics = new Diagnostics(options.strict ?? false);
  const sources = sortedUnique(fleet.links.map((l) => l.source)).filter((s) => !options.sources || options.sources.has(s));
  // A link whose clusters share no trust root is left out (or is an error, with strict); the others compile.
  const compiledLinks = { ...fleet, links: fleet.links.filter((l) => sources.includes(l.source)) };
  const trust = checkTrustAnchors(compiledLinks, snapshot, { strict: options.strict ?? false, ...(options.now ? { now: options.now } : {}) }, diagnostics);
  const trusted: FleetSpec = trust.failedLinks.size === 0 ? fleet : { ...fleet, links: fleet.links.filter((l) => !trust.failedLinks.has(l.path)) };
  // What depends on a target service and a link's policy alone is worked out once for every source (plan-memo.ts).
  const memo = new PlanMemo(fleet.clusters, fleet.explicitExports);
  const run: PlanningRun = { fleet: trusted, snapshot, options, memo };
  // Each source's findings are collected apart (then kept in order), so a source that is not planned
  // next time can report its own again.
  const plans = sources.filter((s) => !options.unplanned?.has(s)).map((source) => {
    const own = new Diagnostics(options.strict ?? false);
    const input = options.partial?.get(source);
    const partial = input ? planPartialSource(run, source, input) : undefined;
    if (partial) {
      own.merge(partial.diagnostics);
      appendAll(own.notes, partial.diagnostics.notes);
    }
    const plan = partial?.plan ?? planSource(run, source, own);
    diagnostics.merge(own);
    appendAll(diagnostics.notes, own.notes);
    return { ...plan, warnings: own.warningFindings };
  });
  const errors = diagnostics.findings.filter((d) => d.severity === 'error');
  if (errors.length > 0) throw new CompileError(errors);
  const requirements = plans.flatMap((plan) => plan.requirements);
  const pinned: Record<string, Readonly<Record<string, string>>> = { ...(snapshot.pinnedServiceIPs ?? {}) };
  for (const plan of plans) {
    if (Object.keys(plan.pinnedIPs).length > 0) pinned[plan.source] = plan.pinnedIPs;
    else delete pinned[plan.source];
  }
  // Fleet-wide, like the trust anchors: checked for every compiled source, planned this run or not, and never recorded with a source's own warnings.
  for (const source of sources) {
    const cluster = memo.cluster(source);
    if (cluster?.pinnedServiceIPRange === undefined) continue;
    for (const [i, range] of pinnedRangesOf(cluster).entries()) {
      const field = i === 0 ? 'pinnedServiceIPRange' : 'additionalPinnedServiceIPRanges';
      const problem = staticBandProblem({ source, range, field, ...(cluster.serviceCidrs ? { serviceCidrs: cluster.serviceCidrs } : {}), pinned: pinned[source] ?? {} });
      if (problem) diagnostics.warn(Diag.PINNED_RANGE_OUTSIDE_STATIC_BAND, problem, { cluster: source });
    }
  }
  return { plans, warnings: diagnostics.warnings, diagnostics: diagnostics.warningFindings, requirements, pinnedServiceIPs: sortedRecord(pinned), planRows: [...trust.planRows, ...diagnostics.notes] };
}

/** The chart of one planned source, under `scope`. */
export function sourceChart(scope: Construct, plan: SourcePlan): SourceChart {
  return new SourceChart(scope, plan.source, plan);
}

/** The compiled (not yet rendered) mirrors of one source cluster. */
export interface SourcePlan {
  readonly source: string;
  readonly namespaces: string[];
  readonly units: MirrorUnit[];
  /** The credentials Secrets its flat and federated mirrors need; empty in a plan of the changed links alone (synth reads none; plan and check always plan in full). */
  readonly requirements: SecretRequirement[];
  /** `namespace/name` → pinned ClusterIP of this source's per-pod Services. */
  readonly pinnedIPs: Record<string, string>;
  /** The warnings of this source's planning, in order (part of the fleet's diagnostics). @default none */
  readonly warnings?: readonly Diagnostic[];
  /** How many of the warnings each link's selection and mirrors gave, in link order (the lock keeps it for a partial plan). @default unknown */
  readonly linkWarnings?: readonly number[];
  /**
   * A partial plan: the unit families (`from-<target>`) it did not plan, whose units are absent from
   * {@link units} and whose records the lock keeps as they are. @default none: every family planned
   */
  readonly keptFamilies?: readonly string[];
  /**
   * Each linked target → the digest of what its link gave the source-wide steps
   * (link-contribution.ts), recorded for the next partial plan. @default unknown (a partial plan
   * whose record had none)
   */
  readonly contributions?: Readonly<Record<string, string>>;
}

/** What every source's planning in one run reads: the fleet, its observation, the options and the run's memo. */
interface PlanningRun {
  readonly fleet: FleetSpec;
  readonly snapshot: FleetSnapshot;
  readonly options: CompileOptions;
  readonly memo: PlanMemo;
}

/** What the links of one source are planned against. */
interface SourceContext {
  readonly source: string;
  readonly fleet: FleetSpec;
  readonly snapshot: FleetSnapshot;
  readonly memo: PlanMemo;
  /** The source's observed namespaces; undefined when the source was never observed. */
  readonly sourceNamespaces: ReadonlySet<string> | undefined;
  /** Whether the current output holds a mirror of an origin, asked for this source. */
  readonly established: ((origin: string) => boolean) | undefined;
}

/** The context of `source`'s links in `run`. */
function sourceContext(run: PlanningRun, source: string, sourceNamespaces: ReadonlySet<string> | undefined): SourceContext {
  // One lookup per source, told which source asks (the generic-gateway ports are worked out per lookup).
  const previousMirrors = run.options.previousMirrors;
  const established = previousMirrors ? (origin: string): boolean => previousMirrors(origin, source) : undefined;
  return { source, fleet: run.fleet, snapshot: run.snapshot, memo: run.memo, sourceNamespaces, established };
}

/** What the link loop of a source's plan collects. */
interface LinkCollect {
  readonly namespaces: Set<string>;
  readonly planned: MirrorUnit[];
  readonly mcsRequests: MirrorRequest[];
  /** Where the links' findings go. */
  readonly diagnostics: Diagnostics;
}

/** What planning every link of a source gave besides its units: each link's flat units, warning count and contribution digest. */
interface LinksPlanned {
  /** Link path → the link's flat (remote-discovery) units. */
  readonly flatNeeds: Map<string, MirrorUnit[]>;
  readonly linkWarnings: number[];
  /** Linked target → contribution digest; undefined when a kept link has none recorded. */
  readonly contributions: Record<string, string> | undefined;
}

function planSource(run: PlanningRun, source: string, diagnostics: Diagnostics): SourcePlan {
  const sourceSnapshot = run.snapshot.sources[source];
  if (!sourceSnapshot) {
    diagnostics.warn(Diag.SOURCE_NEVER_OBSERVED, `${source}: this source cluster has never been observed, so its namespaces and existing Services are unknown; namespace and collision checks are skipped`, { cluster: source });
  }
  const context = sourceContext(run, source, sourceSnapshot ? new Set(sourceSnapshot.namespaces) : undefined);
  const links = run.fleet.links.filter((l) => l.source === source);
  const collect: LinkCollect = { namespaces: new Set(), planned: [], mcsRequests: [], diagnostics };
  const linked = planEveryLink(context, links, collect);
  const federated = planSourceWideServices(context, collect, sourceSnapshot?.foreignServiceImports ?? []);
  const isolation: Isolation = { source, foreign: sourceSnapshot?.foreignServices ?? [], owners: ownersOf(source, run.options.previousOwners), strict: run.options.strict ?? false, adopted: new Set(), memo: run.memo };
  // One service's bad name skips that service only (unless strict): see isolateNames.
  const units = isolateNames(isolation, collect.planned, diagnostics);
  // One Secret per link serves its flat mirrors and its federated members alike (contract §4.1). A
  // flat mirror counts while a kept unit has its namespace and first name (itself, or a clash's keeper).
  const keptUnits = new Set(units);
  let keptNames: Set<string> | undefined;
  const kept = (u: MirrorUnit): boolean => keptUnits.has(u) || (keptNames ??= new Set(units.map(firstName))).has(firstName(u));
  const requirements = credentialsRequirements(context, links, (link) => [...(linked.flatNeeds.get(link.path) ?? []).filter(kept).map(firstName), ...(federated.credentialNeeds.get(link.path) ?? [])], diagnostics);
  const localMembers = (sourceSnapshot?.globalMembers ?? []).filter((m) => !sourceSnapshot || sourceSnapshot.namespaces.includes(m.namespace));
  const { all, pinnedIPs } = settleGlobalsAndPins(context, { targetOrder: links.map((l) => l.target), units, localMembers, isolation }, diagnostics);
  noteAdopted(source, all, isolation.adopted, diagnostics);
  // A namespace this compiler created stays in the output while any mirror lives in it: dropping it
  // because it now exists would make GitOps prune it, and every object in it.
  const managed = new Set(sourceSnapshot?.managedNamespaces ?? []);
  for (const unit of all) if (managed.has(unit.namespace)) collect.namespaces.add(unit.namespace);
  return {
    source,
    namespaces: [...collect.namespaces].sort(compareStrings),
    units: sortedUnits(all),
    requirements: requirements.sort(compareBy((r) => r.target)),
    pinnedIPs: sortedRecord(pinnedIPs),
    linkWarnings: linked.linkWarnings,
    contributions: sortedRecord(linked.contributions ?? {}),
  };
}

/** Plans every link of a source in full, into `collect`. */
function planEveryLink(context: SourceContext, links: readonly LinkSpec[], collect: LinkCollect): LinksPlanned {
  const flatNeeds = new Map<string, MirrorUnit[]>();
  const linkWarnings: number[] = [];
  const contributions: Record<string, string> = {};
  for (const link of links) {
    const before = collect.diagnostics.findings.length;
    const { flat, contribution } = planContributingLink(context, link, collect);
    flatNeeds.set(link.path, flat);
    linkWarnings.push(countWarnings(collect.diagnostics.findings, before));
    contributions[link.target] = contribution;
  }
  return { flatNeeds, linkWarnings, contributions };
}

/**
 * The MCS imports of the links' requests and the federated Services, added to `collect`: both
 * aggregate over all links of the source, so they are planned once, after them.
 */
function planSourceWideServices(context: SourceContext, collect: LinkCollect, foreignImports: readonly ForeignService[]): FederatedPlan {
  const { source } = context;
  const { diagnostics } = collect;
  appendAll(collect.planned, planMcsImports(source, collect.mcsRequests, diagnostics, foreignImports));
  const federated = planFederatedServices(source, context, diagnostics);
  appendAll(collect.planned, federated.units);
  for (const ns of federated.namespaces) collect.namespaces.add(ns);
  return federated;
}

/** `namespace/name` of a unit's first Service. */
function firstName(u: MirrorUnit): string {
  return `${u.namespace}/${u.serviceNames[0] ?? ''}`;
}

/**
 * The credentials Secret each link's flat mirrors and federated members need (`neededBy` names
 * them, unsorted), with a warning and a plan row for each one the fleet does not declare.
 */
function credentialsRequirements(context: SourceContext, links: readonly LinkSpec[], neededBy: (link: LinkSpec) => string[], diagnostics: Diagnostics): SecretRequirement[] {
  const requirements: SecretRequirement[] = [];
  for (const link of links) {
    const needing = neededBy(link).sort(compareStrings);
    if (needing.length === 0) continue;
    const requirement = credentialsRequirement(link, context.memo.cluster(link.target)!, needing);
    requirements.push(requirement);
    // Warn, not fail: the mirrors are valid objects, and the Secret may well exist already
    // (link-gen, another pipeline); the warning says exactly what to check and how to silence it.
    if (requirement.provided === undefined) {
      diagnostics.warn(Diag.CREDENTIALS_UNDECLARED, undeclaredCredentialsWarning(requirement), { cluster: context.source, target: link.target });
      diagnostics.note(credentialsPlanRow(requirement));
    }
  }
  return requirements;
}

/** What the `-global` Services and the pinned IPs of one source are planned from. */
interface GlobalsInput {
  /** The source's link targets, in link order. */
  readonly targetOrder: readonly string[];
  /** The units that passed name isolation. */
  readonly units: readonly MirrorUnit[];
  /** The source's own services labelled to join `-global`, in its observed namespaces. */
  readonly localMembers: readonly ObservedService[];
  readonly isolation: Isolation;
}

/**
 * StatefulSets: the `-global` Services aggregate the per-pod mirrors of every link of this source.
 * A per-pod Service whose pinned IP cannot be had skips its unit (unless strict), and the
 * `-global` Services are planned again without it, until every remaining unit has its IPs.
 * Returns every unit kept and the pinned IPs to record.
 */
function settleGlobalsAndPins(context: SourceContext, input: GlobalsInput, diagnostics: Diagnostics): { all: MirrorUnit[]; pinnedIPs: Record<string, string> } {
  const { source } = context;
  const { units, localMembers, isolation } = input;
  const sourceCluster = context.memo.cluster(source)!;
  const failedPins = new Set<string>();
  const pinnedFailures = new Diagnostics();
  for (;;) {
    const round = new Diagnostics();
    const modeUnits = failedPins.size === 0 ? units : units.filter((u) => !(u.pinnedServiceNames ?? []).some((n) => failedPins.has(`${u.namespace}/${n}`)));
    const members = failedPins.size === 0 ? localMembers : localMembers.filter((m) => !(m.hostnames ?? []).some((h) => failedPins.has(`${m.namespace}/${perPodServiceName(h, source)}`)));
    const globals = planGlobalServices({ source: sourceCluster, targetOrder: input.targetOrder, headless: joiningGlobal(modeUnits), localMembers: members }, round);
    // modeUnits passed isolateNames above (valid names, no clash among them): only the `-global` Services' names are checked again.
    const all = isolateNames(isolation, [...modeUnits, ...globals], round, modeUnits.length);
    const adopted = adoptedClusterIPs(all, isolation.foreign, isolation.adopted);
    const pins = pinServiceIPs({ source: sourceCluster, units: all, snapshot: context.snapshot, adopted, strict: isolation.strict }, isolation.strict ? round : pinnedFailures);
    const newlyFailed = pins.failed.filter((k) => !failedPins.has(k));
    if (isolation.strict || newlyFailed.length === 0) {
      diagnostics.merge(round);
      diagnostics.merge(pinnedFailures);
      // A skipped per-pod Service keeps its pinned IP in the lock, so it gets it back once free.
      const previous = context.snapshot.pinnedServiceIPs?.[source] ?? {};
      const pinnedIPs = failedPins.size === 0 ? pins.allocation : { ...Object.fromEntries([...failedPins].filter((k) => previous[k] !== undefined).map((k) => [k, previous[k]!])), ...pins.allocation };
      return { all, pinnedIPs };
    }
    for (const key of newlyFailed) failedPins.add(key);
  }
}

/** The headless units among `units` that join a `-global` Service. */
function joiningGlobal(units: readonly MirrorUnit[]): HeadlessUnit[] {
  return units.filter((u): u is HeadlessUnit => u.mode === 'headless' && (u as HeadlessUnit).joinsGlobal);
}

/** A plan row naming the Services of `all` taken over from Linkerd's service-mirror controller, if any. */
function noteAdopted(source: string, all: readonly MirrorUnit[], adopted: ReadonlySet<string>, diagnostics: Diagnostics): void {
  const adoptedNow = adopted.size === 0 ? [] : all.flatMap((u) => u.serviceNames.map((n) => `${u.namespace}/${n}`)).filter((k) => adopted.has(k));
  if (adoptedNow.length > 0) {
    diagnostics.note(`adopted from Linkerd's service-mirror controller: ${source}: ${adoptedNow.length} Service${adoptedNow.length === 1 ? '' : 's'} taken over in place (${sortedUnique(adoptedNow).join(', ')})`);
  }
}

/**
 * The mirrors of one link: selection, the system-namespace and missing-namespace checks, MCS
 * requests set aside, each other request planned in its mode. With `skipGateway`, gateway-mode
 * requests pass every check but are not planned (a partial plan's kept family). Returns the link's
 * flat (remote-discovery) units.
 */
function planLinkMirrors(context: SourceContext, link: LinkSpec, into: LinkCollect, skipGateway: boolean): MirrorUnit[] {
  const { source, memo, sourceNamespaces } = context;
  const diagnostics = into.diagnostics;
  const flat: MirrorUnit[] = [];
  for (const request of selectMirrors(link, context, diagnostics)) {
    const ns = request.placement?.namespace ?? request.service.namespace;
    if (!link.mirrorSystemNamespaces) {
      const system = systemNamespaceProblem(request, memo, ns);
      if (system) {
        diagnostics.warn(Diag.SYSTEM_NAMESPACE_SKIPPED, `${source}: ${system}, so ${request.link.target}/${request.service.namespace}/${request.service.name} is not mirrored; set mirrorSystemNamespaces: true on link ${link.path} to mirror system namespaces`, { cluster: source, target: request.link.target, namespace: request.service.namespace, service: request.service.name });
        continue;
      }
    }
    if (sourceNamespaces && !sourceNamespaces.has(ns)) {
      if (!link.createMissingNamespaces) {
        diagnostics.warn(Diag.NAMESPACE_MISSING, `${source}: namespace "${ns}" does not exist, so ${request.link.target}/${request.service.namespace}/${request.service.name} is not mirrored; create the namespace, or set createMissingNamespaces on link ${link.path}`, { cluster: source, target: request.link.target, namespace: request.service.namespace, service: request.service.name });
        continue;
      }
      into.namespaces.add(ns);
    }
    // MCS links: gateway-mode services become ServiceImports, planned across links below.
    if (link.mcs && request.mode === 'gateway') {
      into.mcsRequests.push(request);
      continue;
    }
    if (skipGateway && request.mode === 'gateway') continue;
    const unit = planMirror(request, diagnostics, memo);
    if (!unit) continue;
    into.planned.push(unit);
    if (request.mode === 'remote-discovery') flat.push(unit);
  }
  return flat;
}

/**
 * {@link planLinkMirrors} of every mirror of `link` into `into`, with the digest of what the link
 * gave the source-wide steps (link-contribution.ts): its mirrors, the Namespaces it creates and its
 * MCS requests, as this call added them.
 */
function planContributingLink(context: SourceContext, link: LinkSpec, into: LinkCollect): { flat: MirrorUnit[]; contribution: string } {
  const from = into.planned.length;
  const requestsFrom = into.mcsRequests.length;
  const namespaces = new Set<string>();
  const flat = planLinkMirrors(context, link, { ...into, namespaces }, false);
  for (const ns of namespaces) into.namespaces.add(ns);
  const given = { units: into.planned.slice(from), namespaces, requests: into.mcsRequests.slice(requestsFrom) };
  return { flat, contribution: linkContribution(link, context.snapshot.targets[link.target], given, context.memo) };
}

/** The warnings among `findings` from index `from` on. */
function countWarnings(findings: readonly Diagnostic[], from: number): number {
  let n = 0;
  for (let i = from; i < findings.length; i++) if (findings[i]!.severity === 'warning') n++;
  return n;
}

/** The diagnostic codes of name isolation and pinned IPs: a source whose last plan reported one is planned in full. */
export const WHOLE_SOURCE_CODES: ReadonlySet<string> = new Set([Diag.MIRROR_NAME_CLASH.code, Diag.MIRROR_NAME_INVALID.code, Diag.LINKERD_MIRROR_NOT_ADOPTED.code, Diag.PINNED_IP_UNAVAILABLE.code, Diag.SOURCE_NEVER_OBSERVED.code]);

/** A partial plan of one source with its own findings. */
interface PartialPlan {
  readonly plan: SourcePlan;
  readonly diagnostics: Diagnostics;
}

/**
 * The partial plan of `source`: the families of `input.changedTargets` and `shared` in full, the
 * others only as far as what every family shares needs them (each link's selection and namespace
 * checks, its flat mirrors for the credentials requirement, its headless mirrors for `-global` and the
 * pinned IPs), their warnings taken from the lock in their place. Undefined wherever the result might
 * differ from {@link planSource}'s (docs/incremental-planning.md, "When a partial plan falls back"):
 * strict, an unobserved source, foreign or managed names in the source, MCS links, two links to one
 * target, any name isolation finding, a name a kept family holds, a pinned IP not had or changed.
 */
function planPartialSource(run: PlanningRun, source: string, input: PartialSourceInput): PartialPlan | undefined {
  const sourceSnapshot = run.snapshot.sources[source];
  const links = run.fleet.links.filter((l) => l.source === source);
  if (run.options.strict || !sourceSnapshot || !partialPlanMayEqualFull(sourceSnapshot, links, input)) return undefined;
  const context = sourceContext(run, source, new Set(sourceSnapshot.namespaces));
  const alone = planChangedLinksAlone(context, links, input);
  if (alone) return alone;
  const diagnostics = new Diagnostics(false);
  const collect: LinkCollect = { namespaces: new Set(), planned: [], mcsRequests: [], diagnostics };
  const linked = planLinksInPart(context, links, input, collect);
  if (collect.mcsRequests.length > 0) return undefined;
  const federated = planSourceWideServices(context, collect, sourceSnapshot.foreignServiceImports ?? []);
  // No owner is asked: any clash sends the source to its full plan, which asks.
  const isolation: Isolation = { source, foreign: [], owners: () => undefined, strict: false, adopted: new Set(), memo: run.memo };
  const isolated = new Diagnostics(false);
  const units = isolateNames(isolation, collect.planned, isolated);
  if (isolated.findings.length > 0 || units.length !== collect.planned.length) return undefined;
  const requirements = credentialsRequirements(context, links, (link) => [...(linked.flatNeeds.get(link.path) ?? []).map(firstName), ...(federated.credentialNeeds.get(link.path) ?? [])], diagnostics);
  const localMembers = (sourceSnapshot.globalMembers ?? []).filter((m) => sourceSnapshot.namespaces.includes(m.namespace));
  const pinned = partialGlobalsAndPins(context, { targetOrder: links.map((l) => l.target), units, localMembers, isolation });
  if (!pinned) return undefined;
  const isPlanned = (u: MirrorUnit): boolean => u.target === undefined || input.changedTargets.has(u.target);
  const own = pinned.all.filter(isPlanned);
  // A planned Service whose name a kept family holds would be a clash of the full plan.
  for (const u of own) for (const name of u.serviceNames) if (input.keptNames.has(`${u.namespace}/${name}`)) return undefined;
  diagnostics.merge(pinned.diagnostics);
  const plan: SourcePlan = {
    source,
    namespaces: [...collect.namespaces].sort(compareStrings),
    units: sortedUnits(own),
    requirements: requirements.sort(compareBy((r) => r.target)),
    pinnedIPs: pinned.pinnedIPs,
    linkWarnings: linked.linkWarnings,
    keptFamilies: links.filter((l) => !input.changedTargets.has(l.target)).map((l) => unitFamily(l.target)),
    ...(linked.contributions ? { contributions: sortedRecord(linked.contributions) } : {}),
  };
  return { plan, diagnostics };
}

/** Whether a partial plan of an observed source with `links` can be shown equal to its full plan at all (no strict check). */
function partialPlanMayEqualFull(sourceSnapshot: SourceSnapshot, links: readonly LinkSpec[], input: PartialSourceInput): boolean {
  if (sourceSnapshot.foreignServices.length > 0 || (sourceSnapshot.foreignServiceImports ?? []).length > 0 || (sourceSnapshot.managedNamespaces ?? []).length > 0) return false;
  if (links.length !== input.linkWarnings.length || links.some((l) => l.mcs) || new Set(links.map((l) => l.target)).size !== links.length) return false;
  if (input.linkWarnings.reduce((a, b) => a + b, 0) > input.warnings.length) return false;
  return !input.warnings.some((w) => WHOLE_SOURCE_CODES.has(w.code));
}

/**
 * The links of a partial plan: a changed link in full, a kept one only for what every family shares
 * (its findings go nowhere: the kept families' own are the lock's, taken in their place).
 */
function planLinksInPart(context: SourceContext, links: readonly LinkSpec[], input: PartialSourceInput, collect: LinkCollect): LinksPlanned {
  const { diagnostics } = collect;
  const scratch: LinkCollect = { ...collect, diagnostics: new Diagnostics(false) };
  const flatNeeds = new Map<string, MirrorUnit[]>();
  const linkWarnings: number[] = [];
  // The kept links' contributions are the recorded ones (their targets' observations did not change).
  let contributions: Record<string, string> | undefined = input.contributions ? {} : undefined;
  let offset = 0;
  links.forEach((link, i) => {
    const recorded = input.linkWarnings[i]!;
    if (input.changedTargets.has(link.target)) {
      const before = diagnostics.findings.length;
      const { flat, contribution } = planContributingLink(context, link, collect);
      flatNeeds.set(link.path, flat);
      linkWarnings.push(countWarnings(diagnostics.findings, before));
      if (contributions) contributions[link.target] = contribution;
    } else {
      const contribution = input.contributions?.[link.target];
      if (contributions && contribution !== undefined) contributions[link.target] = contribution;
      else contributions = undefined;
      flatNeeds.set(link.path, planLinkMirrors(context, link, scratch, true));
      appendAll(diagnostics.findings, input.warnings.slice(offset, offset + recorded));
      linkWarnings.push(recorded);
    }
    offset += recorded;
  });
  return { flatNeeds, linkWarnings, contributions };
}

/**
 * The `-global` Services and pinned IPs of a partial plan in one round, or undefined when they
 * differ from what a full plan could give: a name problem, a pinned IP not had or not the lock's.
 */
function partialGlobalsAndPins(context: SourceContext, input: GlobalsInput): { all: MirrorUnit[]; pinnedIPs: Record<string, string>; diagnostics: Diagnostics } | undefined {
  const { units, isolation } = input;
  const sourceCluster = context.memo.cluster(context.source)!;
  const round = new Diagnostics();
  const globals = planGlobalServices({ source: sourceCluster, targetOrder: input.targetOrder, headless: joiningGlobal(units), localMembers: input.localMembers }, round);
  const all = isolateNames(isolation, [...units, ...globals], round, units.length);
  if (all.length !== units.length + globals.length || round.findings.some((d) => WHOLE_SOURCE_CODES.has(d.code))) return undefined;
  const pinFailures = new Diagnostics();
  const pins = pinServiceIPs({ source: sourceCluster, units: all, snapshot: context.snapshot, adopted: adoptedClusterIPs(all, [], isolation.adopted), strict: false }, pinFailures);
  if (pins.failed.length > 0) return undefined;
  // Every family's input digest takes the source's pinned IPs: a kept family is only kept while they stay as they are.
  const pinnedIPs = sortedRecord(pins.allocation);
  if (canonicalJson(pinnedIPs) !== canonicalJson(sortedRecord(context.snapshot.pinnedServiceIPs?.[context.source] ?? {}))) return undefined;
  round.merge(pinFailures);
  return { all, pinnedIPs, diagnostics: round };
}

/**
 * The plan of `source`'s changed links alone (docs/incremental-planning.md, "Planning the changed
 * links alone"), or undefined when it cannot be shown equal to the full plan. Each changed link is
 * planned in full; when every one of them gives the source-wide steps exactly what its record says
 * (the same digest: link-contribution.ts), every input of those steps is what it was at the last
 * plan: the pinned IPs are the lock's, the Namespaces the recorded ones, `shared` (its `-global` and
 * federated Services) is kept as its units are, and the warnings after the links are the recorded
 * ones. The credentials requirements are not worked out again (synth reads none).
 */
function planChangedLinksAlone(context: SourceContext, links: readonly LinkSpec[], input: PartialSourceInput): PartialPlan | undefined {
  const { source, snapshot, memo } = context;
  const { contributions: recorded, namespaces, sharedNames } = input;
  if (!recorded || !namespaces || !sharedNames) return undefined;
  const diagnostics = new Diagnostics(false);
  const planned: MirrorUnit[] = [];
  const linkWarnings: number[] = [];
  const contributions: Record<string, string> = {};
  let offset = 0;
  for (const [i, link] of links.entries()) {
    const count = input.linkWarnings[i]!;
    const previous = recorded[link.target];
    if (previous === undefined) return undefined;
    if (input.changedTargets.has(link.target)) {
      const before = diagnostics.findings.length;
      // (The Namespaces it creates are in its digest; the plan's are the recorded ones.)
      const into: LinkCollect = { namespaces: new Set(), planned, mcsRequests: [], diagnostics };
      if (planContributingLink(context, link, into).contribution !== previous || into.mcsRequests.length > 0) return undefined;
      linkWarnings.push(countWarnings(diagnostics.findings, before));
    } else {
      appendAll(diagnostics.findings, input.warnings.slice(offset, offset + count));
      linkWarnings.push(count);
    }
    contributions[link.target] = previous;
    offset += count;
  }
  // The warnings after the links (federated and `-global` Services, credentials, pinned IPs): every input of theirs is as recorded.
  appendAll(diagnostics.findings, input.warnings.slice(offset));
  // No name may clash: among the planned mirrors, or with a name a kept unit holds (a full plan would report it).
  const isolated = new Diagnostics(false);
  const units = isolateNames({ source, foreign: [], owners: () => undefined, strict: false, adopted: new Set(), memo }, planned, isolated);
  if (isolated.findings.length > 0 || units.length !== planned.length) return undefined;
  for (const u of units) {
    for (const name of u.serviceNames) {
      const key = `${u.namespace}/${name}`;
      if (input.keptNames.has(key) || sharedNames.has(key)) return undefined;
    }
  }
  return {
    plan: {
      source,
      namespaces: [...namespaces],
      units: sortedUnits(units),
      requirements: [],
      pinnedIPs: sortedRecord(snapshot.pinnedServiceIPs?.[source] ?? {}),
      linkWarnings,
      keptFamilies: [...links.filter((l) => !input.changedTargets.has(l.target)).map((l) => unitFamily(l.target)), unitFamily(undefined)],
      contributions: sortedRecord(contributions),
    },
    diagnostics,
  };
}

/** `units` sorted by namespace, then first Service name (stable: equal units keep their order). */
function sortedUnits(units: MirrorUnit[]): MirrorUnit[] {
  const keyed = units.map((unit) => ({ unit, namespace: unit.namespace, name: unit.serviceNames[0] ?? '' }));
  keyed.sort((a, b) => compareStrings(a.namespace, b.namespace) || compareStrings(a.name, b.name));
  return keyed.map((k) => k.unit);
}

/** Why `request` touches a system namespace (its target's, or `ns` of its source), or undefined. */
function systemNamespaceProblem(request: MirrorRequest, memo: PlanMemo, ns: string): string | undefined {
  if (isSystemNamespace(request.target, request.service.namespace)) return `"${request.service.namespace}" is a system namespace of "${request.link.target}"`;
  const source = memo.cluster(request.link.source);
  if (source && isSystemNamespace(source, ns)) return `its mirror would go to "${ns}", a system namespace of "${request.link.source}"`;
  return undefined;
}


/** What {@link pinServiceIPs} pins: the per-pod Services of `units` in `source`. */
interface PinInput {
  readonly source: ClusterSpec;
  readonly units: readonly MirrorUnit[];
  readonly snapshot: FleetSnapshot;
  /** `namespace/name` → ClusterIP of the Services taken over from Linkerd's controller. */
  readonly adopted: Readonly<Record<string, string>>;
  readonly strict: boolean;
}

/** Pins the ClusterIP of every per-pod Service of a source (see allocate-pinned-ips.ts for the rules); `failed` lists the keys that got none. */
function pinServiceIPs(input: PinInput, diagnostics: Diagnostics): { allocation: Record<string, string>; failed: string[] } {
  const { source, snapshot, strict } = input;
  const requests: { namespace: string; name: string; origin: string }[] = [];
  for (const u of input.units) for (const name of u.pinnedServiceNames ?? []) requests.push({ namespace: u.namespace, name, origin: u.origin });
  if (requests.length === 0 || source.pinnedServiceIPRange === undefined) return { allocation: {}, failed: [] };
  const failed: string[] = [];
  const allocation = allocatePinnedIPs(
    {
      source: source.name,
      range: source.pinnedServiceIPRange,
      ...(source.additionalPinnedServiceIPRanges !== undefined ? { additionalRanges: source.additionalPinnedServiceIPRanges } : {}),
      ...(source.serviceCidrs !== undefined ? { serviceCidrs: source.serviceCidrs } : {}),
      requests,
      previous: snapshot.pinnedServiceIPs?.[source.name] ?? {},
      live: snapshot.sources[source.name]?.pinnedRangeServices,
      adopted: input.adopted,
      onFailure: (request, message) => {
        failed.push(pinnedKey(request.namespace, request.name));
        const subject = { cluster: source.name, namespace: request.namespace, service: request.name };
        if (strict) diagnostics.error(Diag.PINNED_IP_UNAVAILABLE, message, subject);
        else diagnostics.warn(Diag.PINNED_IP_UNAVAILABLE, `${message}; ${request.origin} is skipped, the other mirrors are updated (--strict makes this an error)`, subject);
      },
    },
    diagnostics,
  );
  for (const key of failed) delete allocation[key];
  return { allocation, failed };
}

/** The unit of `request` in its mode. */
function planMirror(request: ModedRequest, diagnostics: Diagnostics, memo: PlanMemo): MirrorUnit | undefined {
  switch (request.mode) {
    case 'gateway':
      return planGatewayMirror(request, diagnostics, memo);
    case 'remote-discovery':
      return planRemoteDiscoveryMirror(request, diagnostics, memo);
    case 'headless':
      return planHeadlessMirror(request, diagnostics, memo);
  }
}


/** The previous owners of one source's mirror names, looked up only when a clash asks (reading them all would cost a parse per file). */
function ownersOf(source: string, owners: CompileOptions['previousOwners']): (key: string) => string | undefined {
  if (typeof owners === 'function') return (key) => owners(source, key);
  return (key) => owners?.[source]?.[key];
}
