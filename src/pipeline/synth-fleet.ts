/**
 * The library's synth: a fleet and its lock → the very files `mirrorc synth --offline` writes
 * (`dist/<cluster>/` with kustomization.yaml and the reader RBAC, `delivery/`, the lock). It reads no
 * clock, no network and none of the user's files; with a GitOpsDelivery it reads one file of mirrorc's
 * own package, the bundled stock `argocd-cm` (see stock-argocd-cm.ts). The CLI's run compiles through
 * {@link compileFleetTree} as well.
 */
import { App, type Chart } from 'cdk8s';
import { planFleet, type CompileOptions, type FleetPlan, type SourcePlan } from '../compile/compile-fleet.js';
import { compareStrings } from '../util/order.js';
import { appendAll } from '../util/append-all.js';
import { readFileSync } from 'node:fs';
import type { MirrorUnit } from '../compile/mirror-unit.js';
import { KUSTOMIZATION_FILE, type FileTree } from '../emit/render-files.js';
import { clusterKustomizationFile, renderClusterUnits } from '../emit/render-units.js';
import type { RenderedClusterSink } from './streamed-write.js';
import { MAX_UNIT_OBJECTS, parseUnitName, previousShardCounts, SHARED_FAMILY, unitFamily } from '../delivery/delivery-units.js';
import type { SourceRecord, SourceRecords, UnitFiles, UnitRecord, UnitRecords } from '../state/lock-document.js';
import { treeUnitRecords } from '../state/adopt-dist.js';
import { UnitInputs } from '../state/unit-inputs.js';
import { recordMirrorLookup, recordOwnerLookup } from '../state/unit-records.js';
import { differingParts, filePart } from '../state/unit-inventory.js';
import type { Fleet } from '../model/fleet.js';
import type { FleetSpec } from '../model/fleet-spec.js';
import { renderLockFile } from '../observe/lock-file.js';
import type { FleetSnapshot } from '../snapshot/snapshot.js';
import { addReaderRbacCharts, chartsByCluster, deliveryTree } from './synth-delivery.js';
import { diagnostic, messages, type Diagnostic } from '../diagnostics/diagnostic.js';
import { Diag } from '../diagnostics/diagnostic-codes.js';
import { oversizedFamilies, oversizedFamilyMessage } from '../delivery/family-size.js';
import { SourceSkip } from './source-skip.js';
import { partialSource, type PartialSource } from './family-plan.js';
import { sortedUnique } from '../util/order.js';
import { deliveryDiagnostics } from '../diagnostics/run-diagnostics.js';

/** Input of {@link synthFleet}. */
export interface SynthFleetProps {
  /**
   * The fleet: its clusters, links, explicit exports and GitOps delivery (it may live in any cdk8s app).
   */
  readonly fleet: Fleet;
  /**
   * The observation to compile from: the lock file, as `readLockFile` returns it.
   */
  readonly snapshot: FleetSnapshot;
  /**
   * The output as committed now (`<cluster>/<file>` → text): in a mirror name clash its current owner keeps the name, and a unit family keeps its shard count.
   *
   * @default - no files
   */
  readonly previous?: ReadonlyMap<string, string>;
  /**
   * Make a problem of one mirror (long name, name clash, pinned IP) an error instead of skipping that mirror.
   *
   * @default false
   */
  readonly strict?: boolean;
}

/** The files of one synth, keyed by path relative to their folder. */
export interface FleetFiles {
  /** The output folder (`dist/`): `<cluster>/<file>` → YAML text, kustomization.yaml and reader RBAC included. */
  readonly output: ReadonlyMap<string, string>;
  /** The `delivery/` folder (`flux/...`, `argocd/...`), or undefined when the fleet has no GitOpsDelivery. */
  readonly delivery?: ReadonlyMap<string, string>;
  /** The lock file's text: the snapshot plus the pinned per-pod ClusterIPs compile allocated. */
  readonly lock: string;
  /** Mirrors skipped and other warnings, in plain words (each the `message` of one of `diagnostics`). */
  readonly warnings: readonly string[];
  /** The same warnings as coded data: code, severity, cluster/service and hint (docs/diagnostics.md). */
  readonly diagnostics: readonly Diagnostic[];
}

