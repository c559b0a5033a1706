/**
 * Stage 3, compile: the fleet, the snapshot and the lock's unit records → every compiled source
 * folder (no clock read beyond the run's `now`, no network; the only file access is the injected
 * integrity check of unit folders that may be skipped). Compile plans every mirror, then renders one
 * source's charts at a time, and only the unit families whose inputs changed or whose folders fail
 * the integrity check (docs/lock-and-state.md); the stage timer's `compile` and `render` marks split
 * the two. Name owners and established mirrors come from the lock's unit records, never from `dist/`.
 * A large removal caused by one target's new observation holds back that target alone
 * (src/guard/hold-back-targets.ts), which compiles again; a held-back target is stale from then on.
 * @throws CompileError (exit 3) when the fleet cannot be compiled
 */
import type { Diagnostic } from '../diagnostics/diagnostic.js';
import { heldBackDiagnostics } from '../diagnostics/run-diagnostics.js';
import type { FileTree } from '../emit/render-files.js';
import { heldBackNames, holdBackRemovingTargets, type HeldBackTarget } from '../guard/hold-back-targets.js';
import type { FleetSpec } from '../model/fleet-spec.js';
import { renderLockFile } from '../observe/lock-file.js';
import { withHeldBackTargets } from '../observe/stale-since.js';
import type { FleetSnapshot } from '../snapshot/snapshot.js';
import type { SourceRecords, UnitFiles, UnitRecords } from '../state/lock-document.js';
import { unitFolderCheck } from '../state/unit-folders.js';
import { recordMirrorLookup, recordOwnerLookup } from '../state/unit-records.js';
import { appendAll } from '../util/append-all.js';
import type { Loaded } from './load-stage.js';
import type { RunContext } from './run-context.js';
import { compileFleetTree, type CompiledTree } from './synth-fleet.js';
import type { RenderedClusterSink, StreamedWrite } from './streamed-write.js';

/** What the compile and render stages start from besides the snapshot: the output as it is now, and synth's write transaction. */
export interface CompileState {
  /** The lock's unit records, with any folder the lock did not describe adopted (what `dist/` holds). */
  readonly records: UnitRecords;
  /** plan/check: the whole committed output (every unit is rendered and compared); synth/observe: undefined (units may be skipped). */
  readonly committedTree?: FileTree;
  /**
   * synth: the write transaction each rendered cluster folder is staged into as soon as it is
   * rendered (compile's `tree` then stays empty). @default none: compile returns every folder in `tree`
   */
  readonly stream?: StreamedWrite;
}

/** What the compile stage hands on. */
export interface Compiled {
  /** `<cluster>/<file>` → text of every rendered unit folder and cluster kustomization.yaml (with `--source`, only the shard's and the non-source clusters'). */
  readonly tree: FileTree;
  /** The snapshot compiled from, with compile's pinned ClusterIPs (what the lock records). */
  readonly snapshot: FleetSnapshot;
  /** Skipped mirrors, held-back targets and other compile warnings, as coded data. */
  readonly diagnostics: readonly Diagnostic[];
  /** The targets the removal guard held back (stale this run; their `staleSince` is in `snapshot`). */
  readonly heldBack: readonly HeldBackTarget[];
  /** What `plan` prints besides file changes. */
  readonly planRows: readonly string[];
  /** The unit records after this run: every cluster's (with `--source`, other clusters' as recorded). */
  readonly units: UnitRecords;
  /** `<cluster>/<unit>` of the units rendered (the others were kept as they are). */
  readonly rendered: ReadonlySet<string>;
  /** `<cluster>/<unit>` → its number of objects, of the units rendered. */
  readonly objectCounts: ReadonlyMap<string, number>;
  /** The source records after this run (with `--source`, other sources' as recorded). */
  readonly sources: SourceRecords;
  /** The clusters whose folders this run writes: a shard's own and the non-source clusters, else every compiled cluster. */
  readonly writtenClusters: ReadonlySet<string>;
  /** The lock's new text (synth: rendered while the walk of the unit folders finished), when it was rendered here. @default rendered by the render stage */
  readonly lockText?: string;
}

