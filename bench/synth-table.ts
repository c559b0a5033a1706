/** The synth benchmark's result table (the targets: bench-targets.ts). */
import { SYNTH_STAGES } from './synth-stages.js';
import { bytes, count, formatTable, seconds } from './format-table.js';
import { SYNTH_RUNS, type SynthMeasurement } from './run-synth-bench.js';

/** The measurements by size (in `sizes` order), then run kind (cold, nochange, onechange), then round. */
export function sortedRuns(results: readonly SynthMeasurement[], sizes: readonly string[]): SynthMeasurement[] {
  const key = (m: SynthMeasurement): number[] => [sizes.indexOf(m.size), SYNTH_RUNS.indexOf(m.run), m.round];
  return [...results].sort((a, b) => {
    const [ka, kb] = [key(a), key(b)];
    const i = ka.findIndex((v, j) => v !== kb[j]);
    return i < 0 ? 0 : ka[i]! - kb[i]!;
  });
}

/** One table row per run and round: wall, CPU (and its kernel part), peak RSS, files written, bytes, stage times. */
export function synthTable(results: readonly SynthMeasurement[]): string {
  const header = ['size', 'run', 'round', 'exit', 'wall s', 'cpu s', 'sys s', 'peak RSS MiB', 'files written', 'content changed', 'bytes written', 'files in tree',
    'startup s', ...SYNTH_STAGES.map((s) => `${s} s`), 'other s'];
  const rows = results.map((m) => {
    const staged = SYNTH_STAGES.reduce((sum, s) => sum + (m.stages[s] ?? 0), 0);
    return [
      m.size, m.run, String(m.round), String(m.exitCode), seconds(m.wallMs), seconds(m.cpuMs), seconds(m.cpuSystemMs), count(m.peakRssMiB), count(m.writes.written), count(m.writes.changed),
      bytes(m.writes.bytes), count(m.writes.files), seconds(m.startupMs), ...SYNTH_STAGES.map((s) => seconds(m.stages[s])),
      seconds(m.wallMs - m.startupMs - staged),
    ];
  });
  return formatTable(header, rows);
}
