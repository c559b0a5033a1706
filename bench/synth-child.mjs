// @ts-check
/**
 * One measured synth run, in its own process so that CPU time and peak RSS are this run's alone.
 * Plain JavaScript, so that it runs the compiled code (lib/) without tsx, as `npm run synth` does;
 * with `--tsx` the parent starts it with tsx and names the TypeScript sources instead.
 * argv[2] is a JSON SynthChildRequest (synth-child-protocol.ts); the measurements go as JSON to its
 * `resultFile` (stdout and stderr stay synth's own output). Exits with synth's exit code.
 */
import { writeFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';

/** @type {import('./synth-child-protocol.ts').SynthChildRequest} */
const request = JSON.parse(process.argv[2] ?? '{}');
/** @type {typeof import('../src/pipeline/run-synth.ts')} */
const { runSynth } = await import(request.runSynthModule);
const startupMs = performance.now();
/** @type {Record<string, number>} */
const stages = {};
const result = await runSynth({
  fleetFile: request.fleetFile,
  lockFile: request.lockFile,
  outDir: request.outDir,
  offline: true,
  onStage: (stage, ms) => (stages[stage] = (stages[stage] ?? 0) + ms),
});
const synthMs = performance.now() - startupMs;
const cpu = process.cpuUsage();
/** @type {import('./synth-child-protocol.ts').SynthChildResult} */
const measured = {
  exitCode: result.exitCode,
  ...(result.error !== undefined ? { error: result.error } : {}),
  startupMs,
  synthMs,
  stages,
  cpuMs: (cpu.user + cpu.system) / 1000,
  cpuSystemMs: cpu.system / 1000,
  maxRssKiB: process.resourceUsage().maxRSS,
};
writeFileSync(request.resultFile, JSON.stringify(measured));
process.exit(result.exitCode);