/**
 * Compiles `snapshot` for the fleet of `loaded`, from the unit records of `state`. With `state.stream`
 * (synth), each rendered cluster folder goes to it as soon as it is rendered and `tree` stays empty.
 */
export async function compileStage(run: RunContext, loaded: Loaded, snapshot: FleetSnapshot, state: CompileState): Promise<Compiled> {
  const { mode, mark, log } = run;
  const { paths } = loaded;
  const { stream } = state;
  let compiled: CompileResult;
  if (mode !== 'write' && mode !== 'observe') compiled = compileWith(run, loaded, { snapshot, state, intact: undefined });
  else {
    // synth and observe skip sources and unit families whose inputs did not change and whose folders
    // are intact. The walk of dist/ that answers "intact" may still be running: compile plans as if
    // every folder it asks about were intact, and the answers are checked once the walk is done. Only
    // when one was wrong (a folder changed by hand) is everything compiled again with the real
    // answers, after dropping what was staged: compile is a pure function of its inputs and those
    // answers, so the result is the same as a compile that waited for the walk.
    const asked: [string, string, UnitFiles][] = [];
    const optimistic = (cluster: string, unit: string, files: UnitFiles): boolean => {
      asked.push([cluster, unit, files]);
      return true;
    };
    compiled = compileWith(run, loaded, { snapshot, state, intact: optimistic });
    // synth renders the new lock's text while the walk may still run (its threads keep the other
    // cores busy; afterwards this thread alone would work); a compile done again renders its own.
    const optimisticLock = mode === 'write' ? { ...compiled, lockText: renderLockFile(compiled.snapshot, compiled.units, compiled.sources) } : compiled;
    const intact = unitFolderCheck(paths.outDir, run.host, await loaded.unitFolderWalk);
    const wrong = asked.find(([cluster, unit, files]) => !intact(cluster, unit, files));
    if (wrong !== undefined) {
      log.detail(`unit folder ${wrong[0]}/${wrong[1]} does not match the lock's record: compiling again with every folder checked`);
      stream?.restart();
      compiled = compileWith(run, loaded, { snapshot, state, intact });
    } else compiled = optimisticLock;
  }
  // (The time waited for the walk, if any, counts as rendering.)
  mark('render');
  return logCompiled(run, compiled);
}

/** A compile of the stage, with what it kept and planned in part (for the log). */
type CompileResult = Compiled & Pick<CompiledTree, 'skippedSources' | 'partialSources'> & { readonly compileMs: number };

/** One compile of the stage: of `snapshot`, from `state`, with the integrity check `intact` (undefined: plan and render every unit). */
interface CompileAttempt {
  readonly snapshot: FleetSnapshot;
  readonly state: CompileState;
  readonly intact: ((cluster: string, unit: string, files: UnitFiles) => boolean) | undefined;
}