/** What {@link compileFleetTree} compiled. */
export interface CompiledTree {
  /** `<cluster>/<file>` → text: every rendered unit folder and each cluster's kustomization.yaml (skipped units are absent). */
  readonly tree: FileTree;
  /** The snapshot with compile's pinned ClusterIPs (what the lock records). */
  readonly snapshot: FleetSnapshot;
  readonly warnings: readonly string[];
  /** The warnings as coded data. */
  readonly diagnostics: readonly Diagnostic[];
  /** What `plan` prints besides file changes (trust anchors, renamed exports, generic gateway ports, MCS imports). */
  readonly planRows: readonly string[];
  /** The record of every unit of every compiled cluster, skipped ones included (the lock's compiled section). */
  readonly units: UnitRecords;
  /** `<cluster>/<unit>` of every unit that was rendered (all but the skipped ones). */
  readonly rendered: ReadonlySet<string>;
  /** `<cluster>/<unit>` → how many objects it holds, of every unit rendered (written or found unchanged). */
  readonly objectCounts: ReadonlyMap<string, number>;
  /** The record of every compiled source, skipped ones included (the lock's compiled section). */
  readonly sources: SourceRecords;
  /** The sources that were not planned (their whole folder kept; see src/pipeline/source-skip.ts). */
  readonly skippedSources: ReadonlySet<string>;
  /** The sources planned in part, each with the unit families it planned (src/pipeline/family-plan.ts). */
  readonly partialSources: ReadonlyMap<string, readonly string[]>;
}

/** The previous state an incremental compile starts from. */
export interface PreviousUnits {
  /** The lock's unit records (what `dist/` holds): shard counts, and the units that may be skipped. */
  readonly records: UnitRecords;
  /**
   * Whether the folder of a unit on disk still matches its record (the cheap integrity check); asked
   * only of units whose inputs are unchanged. Without it, nothing is skipped. @default nothing skipped
   */
  readonly intact?: (cluster: string, unit: string, files: UnitFiles) => boolean;
  /** The lock's source records: a source whose planning inputs are unchanged is not planned at all. @default every source planned */
  readonly sources?: SourceRecords;
}

/** This package's version: a new mirrorc renders every unit once (its output may differ). */
const VERSION = (JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }).version;

/** How {@link compileFleetTree} runs besides what it compiles: what the output holds now, the unit size limit, and where results go. */
export interface CompileTreeProps {
  /** The output as committed now, when the caller has it: an unchanged file reuses its text (memory only). @default none */
  readonly previous?: ReadonlyMap<string, string>;
  /** The lock's unit records and the integrity check. @default none: every unit rendered, shard counts from `previous` */
  readonly state?: PreviousUnits;
  /** The most objects of one delivery unit. @default MAX_UNIT_OBJECTS (500) */
  readonly maxUnitObjects?: number;
  /** Called between compiling and rendering (stage timing). @default none */
  readonly onCompiled?: () => void;
  /**
   * Given each cluster's rendered folder (paths relative to it) and its kept units as soon as it is
   * rendered, instead of the returned `tree` (which stays empty): the caller streams them. @default none: every folder in `tree`
   */
  readonly sink?: RenderedClusterSink;
}

/**
 * Compiles `spec` from `snapshot` and renders every cluster folder, or with `props.state.intact` only the
 * unit families whose inputs changed (or whose folder is not intact).
 * @throws CompileError when the fleet cannot be compiled; nothing is rendered then
 */
