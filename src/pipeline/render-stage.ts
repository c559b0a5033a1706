/**
 * Stage 4, render: the complete outputs of the run as text, and how they differ from what is
 * committed: the whole `dist/` tree (a shard's folders merged into the committed tree), the
 * `delivery/` tree that follows its units, and the lock's text.
 */
import { diffTrees, type ClusterChanges } from '../emit/diff-trees.js';
import type { FsHost } from '../emit/fs-host.js';
import type { FileTree } from '../emit/render-files.js';
import type { FleetSpec } from '../model/fleet-spec.js';
import { renderLockFile } from '../observe/lock-file.js';
import type { Compiled } from './compile-stage.js';
import type { Loaded } from './load-stage.js';
import type { RunContext } from './run-context.js';
import { mergeShardTree } from './shard.js';
import { deliveryTree } from './synth-delivery.js';

/** What the render stage hands on. */
export interface Rendered {
  /** The whole `dist/` tree to write or compare. */
  readonly tree: FileTree;
  /** The `delivery/` tree, or undefined when the fleet has no GitOpsDelivery (then `delivery/` is left alone). */
  readonly delivery?: FileTree;
  readonly lockText: string;
  /** Per source folder, the files added, changed and removed against `before`. */
  readonly changes: readonly ClusterChanges[];
  /** Whether the lock text differs from the committed lock. */
  readonly lockChanged: boolean;
}

/** Renders the outputs of `compiled`; `before` is the output as committed. */
export function renderStage(run: RunContext, loaded: Loaded, compiled: Compiled, before: FileTree): Rendered {
  const { spec, paths } = loaded;
  // A shard replaces only its own folders; every other path of the tree is carried over as it is.
  // Folders of clusters that are no link's source hold only their reader identity: every shard writes them alike.
  const tree = run.shard ? mergeShardTree(before, compiled.tree, new Set([...run.shard, ...nonSourceClusters(spec)])) : compiled.tree;
  // The delivery manifests follow the delivery units of the whole tree (Flux's unit Kustomizations, Argo CD's sources).
  const delivery = deliveryTree(spec, tree);
  const changes = diffTrees(before, tree);
  const lockText = renderLockFile(compiled.snapshot);
  const lockChanged = readTextOrUndefined(run.host, paths.committedLock) !== lockText;
  return { tree, ...(delivery ? { delivery } : {}), lockText, changes, lockChanged };
}

/** Clusters that are no link's source. */
function nonSourceClusters(spec: FleetSpec): string[] {
  const sources = new Set(spec.links.map((l) => l.source));
  return spec.clusters.map((c) => c.name).filter((c) => !sources.has(c));
}

function readTextOrUndefined(host: FsHost, path: string): string | undefined {
  try {
    return host.readFile(path);
  } catch {
    return undefined;
  }
}
