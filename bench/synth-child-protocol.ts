/** What the benchmark's parent and its synth child (synth-child.mjs) exchange. */

/** What the parent asks for (argv[2] of the child, as JSON). */
export interface SynthChildRequest {
  /** URL of the module exporting `runSynth`: lib/pipeline/run-synth.js (compiled, as `npm run synth` runs), or src/pipeline/run-synth.ts with tsx (`--tsx`). */
  readonly runSynthModule: string;
  readonly fleetFile: string;
  readonly lockFile: string;
  readonly outDir: string;
  readonly resultFile: string;
}

/** What the child measured (written as JSON to `resultFile`). */
export interface SynthChildResult {
  readonly exitCode: number;
  readonly error?: string;
  /** From process start to the call of runSynth (Node, tsx when used, mirrorc's modules), ms. */
  readonly startupMs: number;
  /** runSynth from call to return, ms. */
  readonly synthMs: number;
  /** Time of each synth stage (see src/pipeline/stage-timer.ts), ms. */
  readonly stages: Readonly<Record<string, number>>;
  /** User + system CPU of the whole process (every thread), ms. */
  readonly cpuMs: number;
  /** Of which in the kernel (system time), ms: file creation and lstat show here. */
  readonly cpuSystemMs?: number;
  /** Peak resident set size, KiB (`process.resourceUsage().maxRSS`). */
  readonly maxRssKiB: number;
}
