/**
 * The library's synth: a fleet and its lock → the very files `mirrorc synth --offline` writes
 * (`dist/<cluster>/` with kustomization.yaml and the reader RBAC, `delivery/`, the lock). Pure: no
 * clock, network or file access. The CLI's run compiles through {@link compileFleetTree} as well.
 */
import { App } from 'cdk8s';
import { planFleet, sourceChart, type CompileOptions } from '../compile/compile-fleet.js';
import { compareStrings } from '../util/order.js';
import { previousMirrorLookup, previousOwnerLookup } from '../emit/previous-owners.js';
import type { FileTree } from '../emit/render-files.js';
import { renderClusterUnits, unitFoldersByCluster } from '../emit/render-units.js';
import { previousShardCounts } from '../delivery/delivery-units.js';
import type { Fleet } from '../model/fleet.js';
import type { FleetSpec } from '../model/fleet-spec.js';
import { renderLockFile } from '../observe/lock-file.js';
import type { FleetSnapshot } from '../snapshot/snapshot.js';
import { addReaderRbacCharts, chartsByCluster, deliveryTree } from './synth-delivery.js';
import { messages, type Diagnostic } from '../diagnostics/diagnostic.js';
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
  /** `<cluster>/<file>` → text, every compiled folder. */
  readonly tree: FileTree;
  /** The snapshot with compile's pinned ClusterIPs (what the lock records). */
  readonly snapshot: FleetSnapshot;
  readonly warnings: readonly string[];
  /** The warnings as coded data. */
  readonly diagnostics: readonly Diagnostic[];
  /** What `plan` prints besides file changes (trust anchors, renamed exports, generic gateway ports, MCS imports). */
  readonly planRows: readonly string[];
}

/**
 * Compiles `spec` from `snapshot` and renders every cluster folder.
 * @param onCompiled called between compiling and rendering (stage timing). @default none
 * @param previous the output as committed now: an unchanged file reuses its text (memory only), and each unit family keeps at least its shard count. @default none
 * @param maxUnitObjects the most objects of one delivery unit @default MAX_UNIT_OBJECTS (500)
 * @throws CompileError when the fleet cannot be compiled; nothing is rendered then
 */
export function compileFleetTree(spec: FleetSpec, snapshot: FleetSnapshot, options: CompileOptions, onCompiled?: () => void, previous?: ReadonlyMap<string, string>, maxUnitObjects?: number): CompiledTree {
  const planned = planFleet(spec, snapshot, options);
  const pinned = withPinnedServiceIPs(snapshot, planned.pinnedServiceIPs);
  onCompiled?.();
  const tree: FileTree = new Map();
  // Every observed cluster's folder also holds the reader identity that observation needs there.
  const readerRbac = chartsByCluster(addReaderRbacCharts(new App({ outdir: 'unused' }), spec));
  const plans = new Map(planned.plans.map((plan) => [plan.source, plan]));
  // A family's shard count never shrinks: the committed folder names say how many it has now.
  const previousUnits = unitFoldersByCluster(previous ?? new Map());
  for (const cluster of [...new Set([...plans.keys(), ...readerRbac.keys()])].sort(compareStrings)) {
    const plan = plans.get(cluster);
    // One source's constructs at a time, in an app of its own: they are garbage once its files are
    // rendered, so a large fleet's memory is bounded by its largest source.
    const chart = plan ? sourceChart(new App({ outdir: 'unused' }), plan) : undefined;
    const files = renderClusterUnits(chart, readerRbac.get(cluster) ?? [], previousShardCounts(previousUnits.get(cluster) ?? []), maxUnitObjects);
    for (const [rel, content] of files) {
      const key = `${cluster}/${rel}`;
      // An unchanged file keeps the text already read from disk, so the new copy is garbage at once
      // (a no-change run of a large fleet would otherwise hold every file twice).
      const old = previous?.get(key);
      tree.set(key, old === content ? old : content);
    }
  }
  return { tree, snapshot: pinned, warnings: planned.warnings, diagnostics: planned.diagnostics, planRows: planned.planRows };
}

/**
 * The files `mirrorc synth --offline` writes for `fleet` and `snapshot`, byte for byte.
 * @throws CompileError when the fleet cannot be compiled
 * @throws FleetDefinitionError when the fleet definition is invalid
 */
export function synthFleet(props: SynthFleetProps): FleetFiles {
  const spec = props.fleet.toSpec();
  const compiled = compileFleetTree(spec, props.snapshot, {
    strict: props.strict ?? false,
    previousOwners: previousOwnerLookup(props.previous ?? new Map()),
    previousMirrors: previousMirrorLookup(props.previous ?? new Map()),
  }, undefined, props.previous);
  const delivery = deliveryTree(spec, compiled.tree);
  const diagnostics = [...compiled.diagnostics, ...deliveryDiagnostics(spec)];
  return {
    output: compiled.tree,
    ...(delivery ? { delivery } : {}),
    lock: renderLockFile(compiled.snapshot),
    warnings: messages(diagnostics),
    diagnostics,
  };
}

/** The lock to write: the snapshot plus compile's pinned IPs (left out entirely while there are none). */
export function withPinnedServiceIPs(snapshot: FleetSnapshot, pinned: FleetSnapshot['pinnedServiceIPs']): FleetSnapshot {
  const { pinnedServiceIPs: _previous, ...rest } = snapshot;
  return pinned && Object.keys(pinned).length > 0 ? { ...rest, pinnedServiceIPs: pinned } : rest;
}
