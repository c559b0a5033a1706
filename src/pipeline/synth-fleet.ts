/**
 * The library's synth: a fleet and its lock → the very files `mirrorc synth --offline` writes
 * (`dist/<cluster>/` with kustomization.yaml and the reader RBAC, `delivery/`, the lock). It reads no
 * clock, no network and none of the user's files; with a GitOpsDelivery it reads one file of mirrorc's
 * own package, the bundled stock `argocd-cm` (see stock-argocd-cm.ts). The CLI's run compiles through
 * {@link compileFleetTree} as well.
 */
import { App } from 'cdk8s';
import { planFleet, type CompileOptions } from '../compile/compile-fleet.js';
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

/**
 * Compiles `spec` from `snapshot` and renders every cluster folder, or with `state.intact` only the
 * unit families whose inputs changed (or whose folder is not intact).
 * @param onCompiled called between compiling and rendering (stage timing). @default none
 * @param previous the output as committed now, when the caller has it: an unchanged file reuses its text (memory only). @default none
 * @param maxUnitObjects the most objects of one delivery unit @default MAX_UNIT_OBJECTS (500)
 * @param state the lock's unit records and the integrity check. @default none: every unit rendered, shard counts from `previous`
 * @param sink given each cluster's rendered folder (paths relative to it) and its kept units as soon as it is rendered, instead of the returned `tree` (which stays empty): the caller streams them. @default none: every folder in `tree`
 * @throws CompileError when the fleet cannot be compiled; nothing is rendered then
 */