export function compileFleetTree(spec: FleetSpec, snapshot: FleetSnapshot, options: CompileOptions, props: CompileTreeProps = {}): CompiledTree {
  const { previous, state } = props;
  const inputs = new UnitInputs(spec, snapshot, VERSION, props.maxUnitObjects ?? MAX_UNIT_OBJECTS);
  const { planned, partial, skipped, diagnostics, sourceRecords } = planTree({ spec, snapshot, options, inputs, ...(state ? { state } : {}) });
  props.onCompiled?.();
  const output: TreeOutput = { tree: new Map(), units: {}, rendered: new Set(), objectCounts: new Map() };
  // Every observed cluster's folder also holds the reader identity that observation needs there.
  const readerRbac = chartsByCluster(addReaderRbacCharts(new App({ outdir: 'unused' }), spec));
  const plans = new Map(planned.plans.map((plan) => [plan.source, plan]));
  // A family's shard count never shrinks: the lock's records (or the committed folder names) say how many it has now.
  const records = state?.records ?? treeUnitRecords(new Map([...(previous ?? new Map<string, string>()).keys()].filter((k) => k.endsWith('/kustomization.yaml')).map((k) => [k, ''])));
  const context: TreeRender = { inputs, props, records, readerRbac, output };
  for (const cluster of [...new Set([...plans.keys(), ...readerRbac.keys(), ...skipped])].sort(compareStrings)) {
    if (skipped.has(cluster)) keepWholeCluster(context, cluster);
    else renderCluster(context, cluster, plans.get(cluster));
  }
  const { tree, units, rendered, objectCounts } = output;
  return { tree, snapshot: withPinnedServiceIPs(snapshot, planned.pinnedServiceIPs), warnings: messages(diagnostics), diagnostics, planRows: planned.planRows, units, rendered, objectCounts, sources: sourceRecords, skippedSources: skipped, partialSources: plannedFamilies(planned, partial) };
}

/** What {@link planTree} plans from. */
interface TreePlanInput {
  readonly spec: FleetSpec;
  readonly snapshot: FleetSnapshot;
  readonly options: CompileOptions;
  readonly inputs: UnitInputs;
  readonly state?: PreviousUnits;
}

/** The planning step of {@link compileFleetTree}: what was planned, skipped or planned in part, with the warnings and source records. */
interface TreePlan {
  readonly planned: FleetPlan;
  readonly partial: ReadonlyMap<string, PartialSource>;
  readonly skipped: ReadonlySet<string>;
  /** The warnings in the order of a full run. */
  readonly diagnostics: Diagnostic[];
  readonly sourceRecords: Record<string, SourceRecord>;
}

/**
 * Plans the fleet: a source whose planning inputs did not change and whose folders are intact is not
 * planned at all, one whose inputs changed only in some targets' observations plans only those
 * targets' families (family-plan.ts), every other source in full.
 */
function planTree(input: TreePlanInput): TreePlan {
  const { spec, snapshot, options, inputs, state } = input;
  const skip = new SourceSkip(inputs, snapshot, options, state);
  const sources = sortedUnique(spec.links.map((l) => l.source)).filter((s) => !options.sources || options.sources.has(s));
  const skipped = new Set(sources.filter((s) => skip.skippable(s)));
  const partial = new Map<string, PartialSource>();
  const familyRun = { inputs, snapshot, strict: options.strict ?? false, skip };
  for (const source of sources) {
    if (skipped.has(source)) continue;
    const p = partialSource(source, familyRun, state);
    if (p) partial.set(source, p);
  }
  const recording = skip.recordingOptions(skipped);
  const planned = planFleet(spec, snapshot, partial.size > 0 ? { ...recording, partial: new Map([...partial].map(([s, p]) => [s, p.input])) } : recording);
  for (const plan of planned.plans) if (plan.keptFamilies) skip.carryEstablished(plan.source, partial.get(plan.source)!.established);
  // The warnings in the order of a full run: the fleet-wide ones (trust anchors), then each source's, recorded or new.
  const perSource = new Set(planned.plans.flatMap((p) => p.warnings ?? []));
  const diagnostics: Diagnostic[] = planned.diagnostics.filter((d) => !perSource.has(d));
  const sourceRecords: Record<string, SourceRecord> = {};
  for (const source of sources) {
    const plan = planned.plans.find((p) => p.source === source);
    const record = plan ? skip.record(source, plan, planned.pinnedServiceIPs[source]) : state!.sources![source]!;
    sourceRecords[source] = record;
    for (const d of plan ? (plan.warnings ?? []) : (record.warnings ?? [])) diagnostics.push(d);
  }
  return { planned, partial, skipped, diagnostics, sourceRecords };
}

