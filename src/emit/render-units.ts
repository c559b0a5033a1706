/**
 * Renders one cluster's folder as delivery units (src/delivery/delivery-units.ts):
 *
 * ```
 * <cluster>/kustomization.yaml                 # the unit folders: the whole cluster, for tools that still sync the folder
 * <cluster>/base/kustomization.yaml            # Namespaces synth creates, the reader identity
 * <cluster>/from-<target>[.<k>]/kustomization.yaml
 * <cluster>/from-<target>[.<k>]/<namespace>/<kind>-<name>.yaml   # one file per mirror, named after its first object
 * <cluster>/shared[.<k>]/…                      # -global, federated, MCS ServiceImport
 * ```
 *
 * Every shard of a family is written, empty ones included, so the shard count can be read back
 * from the folder names and never shrinks by accident.
 *
 * A mirror's objects (its Service, then its Endpoints and EndpointSlices, or a ServiceImport and
 * its slices) are the documents of one file, named as its first object's file would be
 * (`service-<name>.yaml`): a mirror is added, changed and removed as one file, and a 20 × 500 mesh
 * is 175,302 files instead of 545,801 (each one a stat of every run's integrity check). The own-pod
 * Services a source adds to a `-global` Service are one unit, so one file, named after the first of
 * them. The base unit's objects (Namespaces, reader RBAC) have a file each.
 */
import type { Chart } from 'cdk8s';
import type { KubeObject } from '../compile/kube-objects.js';
import type { MirrorUnit } from '../compile/mirror-unit.js';
import { renderContext, sourceNamespaceObject } from '../compile/source-chart.js';
import { BASE_UNIT, MAX_UNIT_OBJECTS, shardCount, shardName, shardOf, unitFamily, type UnitMember } from '../delivery/delivery-units.js';
import { compareStrings } from '../util/order.js';
import { chartObjects, GENERATED_HEADER, KUSTOMIZATION_FILE, objectPath, renderWritableObjects, stringifyYaml, type FileTree } from './render-files.js';
import { appendAll } from '../util/append-all.js';
import type { UnitRecord } from '../state/lock-document.js';
import { filesRecord, inventoryEntry, inventoryOf, textDigest, unitContent, type InventoryEntry } from '../state/unit-inventory.js';

type K8sObject = ReturnType<Chart['toJson']>[number] | KubeObject;

/** A file of objects (a mirror's, or one object's): its path in the unit folder, its text, the text's size in bytes and digest, and what its objects add to the unit's inventory. */
interface ObjectFile {
  readonly rel: string;
  readonly text: string;
  readonly bytes: number;
  readonly digest: string;
  readonly entries: readonly (InventoryEntry | undefined)[];
}

/** The objects of one file, in order (a mirror's, or one object of the base unit). */
type FileObjects = readonly K8sObject[];

/**
 * The file of each group of frozen (shared, immutable) objects already rendered, by its first
 * object, with the objects it was rendered from: a file is reused only for the very same objects.
 */
const sharedFiles = new WeakMap<object, { readonly objects: FileObjects; readonly file: ObjectFile }>();

/** Whether two groups hold the same objects (by identity), in the same order. */
function sameObjects(a: FileObjects, b: FileObjects): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/** What a source cluster's folder is rendered from: its planned mirrors (src/compile/compile-fleet.ts SourcePlan). */
export interface SourceUnits {
  /** The source cluster. */
  readonly cluster: string;
  /** Namespaces synth creates in it (written to the base unit), sorted. */
  readonly namespaces: readonly string[];
  /** The mirror units to render, in plan order (every unit of a family is rendered together). */
  readonly units: readonly MirrorUnit[];
  /** `namespace/name` → ClusterIP pinned for the units' per-pod Services. */
  readonly pinnedIPs: Readonly<Record<string, string>>;
}

/** How the families of a cluster are split into units (shards). */
export interface UnitSharding {
  /** The shard count of each family in the committed folder (see previousShardCounts): it never shrinks. */
  readonly previousShards: ReadonlyMap<string, number>;
  /** The most objects per unit. @default MAX_UNIT_OBJECTS */
  readonly maxObjects?: number | undefined;
}

/**
 * The files of one cluster's folder (paths relative to it).
 * @param source the cluster's mirrors, when it is some link's source. Each family's objects are
 *   computed straight from its units (src/compile/kube-objects.ts: no constructs, no resolve),
 *   rendered to text and dropped before the next family's, so only one family's objects are alive at a time
 * @param baseCharts charts whose objects all go to the base unit (the reader identity)
 */
