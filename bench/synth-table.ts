/** The synth benchmark's result table and the targets, checked against the figures. */
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

/** The targets, each with the measured figure and whether it is met (figures not measured are skipped). */
export function synthTargets(results: readonly SynthMeasurement[]): string[] {
  const find = (size: string, run: string): SynthMeasurement | undefined => results.find((m) => m.size === size && m.run === run && m.exitCode === 0);
  const verdict = (ok: boolean): string => (ok ? 'MET    ' : 'NOT MET');
  const lines: string[] = [];
  const big = find('20x500', 'cold');
  if (big) {
    lines.push(`${verdict(big.wallMs < 30_000)} 20x500 cold synth < 30 s wall (issue 18): ${seconds(big.wallMs)} s`);
    lines.push(`${verdict(big.peakRssMiB < 1024)} 20x500 cold synth peak RSS < 1 GiB: ${count(big.peakRssMiB)} MiB`);
  }
  // 2x the input (clusters x services) should take at most 2.1x the time.
  const colds = results.filter((m) => m.run === 'cold' && m.exitCode === 0 && m.size !== 'example');
  for (const a of colds) {
    for (const b of colds) {
      if (inputSize(b.size) === 2 * inputSize(a.size)) {
        const ratio = b.wallMs / a.wallMs;
        lines.push(`${verdict(ratio <= 2.1)} 2x the input (${a.size} -> ${b.size}) <= 2.1x the time: ${ratio.toFixed(2)}x (files ${(b.writes.files / a.writes.files).toFixed(2)}x)`);
      }
    }
  }
  for (const m of results.filter((r) => r.run === 'nochange' && r.exitCode === 0)) {
    lines.push(`${verdict(m.wallMs < 3000 && m.writes.written === 0)} ${m.size} no-change re-synth < 3 s and 0 files written: ${seconds(m.wallMs)} s, ${count(m.writes.written)} written`);
  }
  for (const m of results.filter((r) => r.run === 'onechange' && r.exitCode === 0)) {
    // Only the files whose content changed (that mirror's files and what lists them) may be written.
    const ok = m.wallMs < 3000 && m.writes.written === m.writes.changed;
    lines.push(`${verdict(ok)} ${m.size} one changed service < 3 s, writing only the files it changes: ${seconds(m.wallMs)} s; ${count(m.writes.written)} files written, ${count(m.writes.changed)} with new content, for: ${m.note ?? '?'}`);
    lines.push(`        new content: ${m.writes.changedPaths.join(', ')}${m.writes.changed > m.writes.changedPaths.length ? ', ...' : ''}`);
  }
  const example = find('example', 'cold');
  if (example) lines.push(`${verdict(example.wallMs < 1000)} example fleet end to end < 1 s wall: ${seconds(example.wallMs)} s`);
  return lines;
}

function inputSize(size: string): number {
  const [n, s] = size.split('x').map(Number);
  return (n ?? 0) * (s ?? 0);
}