/** Each partial source with the families it planned: its changed targets', and `shared` unless it was kept. */
function plannedFamilies(planned: FleetPlan, partial: ReadonlyMap<string, PartialSource>): Map<string, string[]> {
  return new Map(planned.plans.filter((p) => p.keptFamilies).map((p) => [p.source, [...[...partial.get(p.source)!.input.changedTargets].map((t) => unitFamily(t)), ...(p.keptFamilies!.includes(unitFamily(undefined)) ? [] : [unitFamily(undefined)])].sort(compareStrings)]));
}

/** What rendering the clusters fills in. */
interface TreeOutput {
  readonly tree: FileTree;
  readonly units: Record<string, Record<string, UnitRecord>>;
  readonly rendered: Set<string>;
  readonly objectCounts: Map<string, number>;
}

/** What every cluster of one {@link compileFleetTree} is rendered with, and into. */
interface TreeRender {
  readonly inputs: UnitInputs;
  readonly props: CompileTreeProps;
  /** The unit records of the output now (the lock's, or adopted from the committed folder names). */
  readonly records: UnitRecords;
  readonly readerRbac: ReadonlyMap<string, readonly Chart[]>;
  readonly output: TreeOutput;
}

/** A source not planned: kept whole, its unit folders neither rendered nor read; its kustomization.yaml (listing them) is compared. */
function keepWholeCluster(context: TreeRender, cluster: string): void {
  const recorded = context.records[cluster] ?? {};
  context.output.units[cluster] = recorded as Record<string, UnitRecord>;
  const kustomization = clusterKustomizationFile(Object.keys(recorded));
  if (context.props.sink) context.props.sink(cluster, new Map([[KUSTOMIZATION_FILE, kustomization]]), Object.keys(recorded));
  else context.output.tree.set(`${cluster}/kustomization.yaml`, kustomization);
}

/** The unit records and names of one cluster that are kept as they are, as its rendering goes. */
interface ClusterKeep {
  /** `unit` → record of every unit of the cluster so far. */
  readonly clusterUnits: Record<string, UnitRecord>;
  /** The units kept unread and unwritten. */
  readonly kept: string[];
}

/** Renders the units of `cluster` whose family changed (or whose folder is not intact), keeping the others. */
function renderCluster(context: TreeRender, cluster: string, plan: SourcePlan | undefined): void {
  const { props, output } = context;
  const { state, sink } = props;
  const recorded = context.records[cluster] ?? {};
  const keep: ClusterKeep = { clusterUnits: {}, kept: [] };
  if (plan?.keptFamilies) keepPartialPlanFamilies(context, cluster, plan, keep);
  const families = familiesOf(plan);
  const digests = keepIntactFamilies(context, { cluster, plan, families }, keep);
  // Rendered one family at a time (render-units.ts), so memory is bounded by a family, not a source.
  const source = plan ? { cluster, namespaces: plan.namespaces, units: [...families.values()].flat(), pinnedIPs: plan.pinnedIPs } : undefined;
  const fresh = new Map<string, Omit<UnitRecord, 'inputs'>>();
  const inputsOf = (unit: string): { inputs?: string } => {
    const family = parseUnitName(unit)?.family;
    const digest = family !== undefined ? digests.get(family) : undefined;
    return digest !== undefined ? { inputs: digest } : {};
  };
  // A unit rendered to the very object files its intact folder holds (one shard of a family whose
  // other shards changed) is kept as it is: neither read nor written, its record kept.
  const sameContent: string[] = [];
  const unchanged = (unit: string, content: string): boolean => {
    const old = recorded[unit];
    if (!state?.intact || old?.content !== content || !state.intact(cluster, unit, old.files)) return false;
    keep.clusterUnits[unit] = { ...old, ...inputsOf(unit) };
    sameContent.push(unit);
    return true;
  };
  const counted = (unit: string, objects: number): void => void output.objectCounts.set(`${cluster}/${unit}`, objects);
  const files = renderClusterUnits(source, context.readerRbac.get(cluster) ?? [], { previousShards: previousShardCounts(Object.keys(recorded)), maxObjects: props.maxUnitObjects }, { keptUnits: keep.kept, records: fresh, unchanged, counted });
  appendAll(keep.kept, sameContent);
  for (const [unit, record] of fresh) {
    keep.clusterUnits[unit] = { ...inputsOf(unit), ...record };
    output.rendered.add(`${cluster}/${unit}`);
  }
  output.units[cluster] = Object.fromEntries(Object.entries(keep.clusterUnits).sort(([a], [b]) => compareStrings(a, b)));
  if (sink) {
    sink(cluster, files, keep.kept, knownFiles(files, state && changedPartsOf({ cluster, recorded, fresh }, state)));
    return;
  }
  for (const [rel, content] of files) {
    const key = `${cluster}/${rel}`;
    // An unchanged file keeps the text already read from disk, so the new copy is garbage at once.
    const old = props.previous?.get(key);
    output.tree.set(key, old === content ? old : content);
  }
}