export function renderClusterUnits(source: SourceUnits | undefined, baseCharts: readonly Chart[], sharding: UnitSharding, rest: RenderRest = {}): FileTree {
  const { previousShards, maxObjects = MAX_UNIT_OBJECTS } = sharding;
  const files: FileTree = new Map();
  const unitNames: string[] = [];
  const base: K8sObject[] = [];
  const cluster = source?.cluster ?? (baseCharts[0] as (Chart & { cluster?: string }) | undefined)?.cluster ?? '';
  const writeUnit = (unit: string, groups: readonly FileObjects[]): void => {
    unitNames.push(unit);
    const unitFiles: ObjectFile[] = [];
    const seen = new Set<string>();
    for (const objects of groups) {
      const first = objects[0];
      if (first === undefined) continue;
      // Files are named after their first object: the others are checked here to be each written once.
      for (const o of objects) {
        const key = `${o.kind}/${o.metadata.namespace ?? ''}/${o.metadata.name}`;
        if (seen.has(key)) throw new Error(`internal error: two objects ${key} would be written to ${cluster}/${unit}`);
        seen.add(key);
      }
      // Frozen objects are shared by the mirrors of several sources (PlanMemo.sharedObjects): their file is rendered once.
      const shared = objects.every((o) => Object.isFrozen(o));
      const memo = shared ? sharedFiles.get(first) : undefined;
      let file = memo && sameObjects(memo.objects, objects) ? memo.file : undefined;
      if (!file) {
        const rel = objectPath(first);
        const text = renderWritableObjects(`${cluster}/${unit}/${rel}`, objects);
        file = { rel, text, bytes: Buffer.byteLength(text), digest: textDigest(text), entries: objects.map(inventoryEntry) };
        if (shared) sharedFiles.set(first, { objects, file });
      }
      unitFiles.push(file);
    }
    rest.counted?.(unit, groups.reduce((n, objects) => n + objects.length, 0));
    const { content, parts } = unitContent(unitFiles.map((f) => [f.rel, f.bytes, f.digest] as const));
    // A unit whose object files are those its intact folder holds is neither written nor recorded again.
    if (rest.unchanged?.(unit, content)) return;
    const resources: string[] = [];
    const sizes: [string, number][] = [];
    for (const file of unitFiles) {
      const path = `${unit}/${file.rel}`;
      if (files.has(path)) throw new Error(`internal error: two objects would be written to ${cluster}/${path}`);
      files.set(path, file.text);
      resources.push(file.rel);
      sizes.push([file.rel, file.bytes]);
    }
    const kustomization = kustomizationFile(resources);
    files.set(`${unit}/${KUSTOMIZATION_FILE}`, kustomization);
    sizes.push([KUSTOMIZATION_FILE, Buffer.byteLength(kustomization)]);
    rest.records?.set(unit, { files: filesRecord(sizes), content, parts, ...inventoryOf(unitFiles.flatMap((f) => f.entries)) });
  };
  if (source) {
    for (const ns of source.namespaces) base.push(sourceNamespaceObject(ns));
    const context = renderContext(source.cluster, source.pinnedIPs);
    // The units of each family, in plan order; a family's units are rendered together.
    const families = new Map<string, MirrorUnit[]>();
    for (const unit of source.units) {
      const family = unitFamily(unit.target);
      let list = families.get(family);
      if (!list) families.set(family, (list = []));
      list.push(unit);
    }
    for (const [family, units] of families) {
      const members: (UnitMember & { readonly rendered: readonly KubeObject[] })[] = units.map((unit) => {
        const rendered = unit.objects(context);
        return { key: `${unit.namespace}/${unit.serviceNames[0] ?? unit.origin}`, objects: rendered.length, rendered };
      });
      const n = shardCount(members, previousShards.get(family), maxObjects);
      const shards: FileObjects[][] = Array.from({ length: n }, () => []);
      for (const m of members) shards[shardOf(m.key, n)]!.push(m.rendered);
      shards.forEach((objects, i) => writeUnit(shardName(family, i), objects));
    }
  }
  for (const chart of baseCharts) appendAll(base, chartObjects(chart));
  writeUnit(BASE_UNIT, base.map((object) => [object]));
  files.set(KUSTOMIZATION_FILE, kustomizationFile([...unitNames, ...(rest.keptUnits ?? [])]));
  return new Map([...files.entries()].sort(([a], [b]) => compareStrings(a, b)));
}

/** What else {@link renderClusterUnits} does for an incremental run. */
export interface RenderRest {
  /** Unit folders kept as they are (skipped: inputs unchanged): listed by the cluster's kustomization.yaml, not rendered. @default none */
  readonly keptUnits?: readonly string[];
  /** Filled with the record (files and inventory, no input digest) of every rendered unit. @default not recorded */
  readonly records?: Map<string, Omit<UnitRecord, 'inputs'>>;
  /**
   * Asked of each unit with the `content` digest of its object files: true when its folder holds
   * them already (recorded with that digest, and intact). Such a unit gets no files and no record
   * here: its recorded one stays. @default none is
   */
  readonly unchanged?: (unit: string, content: string) => boolean;
  /** Given the number of objects of every rendered unit, unchanged ones included. @default not counted */
  readonly counted?: (unit: string, objects: number) => void;
}

/** A cluster folder's kustomization.yaml, listing its unit folders `units` (what {@link renderClusterUnits} writes there). */
export function clusterKustomizationFile(units: readonly string[]): string {
  return kustomizationFile(units);
}

/** A kustomization.yaml listing `resources` (sorted). */
function kustomizationFile(resources: readonly string[]): string {
  return GENERATED_HEADER + stringifyYaml({
    apiVersion: 'kustomize.config.k8s.io/v1beta1',
    kind: 'Kustomization',
    resources: [...resources].sort(compareStrings),
  });
}

/** The unit folder names of every cluster in a committed tree: `cluster → unit names`. */
export function unitFoldersByCluster(tree: ReadonlyMap<string, string>): Map<string, Set<string>> {
  const out = new Map<string, Set<string>>();
  for (const path of tree.keys()) {
    const parts = path.split('/');
    if (parts.length !== 3 || parts[2] !== KUSTOMIZATION_FILE) continue;
    let units = out.get(parts[0]!);
    if (!units) out.set(parts[0]!, (units = new Set()));
    units.add(parts[1]!);
  }
  return out;
}