export function compileFleetTree(spec: FleetSpec, snapshot: FleetSnapshot, options: CompileOptions, onCompiled?: () => void, previous?: ReadonlyMap<string, string>, maxUnitObjects?: number, state?: PreviousUnits, sink?: RenderedClusterSink): CompiledTree {
  const inputs = new UnitInputs(spec, snapshot, VERSION, maxUnitObjects ?? MAX_UNIT_OBJECTS);
  // A source whose planning inputs did not change and whose folders are intact is not planned at all.
  const skip = new SourceSkip(inputs, snapshot, options, state);
  const sources = sortedUnique(spec.links.map((l) => l.source)).filter((s) => !options.sources || options.sources.has(s));
  const skipped = new Set(sources.filter((s) => skip.skippable(s)));
  // A source whose inputs changed only in some targets' observations plans only those targets' families (family-plan.ts).
  const partial = new Map<string, PartialSource>();
  for (const source of sources) {
    if (skipped.has(source)) continue;
    const p = partialSource(source, inputs, snapshot, options.strict ?? false, state, skip);
    if (p) partial.set(source, p);
  }
  const recording = skip.recordingOptions(skipped);
  const planned = planFleet(spec, snapshot, partial.size > 0 ? { ...recording, partial: new Map([...partial].map(([s, p]) => [s, p.input])) } : recording);
  for (const plan of planned.plans) if (plan.keptFamilies) skip.carryEstablished(plan.source, partial.get(plan.source)!.established);
  const pinned = withPinnedServiceIPs(snapshot, planned.pinnedServiceIPs);
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
  onCompiled?.();
  const tree: FileTree = new Map();
  const units: Record<string, Record<string, UnitRecord>> = {};
  const rendered = new Set<string>();
  const objectCounts = new Map<string, number>();
  // Every observed cluster's folder also holds the reader identity that observation needs there.
  const readerRbac = chartsByCluster(addReaderRbacCharts(new App({ outdir: 'unused' }), spec));
  const plans = new Map(planned.plans.map((plan) => [plan.source, plan]));
  // A family's shard count never shrinks: the lock's records (or the committed folder names) say how many it has now.
  const records = state?.records ?? treeUnitRecords(new Map([...(previous ?? new Map<string, string>()).keys()].filter((k) => k.endsWith('/kustomization.yaml')).map((k) => [k, ''])));
  for (const cluster of [...new Set([...plans.keys(), ...readerRbac.keys(), ...skipped])].sort(compareStrings)) {
    const recorded = records[cluster] ?? {};
    if (skipped.has(cluster)) {
      // Kept whole: its unit folders are neither rendered nor read; its kustomization.yaml (listing them) is compared.
      units[cluster] = recorded as Record<string, UnitRecord>;
      const kustomization = clusterKustomizationFile(Object.keys(recorded));
      if (sink) sink(cluster, new Map([[KUSTOMIZATION_FILE, kustomization]]), Object.keys(recorded));
      else tree.set(`${cluster}/kustomization.yaml`, kustomization);
      continue;
    }
    const plan = plans.get(cluster);
    const clusterUnits: Record<string, UnitRecord> = {};
    // Group the planned mirrors by family; a family whose inputs did not change and whose folders are intact is kept as it is.
    const families = new Map<string, MirrorUnit[]>();
    for (const unit of plan?.units ?? []) {
      const family = unitFamily(unit.target);
      let list = families.get(family);
      if (!list) families.set(family, (list = []));
      list.push(unit);
    }
    const digests = new Map<string, string>();
    const kept: string[] = [];
    // A partial plan's kept families: their records (checked intact before planning) stay as the lock has them.
    if (plan?.keptFamilies) {
      const keptFamilies = new Set(plan.keptFamilies);
      // A kept `shared` (the changed links planned alone) records the digest a full plan gives it: its
      // mirrors are the recorded ones, but its digest also covers every target's observation.
      const sharedMembers = keptFamilies.has(SHARED_FAMILY) ? state?.sources?.[cluster]?.families?.sharedMembers : undefined;
      const sharedInputs = sharedMembers !== undefined ? inputs.familyOf(cluster, SHARED_FAMILY, undefined, sharedMembers, plan.pinnedIPs) : undefined;
      for (const [name, r] of Object.entries(recorded)) {
        const family = parseUnitName(name)?.family;
        if (family === undefined || !keptFamilies.has(family)) continue;
        clusterUnits[name] = family === SHARED_FAMILY && sharedInputs !== undefined ? { ...r, inputs: sharedInputs } : r;
        kept.push(name);
      }
    }
    for (const [family, members] of families) {
      const digest = inputs.family(cluster, family, members[0]!.target, members, plan?.pinnedIPs ?? {});
      digests.set(family, digest);
      const shards = Object.entries(recorded).filter(([name]) => parseUnitName(name)?.family === family);
      if (!state?.intact || shards.length === 0) continue;
      if (shards.every(([name, r]) => r.inputs === digest && state.intact!(cluster, name, r.files))) {
        for (const [name, r] of shards) {
          clusterUnits[name] = r;
          kept.push(name);
        }
        families.delete(family);
      }
    }
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
      clusterUnits[unit] = { ...old, ...inputsOf(unit) };
      sameContent.push(unit);
      return true;
    };
    const counted = (unit: string, objects: number): void => void objectCounts.set(`${cluster}/${unit}`, objects);
    const files = renderClusterUnits(source, readerRbac.get(cluster) ?? [], previousShardCounts(Object.keys(recorded)), maxUnitObjects, { keptUnits: kept, records: fresh, unchanged, counted });
    appendAll(kept, sameContent);
    const changedParts = new Map<string, ReadonlySet<number>>();
    for (const [unit, record] of fresh) {
      clusterUnits[unit] = { ...inputsOf(unit), ...record };
      rendered.add(`${cluster}/${unit}`);
      // Of a changed unit on an intact folder, a part whose digest did not change holds on disk the
      // very object files rendered for it (its digest covers their paths and texts): only the others
      // (and the unit's kustomization.yaml, which no part covers) are read.
      const old = recorded[unit];
      if (sink && state?.intact && old?.parts !== undefined && record.parts !== undefined && state.intact(cluster, unit, old.files)) changedParts.set(unit, differingParts(old.parts, record.parts));
    }
    const known = new Set<string>();
    if (changedParts.size > 0) {
      for (const path of files.keys()) {
        const slash = path.indexOf('/');
        const parts = slash < 0 ? undefined : changedParts.get(path.slice(0, slash));
        const rel = path.slice(slash + 1);
        if (parts && rel !== KUSTOMIZATION_FILE && !parts.has(filePart(rel))) known.add(path);
      }
    }
    units[cluster] = Object.fromEntries(Object.entries(clusterUnits).sort(([a], [b]) => compareStrings(a, b)));
    if (sink) {
      sink(cluster, files, kept, known);
      continue;
    }
    for (const [rel, content] of files) {
      const key = `${cluster}/${rel}`;
      // An unchanged file keeps the text already read from disk, so the new copy is garbage at once.
      const old = previous?.get(key);
      tree.set(key, old === content ? old : content);
    }
  }
  // Each partial source with the families it planned: its changed targets', and `shared` unless it was kept.
  const partialSources = new Map(planned.plans.filter((p) => p.keptFamilies).map((p) => [p.source, [...[...partial.get(p.source)!.input.changedTargets].map((t) => unitFamily(t)), ...(p.keptFamilies!.includes(unitFamily(undefined)) ? [] : [unitFamily(undefined)])].sort(compareStrings)]));
  return { tree, snapshot: pinned, warnings: messages(diagnostics), diagnostics, planRows: planned.planRows, units, rendered, objectCounts, sources: sourceRecords, skippedSources: skipped, partialSources };
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
  }, undefined, props.previous, undefined, { records });
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
