/**
 * One measured synth run, in its own process so that CPU time and peak RSS are this run's alone.
 * argv[2] is a JSON {@link SynthChildRequest}; the measurements go as JSON to its `resultFile`
 * (stdout and stderr stay the CLI's own output). Exits with synth's exit code.
 */
import { writeFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import { runSynth } from '../src/pipeline/run-synth.js';

/** What the parent asks for. */
export interface SynthChildRequest {
  readonly fleetFile: string;
  readonly lockFile: string;
  readonly outDir: string;
  readonly resultFile: string;
}

/** What the child measured. */
export interface SynthChildResult {
  readonly exitCode: number;
  readonly error?: string;
  /** From process start to the call of runSynth (Node, tsx, mirrorc's modules), ms. */
  readonly startupMs: number;
  /** runSynth from call to return, ms. */
  readonly synthMs: number;
  /** Time of each synth stage (see src/pipeline/stage-timer.ts), ms. */
  readonly stages: Readonly<Record<string, number>>;
  /** User + system CPU of the whole process (every thread), ms. */
  readonly cpuMs: number;
  /** Peak resident set size, KiB (`process.resourceUsage().maxRSS`). */
  readonly maxRssKiB: number;
}

async function main(): Promise<void> {
  const request = JSON.parse(process.argv[2] ?? '{}') as SynthChildRequest;
  const startupMs = performance.now();
  const stages: Record<string, number> = {};
  const result = await runSynth({
    fleetFile: request.fleetFile,
    lockFile: request.lockFile,
    outDir: request.outDir,
    offline: true,
    onStage: (stage, ms) => (stages[stage] = (stages[stage] ?? 0) + ms),
  });
  const synthMs = performance.now() - startupMs;
  const cpu = process.cpuUsage();
  const measured: SynthChildResult = {
    exitCode: result.exitCode,
    ...(result.error !== undefined ? { error: result.error } : {}),
    startupMs,
    synthMs,
    stages,
    cpuMs: (cpu.user + cpu.system) / 1000,
    maxRssKiB: process.resourceUsage().maxRSS,
  };
  writeFileSync(request.resultFile, JSON.stringify(measured));
  process.exit(result.exitCode);
}

await main();
