/**
 * Stage 3, compile: the fleet and the snapshot → every compiled source folder (pure: no clock read
 * beyond the run's `now`, no network, no file access). Compile plans every mirror, then renders one
 * source's charts at a time (a large fleet's memory is bounded by its largest source; the stage
 * timer's `compile` and `render` marks split the two). A large removal caused by one target's new
 * observation holds back that target alone (src/guard/hold-back-targets.ts), which compiles again.
 * @throws CompileError (exit 3) when the fleet cannot be compiled
 */
import type { FileTree } from '../emit/render-files.js';
import { holdBackRemovingTargets } from '../guard/hold-back-targets.js';
import { previousMirrorLookup, previousOwnerLookup } from '../emit/previous-owners.js';
import type { FleetSnapshot } from '../snapshot/snapshot.js';
import { appendAll } from '../util/append-all.js';
import type { Loaded } from './load-stage.js';
import type { RunContext } from './run-context.js';
import { compileFleetTree } from './synth-fleet.js';

/** What the compile stage hands on. */
export interface Compiled {
  /** `<cluster>/<file>` → text of every compiled folder (with `--source`, only the shard's and the non-source clusters'). */
  readonly tree: FileTree;
  /** The snapshot compiled from, with compile's pinned ClusterIPs (what the lock records). */
  readonly snapshot: FleetSnapshot;
  /** Skipped mirrors, held-back targets and other compile warnings. */
  readonly warnings: readonly string[];
  /** What `plan` prints besides file changes. */
  readonly planRows: readonly string[];
}

/**
 * Compiles `snapshot` for the fleet of `loaded`. `before` is the output as committed (read once by
 * the orchestrator): its mirror owners settle name clashes, an unchanged file keeps its text.
 */
export function compileStage(run: RunContext, loaded: Loaded, snapshot: FleetSnapshot, before: FileTree): Compiled {
  const { options, shard, now, mark, log } = run;
  const { spec, previous } = loaded;
  const compileStarted = now().getTime();
  const isolation = { strict: options.strict ?? false, previousOwners: previousOwnerLookup(before), previousMirrors: previousMirrorLookup(before), now: new Date(compileStarted) };
  const compileOptions = shard ? { sources: new Set(shard), ...isolation } : isolation;
  let result = compileFleetTree(spec, snapshot, compileOptions, () => mark('compile'), before, options.maxUnitObjects);
  const heldBackWarnings: string[] = [];
  if (!options.confirmRemovals && !shard) {
    const held = holdBackRemovingTargets({ previous, snapshot, before, compiled: result, compile: (s) => compileFleetTree(spec, s, compileOptions, undefined, before, options.maxUnitObjects) });
    result = held.compiled;
    appendAll(heldBackWarnings, held.warnings);
  }
  mark('render');
  log.detail(`compiled ${shard ? `source${shard.length === 1 ? '' : 's'} ${shard.join(', ')}` : 'every source'} in ${now().getTime() - compileStarted} ms`);
  const warnings = [...result.warnings];
  appendAll(warnings, heldBackWarnings);
  return { tree: result.tree, snapshot: result.snapshot, warnings, planRows: result.planRows };
}