/** One compile of the stage. */
function compileWith(run: RunContext, loaded: Loaded, attempt: CompileAttempt): CompileResult {
  const { options, shard, now, mark } = run;
  const { spec, previous } = loaded;
  const { snapshot, state, intact } = attempt;
  const { records, committedTree, stream } = state;
  const compileStarted = now().getTime();
  const isolation = { strict: options.strict ?? false, previousOwners: recordOwnerLookup(records), previousMirrors: recordMirrorLookup(records), now: new Date(compileStarted) };
  const compileOptions = shard ? { sources: new Set(shard), ...isolation } : isolation;
  // A source's record counts only with the lock's own unit records (not with records adopted from a folder the lock does not describe).
  const sources = Object.fromEntries(Object.entries(loaded.previousSources ?? {}).filter(([cluster]) => loaded.previousUnits?.[cluster] !== undefined && loaded.previousUnits[cluster] === records[cluster]));
  const incremental = { records, sources, ...(intact ? { intact } : {}) };
  // The clusters a shard writes: its own and those that are no link's source (every shard writes them alike).
  const owned = shard ? new Set([...shard, ...nonSourceClusters(spec)]) : undefined;
  const compile = (s: FleetSnapshot, onCompiled?: () => void, sink?: RenderedClusterSink): CompiledTree => {
    const result = compileFleetTree(spec, s, compileOptions, { onCompiled, previous: committedTree, maxUnitObjects: options.maxUnitObjects, state: incremental, sink });
    if (!owned) return result;
    // Other clusters keep the records the lock has (a folder adopted for this run alone is adopted again by the next).
    const units: UnitRecords = {};
    for (const [cluster, byUnit] of Object.entries(loaded.previousUnits ?? {})) if (!owned.has(cluster)) units[cluster] = byUnit;
    for (const [cluster, byUnit] of Object.entries(result.units)) if (owned.has(cluster)) units[cluster] = byUnit;
    const sources: SourceRecords = {};
    for (const [cluster, record] of Object.entries(loaded.previousSources ?? {})) if (!owned.has(cluster)) sources[cluster] = record;
    for (const [cluster, record] of Object.entries(result.sources)) if (owned.has(cluster)) sources[cluster] = record;
    return { ...result, units, sources };
  };
  let result = compile(snapshot, () => mark('compile'), stream?.cluster);
  let heldBack: readonly HeldBackTarget[] = [];
  if (!options.confirmRemovals && !shard) {
    // The tries render for their unit records alone: a streamed run keeps none of their files.
    const discard: RenderedClusterSink | undefined = stream ? () => undefined : undefined;
    const held = holdBackRemovingTargets({ previous, snapshot, before: records, compiled: result, compile: (s) => compile(s, undefined, discard) });
    if (stream && held.compiled !== result) {
      // A target was held back: what was streamed is the compile of the other snapshot.
      stream.restart();
      result = compile(held.snapshot, undefined, stream.cluster);
    } else result = held.compiled;
    heldBack = held.held;
    if (held.compiles > 0) run.log.detail(`removal guard: ${held.compiles} compile${held.compiles === 1 ? '' : 's'} to find the targets to hold back; ${heldBack.length} held back`);
    // A held-back target is stale: its lock entry is the last observation let through.
    if (heldBack.length > 0) result = { ...result, snapshot: { ...result.snapshot, staleSince: withHeldBackTargets(result.snapshot.staleSince, previous.staleSince, heldBackNames(heldBack), new Date(compileStarted)) } };
  }
  const diagnostics = [...result.diagnostics];
  appendAll(diagnostics, heldBackDiagnostics(heldBack));
  const tree = owned ? new Map([...result.tree].filter(([p]) => owned.has(p.slice(0, p.indexOf('/'))))) : result.tree;
  const writtenClusters = owned ?? new Set(Object.keys(result.units));
  return { tree, snapshot: result.snapshot, diagnostics, heldBack, planRows: result.planRows, units: result.units, rendered: result.rendered, objectCounts: result.objectCounts, sources: result.sources, writtenClusters, skippedSources: result.skippedSources, partialSources: result.partialSources, compileMs: now().getTime() - compileStarted };
}

/** Logs what the compile kept and planned (once, for the compile whose result the run uses). */
function logCompiled(run: RunContext, compiled: CompileResult): CompileResult {
  const { shard, log } = run;
  log.detail(`compiled ${shard ? `source${shard.length === 1 ? '' : 's'} ${shard.join(', ')}` : 'every source'} in ${compiled.compileMs} ms`);
  const skipped = [...compiled.skippedSources];
  if (skipped.length > 0) log.detail(`${skipped.length} source${skipped.length === 1 ? '' : 's'} unchanged, not planned (${skipped.join(', ')})`);
  const partial = [...compiled.partialSources];
  if (partial.length > 0) log.detail(`${partial.length} source${partial.length === 1 ? '' : 's'} planned in part (${partial.map(([source, families]) => `${source}: ${families.join(' ') || 'none'}`).join('; ')})`);
  return compiled;
}

/** Clusters that are no link's source. */
export function nonSourceClusters(spec: FleetSpec): string[] {
  const sources = new Set(spec.links.map((l) => l.source));
  return spec.clusters.map((c) => c.name).filter((c) => !sources.has(c));
}