/** The planned mirrors of a source grouped by unit family, in the order planned. */
function familiesOf(plan: SourcePlan | undefined): Map<string, MirrorUnit[]> {
  const families = new Map<string, MirrorUnit[]>();
  for (const unit of plan?.units ?? []) {
    const family = unitFamily(unit.target);
    let list = families.get(family);
    if (!list) families.set(family, (list = []));
    list.push(unit);
  }
  return families;
}

/** A partial plan's kept families: their records (checked intact before planning) stay as the lock has them. */
function keepPartialPlanFamilies(context: TreeRender, cluster: string, plan: SourcePlan, keep: ClusterKeep): void {
  const keptFamilies = new Set(plan.keptFamilies);
  // A kept `shared` (the changed links planned alone) records the digest a full plan gives it: its
  // mirrors are the recorded ones, but its digest also covers every target's observation.
  const sharedMembers = keptFamilies.has(SHARED_FAMILY) ? context.props.state?.sources?.[cluster]?.families?.sharedMembers : undefined;
  const sharedInputs = sharedMembers !== undefined ? context.inputs.familyOf({ source: cluster, family: SHARED_FAMILY, target: undefined }, sharedMembers, plan.pinnedIPs) : undefined;
  for (const [name, r] of Object.entries(context.records[cluster] ?? {})) {
    const family = parseUnitName(name)?.family;
    if (family === undefined || !keptFamilies.has(family)) continue;
    keep.clusterUnits[name] = family === SHARED_FAMILY && sharedInputs !== undefined ? { ...r, inputs: sharedInputs } : r;
    keep.kept.push(name);
  }
}

/** The planned families of one cluster (`families` is emptied of those kept). */
interface PlannedFamilies {
  readonly cluster: string;
  readonly plan: SourcePlan | undefined;
  readonly families: Map<string, MirrorUnit[]>;
}

/**
 * Each planned family's input digest; a family whose inputs did not change and whose folders are
 * intact is kept as it is (its records into `keep`, itself out of `families`).
 */
function keepIntactFamilies(context: TreeRender, planned: PlannedFamilies, keep: ClusterKeep): Map<string, string> {
  const { cluster, plan, families } = planned;
  const state = context.props.state;
  const recorded = context.records[cluster] ?? {};
  const digests = new Map<string, string>();
  for (const [family, members] of families) {
    const digest = context.inputs.family({ source: cluster, family, target: members[0]!.target }, members, plan?.pinnedIPs ?? {});
    digests.set(family, digest);
    const shards = Object.entries(recorded).filter(([name]) => parseUnitName(name)?.family === family);
    if (!state?.intact || shards.length === 0) continue;
    if (shards.every(([name, r]) => r.inputs === digest && state.intact!(cluster, name, r.files))) {
      for (const [name, r] of shards) {
        keep.clusterUnits[name] = r;
        keep.kept.push(name);
      }
      families.delete(family);
    }
  }
  return digests;
}

