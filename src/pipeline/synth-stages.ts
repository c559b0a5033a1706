/**
 * The synth job's stages after the output is claimed: load → observe → compile → render → guard →
 * commit (each a module of this folder, with typed inputs and outputs; see docs/pipeline.md). The
 * orchestrator, run-synth.ts, loads this module (and with it every stage's) only once it has started
 * claiming the output. A stage that refuses throws a {@link MirrorcError}, which carries its exit
 * code; the run ends with it and writes the report.
 */
import { readCommittedTree } from '../emit/write-output.js';
import { ExitCode } from '../errors/exit-codes.js';
import { MirrorcError, StrictStaleError } from '../errors/mirrorc-error.js';
import { CompileError } from '../compile/diagnostics.js';
import { Diag } from '../diagnostics/diagnostic-codes.js';
import { messages } from '../diagnostics/diagnostic.js';
import { printWarnings } from '../diagnostics/print-diagnostics.js';
import { deliveryDiagnostics } from '../diagnostics/run-diagnostics.js';
import { FleetLoadError } from '../load/load-fleet.js';
import { FleetDefinitionError } from '../model/fleet.js';
import { LockFileError, LockFromLaterMirrorcError } from '../observe/lock-file.js';
import { appendJobSummary } from '../report/job-summary.js';
import { buildRunReport, writeReportOrLog, type RunFacts } from '../report/report.js';
import { summaryLines } from '../report/summary.js';
import { changeReasons } from '../explain/change-reasons.js';
import { commitStage } from './commit-stage.js';
import { compileStage, nonSourceClusters, type CompileState } from './compile-stage.js';
import { StreamedWrite } from './streamed-write.js';
import { withAdoptedFolders } from '../state/unit-folders.js';
import type { UnitRecords } from '../state/lock-document.js';
import { removalGuard, staleLimitGuard } from './guard-stage.js';
import { heldBackNames } from '../guard/hold-back-targets.js';
import type { ClaimedOutput } from './claim-output.js';
import { loadStage } from './load-stage.js';
import { observeStage, type Observed } from './observe-stage.js';
import { renderStage } from './render-stage.js';
import { appendAll } from '../util/append-all.js';
import type { RunContext } from './run-context.js';
import type { SynthResult } from './synth-options.js';

/**
 * The stages in order, from the output `claimed` (run-synth.ts started the claim before loading this
 * module; its refusal is this run's, as if the load stage had thrown it).
 */
