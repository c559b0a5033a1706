/** The synth benchmark's result table (the targets: bench-targets.ts). */
import { SYNTH_STAGES } from './synth-stages.js';
import { bytes, count, formatTable, seconds } from './format-table.js';
import type { SynthMeasurement } from './run-synth-bench.js';

/** One table row per run: wall, CPU, peak RSS, files written, bytes, stage times. */
export function synthTable(results: readonly SynthMeasurement[]): string {
  const header = ['size', 'run', 'exit', 'wall s', 'cpu s', 'peak RSS MiB', 'files written', 'content changed', 'bytes written', 'files in tree',
    'startup s', ...SYNTH_STAGES.map((s) => `${s} s`), 'other s'];
  const rows = results.map((m) => {
    const staged = SYNTH_STAGES.reduce((sum, s) => sum + (m.stages[s] ?? 0), 0);
    return [
      m.size, m.run, String(m.exitCode), seconds(m.wallMs), seconds(m.cpuMs), count(m.peakRssMiB), count(m.writes.written), count(m.writes.changed),
      bytes(m.writes.bytes), count(m.writes.files), seconds(m.startupMs), ...SYNTH_STAGES.map((s) => seconds(m.stages[s])),
      seconds(m.wallMs - m.startupMs - staged),
    ];
  });
  return formatTable(header, rows);
}
