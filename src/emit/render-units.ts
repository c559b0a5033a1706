/**
 * Renders one cluster's folder as delivery units (src/delivery/delivery-units.ts):
 *
 * ```
 * <cluster>/kustomization.yaml                 # the unit folders: the whole cluster, for tools that still sync the folder
 * <cluster>/base/kustomization.yaml            # Namespaces synth creates, the reader identity
 * <cluster>/from-<target>[.<k>]/kustomization.yaml
 * <cluster>/from-<target>[.<k>]/<namespace>/<kind>-<name>.yaml
 * <cluster>/shared[.<k>]/…                      # -global, federated, MCS ServiceImport
 * ```
 *
 * Every shard of a family is written, empty ones included, so the shard count can be read back
 * from the folder names and never shrinks by accident.
 */
import { ApiObject, type Chart } from 'cdk8s';
import type { SourceChart } from '../compile/source-chart.js';
import { BASE_UNIT, MAX_UNIT_OBJECTS, shardCount, shardName, shardOf, unitFamily, type UnitMember } from '../delivery/delivery-units.js';
import { compareStrings } from '../util/order.js';
import { chartObjects, GENERATED_HEADER, objectPath, renderWritable, stringifyYaml, type FileTree } from './render-files.js';
import { appendAll } from '../util/append-all.js';
import { objectJson } from './object-json.js';
import type { UnitRecord } from '../state/lock-document.js';
import { filesRecord, objectInventory } from '../state/unit-inventory.js';

type K8sObject = ReturnType<Chart['toJson']>[number];

/** The objects of one cluster folder, grouped into units before rendering. */
interface Family {
  readonly members: (UnitMember & { readonly rendered: K8sObject[] })[];
}

/**
 * The files of one cluster's folder (paths relative to it).
 * @param source the cluster's mirrors, when it is some link's source: one chart, or several charts
 *   created one after the other (a family's units never split over two), each rendered to text and
 *   dropped before the next is created, so only one family's constructs are alive at a time
 * @param baseCharts charts whose objects all go to the base unit (the reader identity)
 * @param previousShards the shard count of each family in the committed folder (see previousShardCounts)
 * @param maxObjects the most objects per unit @default MAX_UNIT_OBJECTS
 */
export function renderClusterUnits(source: SourceChart | Iterable<SourceChart> | undefined, baseCharts: readonly Chart[], previousShards: ReadonlyMap<string, number>, maxObjects = MAX_UNIT_OBJECTS, rest: RenderRest = {}): FileTree {
  const files: FileTree = new Map();
  const unitNames: string[] = [];
  const base: K8sObject[] = [];
  let cluster = (baseCharts[0] as (Chart & { cluster?: string }) | undefined)?.cluster ?? '';
  const writeUnit = (unit: string, objects: readonly K8sObject[]): void => {
    const resources: string[] = [];
    const sizes: [string, number][] = [];
    for (const object of objects) {
      const rel = objectPath(object);
      const path = `${unit}/${rel}`;
      if (files.has(path)) throw new Error(`internal error: two objects would be written to ${cluster}/${path}`);
      const text = renderWritable(`${cluster}/${path}`, object);
      files.set(path, text);
      resources.push(rel);
      sizes.push([rel, Buffer.byteLength(text)]);
    }
    const kustomization = kustomizationFile(resources);
    files.set(`${unit}/kustomization.yaml`, kustomization);
    sizes.push(['kustomization.yaml', Buffer.byteLength(kustomization)]);
    rest.records?.set(unit, { files: filesRecord(sizes), ...objectInventory(objects) });
    unitNames.push(unit);
  };
  const charts: Iterable<SourceChart> = source === undefined ? [] : isSourceChart(source) ? [source] : source;
  for (const chart of charts) {
    cluster = chart.cluster;
    // The chart's own objects are its Namespaces; every mirror unit renders under a scope of its own.
    for (const child of chart.node.children) if (ApiObject.isApiObject(child)) base.push(objectJson(child));
    const families = new Map<string, Family>();
    for (const { unit, scope } of chart.unitScopes) {
      const rendered = scope.node.findAll().filter(ApiObject.isApiObject).map(objectJson);
      const family = unitFamily(unit.target);
      let f = families.get(family);
      if (!f) families.set(family, (f = { members: [] }));
      f.members.push({ key: `${unit.namespace}/${unit.serviceNames[0] ?? unit.origin}`, objects: rendered.length, rendered });
    }
    for (const [family, { members }] of families) {
      const n = shardCount(members, previousShards.get(family), maxObjects);
      const shards: K8sObject[][] = Array.from({ length: n }, () => []);
      for (const m of members) appendAll(shards[shardOf(m.key, n)]!, m.rendered);
      shards.forEach((objects, i) => writeUnit(shardName(family, i), objects));
    }
  }
  for (const chart of baseCharts) appendAll(base, chartObjects(chart));
  writeUnit(BASE_UNIT, base);
  files.set('kustomization.yaml', kustomizationFile([...unitNames, ...(rest.keptUnits ?? [])]));
  return new Map([...files.entries()].sort(([a], [b]) => compareStrings(a, b)));
}

function isSourceChart(source: SourceChart | Iterable<SourceChart>): source is SourceChart {
  return (source as SourceChart).unitScopes !== undefined;
}

/** What else {@link renderClusterUnits} does for an incremental run. */
export interface RenderRest {
  /** Unit folders kept as they are (skipped: inputs unchanged): listed by the cluster's kustomization.yaml, not rendered. @default none */
  readonly keptUnits?: readonly string[];
  /** Filled with the record (files and inventory, no input digest) of every rendered unit. @default not recorded */
  readonly records?: Map<string, Omit<UnitRecord, 'inputs'>>;
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
    if (parts.length !== 3 || parts[2] !== 'kustomization.yaml') continue;
    let units = out.get(parts[0]!);
    if (!units) out.set(parts[0]!, (units = new Set()));
    units.add(parts[1]!);
  }
  return out;
}
