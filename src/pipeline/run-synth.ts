/**
 * The synth job, the orchestrator of its stages: load → observe → compile → render → guard →
 * commit (see synth-stages.ts and docs/pipeline.md). Used by the CLI and by tests in-process. It
 * first starts claiming the output (claim-output.ts: the run lock, recovery, the walk of the unit
 * folders on worker threads) and only then loads the stages' modules, so that at fleet size the walk
 * runs while they load. A stage that refuses throws a MirrorcError, which carries its exit code; the
 * run ends with it and writes the report.
 */
import type { RunLock } from '../emit/run-lock.js';
import { claimOutput, type ClaimedOutput } from './claim-output.js';
import { runContext } from './run-context.js';
import type { SynthOptions, SynthResult } from './synth-options.js';

export type { SynthMode, SynthOptions, SynthResult } from './synth-options.js';

/**
 * Runs synth; never throws for user mistakes, returning an exit code and a message instead. An
 * unexpected exception (a bug) ends in exit 1 with its stack on the log, and the report is still written.
 */
export async function runSynth(options: SynthOptions): Promise<SynthResult> {
  const held: RunLock[] = [];
  let claimed: Promise<ClaimedOutput> | undefined;
  try {
    const run = runContext(options);
    // Claimed before the stages' modules load; a refusal is handled where runStages awaits it.
    claimed = claimOutput(run, held);
    claimed.catch(() => undefined);
    const { runStages } = await import('./synth-stages.js');
    return await runStages(run, claimed);
  } catch (e) {
    const { unexpectedFailure } = await import('./unexpected-failure.js');
    return unexpectedFailure(options, e);
  } finally {
    // A claim still under way (when the stages' modules failed to load) has its run lock in `held` once it settles.
    await claimed?.catch(() => undefined);
    for (const lock of held) lock.release();
  }
}
