/**
 * Stage 4, render: the outputs of the run as text, and how they differ from what is committed:
 * the `dist/` files the run replaces (`before`, read from disk: only the rendered units, each
 * cluster's kustomization.yaml and what no kept unit holds) and what they become (`tree`), the
 * `delivery/` tree that follows every cluster's units, and the lock's text. plan and check compare
 * the whole committed output (a shard's folders merged into it).
 */
import { join } from 'node:path';
import { diffTrees, type ClusterChanges } from '../emit/diff-trees.js';
import type { FsHost } from '../emit/fs-host.js';
import { readTree } from '../emit/read-tree.js';
import { isNamespaceFile, type FileTree } from '../emit/render-files.js';
import { renderLockFile } from '../observe/lock-file.js';
import { readReplacedFiles } from '../state/unit-folders.js';
import type { Compiled, CompileState } from './compile-stage.js';
import type { Loaded } from './load-stage.js';
import type { RunContext } from './run-context.js';
import { mergeShardTree } from './shard.js';
import type { StreamedWrite } from './streamed-write.js';
import { deliveryTree } from './synth-delivery.js';
import { Diag } from '../diagnostics/diagnostic-codes.js';
import { diagnostic, type Diagnostic } from '../diagnostics/diagnostic.js';
import { countObjects, oversizedFamilies, oversizedFamilyMessage } from '../delivery/family-size.js';
import { KUSTOMIZATION_FILE } from '../emit/output-names.js';

/** What the render stage hands on. */
export interface Rendered {
  /** The `dist/` files the run replaces or removes, as committed (plan/check: the whole committed output). */
  readonly before: FileTree;
  /** What those files become (plan/check: the whole `dist/` tree). */
  readonly tree: FileTree;
  /** The `delivery/` tree, or undefined when the fleet has no GitOpsDelivery (then `delivery/` is left alone). */
  readonly delivery?: FileTree;
  readonly lockText: string;
  /** Per source folder, the files added, changed and removed against `before`. */
  readonly changes: readonly ClusterChanges[];
  /** Whether the lock text differs from the committed lock. */
  readonly lockChanged: boolean;
  /** Findings about the output (MRC5102: a unit family too large for one Argo CD Application). */
  readonly diagnostics: readonly Diagnostic[];
  /** synth: the new and changed files, staged already (then `before` and `tree` hold only the texts later stages look at). */
  readonly streamed?: StreamedWrite;
}

/**
 * Renders the outputs of `compiled`, compiled from the unit records and committed tree of `state`.
 * With `state.stream` (synth), the cluster folders were compared and staged as they were rendered; what
 * no rendered folder replaced (removed clusters, stray entries) is staged for removal here.
 */
export function renderStage(run: RunContext, loaded: Loaded, compiled: Compiled, state: CompileState): Rendered {
  const { spec, paths } = loaded;
  const streamed = state.stream;
  let before: FileTree;
  let tree: FileTree;
  let changes: readonly ClusterChanges[];
  if (streamed) {
    streamed.finish(compiled.writtenClusters, compiled.units, compiled.rendered, !run.shard);
    ({ before, after: tree } = streamed);
    changes = streamed.changes;
  } else {
    const kept = new Set<string>();
    for (const cluster of compiled.writtenClusters) for (const unit of Object.keys(compiled.units[cluster] ?? {})) if (!compiled.rendered.has(`${cluster}/${unit}`)) kept.add(`${cluster}/${unit}`);
    // Kept units are neither read nor written; a shard leaves every other folder as it is.
    before = state.committedTree ?? readReplacedFiles(paths.outDir, { clusters: compiled.writtenClusters, keptUnits: kept, allTopLevel: !run.shard }, run.host);
    tree = state.committedTree && run.shard ? mergeShardTree(state.committedTree, compiled.tree, compiled.writtenClusters) : compiled.tree;
    changes = diffTrees(before, tree);
  }
  // The delivery manifests follow the delivery units of every cluster (Flux's unit Kustomizations, Argo CD's sources).
  const delivery = deliveryTree(spec, deliveryInput(run.host, paths.outDir, compiled, tree));
  // observe writes no dist/: its lock keeps the records as read (an input digest recorded for files
  // not written would let the next synth skip them). A shard records its own folders' units.
  const lockText = run.mode === 'observe'
    ? renderLockFile(compiled.snapshot, loaded.previousUnits ?? state.records, loaded.previousSources)
    : compiled.lockText ?? renderLockFile(compiled.snapshot, compiled.units, compiled.sources);
  // The committed lock as the load stage read it (the run lock keeps it from changing since); read here only when there was none.
  const lockChanged = (loaded.lockText ?? readTextOrUndefined(run.host, paths.committedLock)) !== lockText;
  const diagnostics = spec.delivery?.argoCd ? familySizeDiagnostics(run.host, paths.outDir, compiled) : [];
  return { before, tree, ...(delivery ? { delivery } : {}), lockText, changes, lockChanged, diagnostics, ...(streamed ? { streamed } : {}) };
}


/**
 * What the delivery manifests are rendered from: a unit folder entry for every recorded unit of every
 * cluster, and the Namespaces of the base units (read from disk for the clusters this run leaves alone).
 */
function deliveryInput(host: FsHost, outDir: string, compiled: Pick<Compiled, 'units' | 'writtenClusters' | 'rendered'>, tree: FileTree): FileTree {
  const { units, writtenClusters: written, rendered } = compiled;
  const input: FileTree = new Map();
  for (const [cluster, byUnit] of Object.entries(units)) for (const unit of Object.keys(byUnit)) input.set(`${cluster}/${unit}/kustomization.yaml`, '');
  for (const [path, text] of tree) if (isNamespaceFile(path)) input.set(path, text);
  for (const cluster of Object.keys(units)) {
    // A base unit this run did not render (a cluster it leaves alone, a skipped source) is read from disk.
    if (written.has(cluster) && rendered.has(`${cluster}/base`)) continue;
    for (const [p, text] of readTree(join(outDir, cluster, 'base'), host)) if (isNamespaceFile(p)) input.set(`${cluster}/base/${p}`, text);
  }
  return input;
}

/** MRC5102 for each unit family whose objects reach the cap: counted as rendered, else read from its folder (see family-size.ts). */
function familySizeDiagnostics(host: FsHost, outDir: string, compiled: Compiled): Diagnostic[] {
  const found = oversizedFamilies({
    units: compiled.units,
    rendered: (cluster, unit) => compiled.objectCounts.get(`${cluster}/${unit}`),
    onDisk: (cluster, unit) => {
      let objects = 0;
      for (const [path, text] of readTree(join(outDir, cluster, unit), host)) if (path !== KUSTOMIZATION_FILE) objects += countObjects(text);
      return objects;
    },
  });
  return found.map((f) => diagnostic(Diag.ARGOCD_APPLICATION_TOO_LARGE, oversizedFamilyMessage(f), { cluster: f.cluster }));
}

function readTextOrUndefined(host: FsHost, path: string): string | undefined {
  try {
    return host.readFile(path);
  } catch {
    return undefined;
  }
}