/** The units of one cluster rendered now, with the records they had. */
interface RenderedUnits {
  readonly cluster: string;
  readonly recorded: Readonly<Record<string, UnitRecord>>;
  readonly fresh: ReadonlyMap<string, Omit<UnitRecord, 'inputs'>>;
}

/**
 * Of each changed unit on an intact folder, the parts whose digest changed: a part whose digest did
 * not change holds on disk the very object files rendered for it (its digest covers their paths and
 * texts), so only the others (and the unit's kustomization.yaml, which no part covers) are read.
 */
function changedPartsOf(units: RenderedUnits, state: PreviousUnits): Map<string, ReadonlySet<number>> {
  const changedParts = new Map<string, ReadonlySet<number>>();
  for (const [unit, record] of units.fresh) {
    const old = units.recorded[unit];
    if (state.intact && old?.parts !== undefined && record.parts !== undefined && state.intact(units.cluster, unit, old.files)) changedParts.set(unit, differingParts(old.parts, record.parts));
  }
  return changedParts;
}

/** The paths of `files` known to be on disk as rendered: the object files of a changed unit's unchanged parts. */
function knownFiles(files: ReadonlyMap<string, string>, changedParts: ReadonlyMap<string, ReadonlySet<number>> | undefined): Set<string> {
  const known = new Set<string>();
  if (!changedParts || changedParts.size === 0) return known;
  for (const path of files.keys()) {
    const slash = path.indexOf('/');
    const parts = slash < 0 ? undefined : changedParts.get(path.slice(0, slash));
    const rel = path.slice(slash + 1);
    if (parts && rel !== KUSTOMIZATION_FILE && !parts.has(filePart(rel))) known.add(path);
  }
  return known;
}

/**
 * The files `mirrorc synth --offline` writes for `fleet` and `snapshot`, byte for byte. No clock,
 * network or user file is read; with a GitOpsDelivery, mirrorc's bundled stock `argocd-cm` is.
 * @throws CompileError when the fleet cannot be compiled
 * @throws FleetDefinitionError when the fleet definition is invalid
 */
export function synthFleet(props: SynthFleetProps): FleetFiles {
  const spec = props.fleet.toSpec();
  // The library is given the committed output itself: its unit records are adopted from it.
  const records = treeUnitRecords(props.previous ?? new Map());
  const compiled = compileFleetTree(spec, props.snapshot, {
    strict: props.strict ?? false,
    previousOwners: recordOwnerLookup(records),
    previousMirrors: recordMirrorLookup(records),
  }, { ...(props.previous ? { previous: props.previous } : {}), state: { records } });
  const delivery = deliveryTree(spec, compiled.tree);
  // Every unit is rendered here: each family is counted as rendered, no folder is read.
  const oversized = spec.delivery?.argoCd ? oversizedFamilies({ units: compiled.units, rendered: (cluster, unit) => compiled.objectCounts.get(`${cluster}/${unit}`), onDisk: () => 0 }) : [];
  const diagnostics = [...compiled.diagnostics, ...deliveryDiagnostics(spec), ...oversized.map((f) => diagnostic(Diag.ARGOCD_APPLICATION_TOO_LARGE, oversizedFamilyMessage(f), { cluster: f.cluster }))];
  return {
    output: compiled.tree,
    ...(delivery ? { delivery } : {}),
    lock: renderLockFile(compiled.snapshot, compiled.units, compiled.sources),
    warnings: messages(diagnostics),
    diagnostics,
  };
}

/** The lock to write: the snapshot plus compile's pinned IPs (left out entirely while there are none). */
export function withPinnedServiceIPs(snapshot: FleetSnapshot, pinned: FleetSnapshot['pinnedServiceIPs']): FleetSnapshot {
  const { pinnedServiceIPs: _previous, ...rest } = snapshot;
  return pinned && Object.keys(pinned).length > 0 ? { ...rest, pinnedServiceIPs: pinned } : rest;
}
