/** What every stage of one synth run shares: its options, log, clock and stage timer. */
import { NODE_FS_HOST } from '../emit/durable-fs.js';
import type { FsHost } from '../emit/fs-host.js';
import { runLog, type RunLog } from '../report/run-log.js';
import { printErr } from '../util/print.js';
import { stageTimer, type SynthStage } from './stage-timer.js';
import type { SynthMode, SynthOptions } from './synth-options.js';

/** The context of one run, made once by the orchestrator and passed to each stage. */
export interface RunContext {
  readonly options: SynthOptions;
  readonly mode: SynthMode;
  /** The source clusters compiled with `--source`, or undefined for every source. */
  readonly shard?: readonly string[];
  readonly log: RunLog;
  /** The clock (stale-since times, verbose timings). */
  readonly now: () => Date;
  /** Ends the named stage for the stage timer (`SynthOptions.onStage`). */
  readonly mark: (stage: SynthStage) => void;
  /** The file system every stage reads and writes the output, the lock and the run lock through. */
  readonly host: FsHost;
}

/** The run context of `options`, with the documented defaults. */
export function runContext(options: SynthOptions): RunContext {
  const shard = options.sources && options.sources.length > 0 ? options.sources : undefined;
  return {
    options,
    mode: options.mode ?? 'write',
    ...(shard ? { shard } : {}),
    log: runLog(options.log ?? printErr, options.verbosity ?? 'normal'),
    now: options.now ?? (() => new Date()),
    mark: stageTimer(options.onStage),
    host: options.host ?? NODE_FS_HOST,
  };
}