export async function runStages(run: RunContext, claimed: Promise<ClaimedOutput>): Promise<SynthResult> {
  const { options, mode, shard, log, mark } = run;
  // Everything the report needs, filled in as the run gets further.
  let facts: Omit<RunFacts, 'exitCode' | 'error'> = {
    command: mode === 'write' ? 'synth' : mode, offline: options.offline ?? false, ...(shard ? { shard } : {}),
    stale: [], changes: [], lockChanged: false, diagnostics: [],
  };
  const finish = (exitCode: number, error?: string): SynthResult => {
    if (error !== undefined) log.always(`error: ${error}`);
    const report = buildRunReport({ ...facts, exitCode, ...(error !== undefined ? { error } : {}) });
    if (exitCode !== ExitCode.INVALID_INPUT || facts.spec) for (const line of summaryLines(report)) log.info(line);
    if (options.reportFile && !writeReportOrLog(options.reportFile, report, log) && exitCode === ExitCode.OK) exitCode = ExitCode.WRITE_FAILED;
    if (options.env) appendJobSummary(report, log, options.env);
    return { exitCode, changes: facts.changes, warnings: messages(facts.diagnostics), diagnostics: facts.diagnostics, stale: facts.stale, ...(error !== undefined ? { error } : {}), report };
  };
  let stream: StreamedWrite | undefined;
  try {
    const loaded = await loadStage(run, await claimed);
    facts = { ...facts, spec: loaded.spec, snapshot: loaded.previous };
    mark('load');

    let observed: Observed = { snapshot: loaded.previous, stale: [], diagnostics: [], suspects: [] };
    if (!options.offline) {
      observed = await observeStage(run, loaded);
      facts = { ...facts, snapshot: observed.snapshot, stale: observed.stale, diagnostics: observed.diagnostics, suspects: observed.suspects };
      if (observed.stale.length > 0 && options.strict) throw new StrictStaleError('--strict: not writing anything because some clusters could not be observed');
      if (observed.suspects.length > 0 && options.strict) throw new StrictStaleError(`--strict: not writing anything because ${observed.suspects.map((s) => `"${s.cluster}"`).join(', ')} suddenly list${observed.suspects.length === 1 ? 's' : ''} no exported services and ${observed.suspects.length === 1 ? 'is' : 'are'} held back (see the warnings above)`);
      mark('observe');
    }

    // The state compile starts from: the lock's unit records (a folder the lock does not describe is
    // adopted from disk once); plan and check also read the whole committed output, to compare every file.
    const committedTree = mode === 'write' || mode === 'observe' ? undefined : readCommittedTree(loaded.paths.outDir, loaded.paths.outDir, run.host);
    // synth streams: each cluster folder is staged into the write transaction as it is rendered (never
    // committed before the guard below; discarded when the run stops before its commit point).
    if (mode === 'write') stream = new StreamedWrite(loaded.paths.outDir, loaded.paths.lockFile, run.host, shard ? new Set([...shard, ...nonSourceClusters(loaded.spec)]) : undefined);
    const state: CompileState = { records: withAdoptedFolders(loaded.previousUnits ?? {}, loaded.paths.outDir, committedTree, run.host), ...(committedTree ? { committedTree } : {}), ...(stream ? { stream } : {}) };
    const compiled = await compileStage(run, loaded, observed.snapshot, state);
    const diagnostics = [...observed.diagnostics, ...compiled.diagnostics, ...deliveryDiagnostics(loaded.spec)];
    printWarnings(log, diagnostics);
    // The state compiled from: held-back targets as last let through, stale since then.
    facts = { ...facts, diagnostics, snapshot: compiled.snapshot, heldBack: compiled.heldBack };
    // A held-back target is stale like an unreachable one: --strict writes nothing (exit 4).
    if (compiled.heldBack.length > 0 && options.strict) throw new StrictStaleError(`--strict: not writing anything because the removal guard held back ${heldBackNames(compiled.heldBack).map((t) => `"${t}"`).join(', ')} (see the warnings above)`);

    const rendered = renderStage(run, loaded, compiled, state);
    printWarnings(log, rendered.diagnostics);
    appendAll(diagnostics, rendered.diagnostics);
    facts = { ...facts, diagnostics, tree: rendered.tree, filesPerCluster: filesPerCluster(compiled.units), changes: rendered.changes, lockChanged: rendered.lockChanged };
    // A shard removes nothing outside its folders: the others count as they are.
    // Why mirrors go and endpoints change: next to each file in the plan, and in the removal guard's message.
    const reasons = changeReasons({ spec: loaded.spec, previous: loaded.previous, snapshot: compiled.snapshot, before: rendered.before, after: rendered.tree, records: state.records }, rendered.changes);
    const removals = removalGuard(run, state.records, shard ? { ...state.records, ...compiled.units } : compiled.units, (r) => reasons.removalCauses(r.source, r.target));
    mark('diff');

    const wrote = commitStage(run, loaded, rendered, { planRows: compiled.planRows, removals, reasons });
    stream = undefined;
    staleLimitGuard(run, loaded, compiled.snapshot, { wrote, heldBack: [...observed.suspects.map((s) => s.cluster), ...heldBackNames(compiled.heldBack)] });
    return finish(ExitCode.OK);
  } catch (e) {
    // The errors behind a compile failure, one by one; an invalid fleet or lock by its own code.
    if (e instanceof CompileError) facts = { ...facts, errorDiagnostics: e.diagnostics };
    if (e instanceof FleetDefinitionError || e instanceof FleetLoadError) facts = { ...facts, errorCode: Diag.FLEET_DEFINITION_INVALID };
    if (e instanceof LockFileError) facts = { ...facts, errorCode: e instanceof LockFromLaterMirrorcError ? Diag.LOCK_FROM_LATER_MIRRORC : Diag.LOCK_FILE_INVALID };
    if (e instanceof MirrorcError) return finish(e.exitCode, e.message);
    throw e;
  } finally {
    // Whatever stopped the run before its commit: nothing staged becomes visible (a failed discard is the next run's).
    stream?.discard();
  }
}

/** Files per cluster folder the unit records describe: each unit's files and the cluster's kustomization.yaml. */
function filesPerCluster(units: UnitRecords): Map<string, number> {
  return new Map(Object.entries(units).map(([cluster, byUnit]) => [cluster, 1 + Object.values(byUnit).reduce((n, r) => n + r.files.count, 0)]));
}
