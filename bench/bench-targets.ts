/**
 * The scale targets of issue 18, evaluated against the benchmark's figures (printed, never asserted):
 *
 * - 20x500 full mesh: no-change < 3 s and one-change < 3 s wall, each writing only what changed;
 *   cold < 30 s wall; peak RSS < 1 GiB (every run of the size);
 * - twice the input at most 2.1x the time: the same run kind of two fleets whose mirrors
 *   (N x (N-1) x S in a full mesh) differ by exactly 2x, compared in CPU seconds (a shared machine's
 *   load inflates wall time; the wall ratio is printed beside it);
 * - every delivery unit renders with kustomize in < 5 s (the largest unit, for every size).
 *
 * With several rounds (main.ts `--rounds`) each time is the median over the rounds, a written-files
 * check must hold in every round, and the peak RSS is the largest of every run.
 * A target whose figure was not measured says so (`NOT MEASURED`) rather than vanishing.
 */
import { count, seconds } from './format-table.js';
import type { DeliveryMeasurement } from './delivery-bench.js';
import type { SynthMeasurement, SynthRun } from './run-synth-bench.js';

export const TARGET_SIZE = '20x500';
export const QUICK_RUN_MS = 3_000;
export const COLD_RUN_MS = 30_000;
export const PEAK_RSS_MIB = 1024;
export const DOUBLE_INPUT_MAX_RATIO = 2.1;
export const KUSTOMIZE_MS = 5_000;

/** The verdict column: MET, NOT MET or NOT MEASURED, padded to one width. */
export type Verdict = 'MET         ' | 'NOT MET     ' | 'NOT MEASURED';

function verdict(ok: boolean): Verdict {
  return ok ? 'MET         ' : 'NOT MET     ';
}

const NOT_MEASURED: Verdict = 'NOT MEASURED';

/** Clusters and services of `NxS`, or undefined for the example fleet. */
function parseSize(size: string): { clusters: number; services: number } | undefined {
  const m = /^(\d+)x(\d+)$/.exec(size);
  return m ? { clusters: Number(m[1]), services: Number(m[2]) } : undefined;
}

/** Mirrors of a full mesh of `size` (each cluster mirrors every service of every other cluster): what synth's work grows with. */
export function meshMirrors(size: string): number | undefined {
  const s = parseSize(size);
  return s ? s.clusters * (s.clusters - 1) * s.services : undefined;
}

/** One run kind of one size over its rounds (successful runs only): the median times. */
export interface RunSummary {
  readonly size: string;
  readonly run: SynthRun;
  /** The rounds' measurements, in round order. */
  readonly rounds: readonly SynthMeasurement[];
  /** Medians over the rounds. */
  readonly wallMs: number;
  readonly cpuMs: number;
  /** Median of the CPU time outside the kernel (cpu - sys). */
  readonly userMs: number;
  readonly systemMs: number;
}

/** The median of `values` (the mean of the middle two for an even count). */
export function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

/** The successful runs of `synth` grouped by size and run kind, in first-seen order. */
export function summarize(synth: readonly SynthMeasurement[]): RunSummary[] {
  const groups = new Map<string, SynthMeasurement[]>();
  for (const m of synth.filter((x) => x.exitCode === 0)) {
    const key = `${m.size} ${m.run}`;
    groups.set(key, [...(groups.get(key) ?? []), m]);
  }
  return [...groups.values()].map((ms) => {
    const rounds = [...ms].sort((a, b) => a.round - b.round);
    return {
      size: rounds[0]!.size,
      run: rounds[0]!.run,
      rounds,
      wallMs: median(rounds.map((m) => m.wallMs)),
      cpuMs: median(rounds.map((m) => m.cpuMs)),
      userMs: median(rounds.map((m) => m.cpuMs - m.cpuSystemMs)),
      systemMs: median(rounds.map((m) => m.cpuSystemMs)),
    };
  });
}

/** `1.23 s`, or `1.23 s (median of 1.20, 1.23, 1.90 s)` over several rounds. */
function medianText(ms: number, rounds: readonly number[]): string {
  return rounds.length > 1 ? `${seconds(ms)} s (median of ${rounds.map((r) => seconds(r)).join(', ')} s)` : `${seconds(ms)} s`;
}

/** The lines of the issue's targets, in the issue's order, then the same checks for the other sizes. */
export function targetLines(synth: readonly SynthMeasurement[], delivery: readonly DeliveryMeasurement[]): string[] {
  const ok = synth.filter((m) => m.exitCode === 0);
  const summaries = summarize(ok);
  const find = (size: string, run: string): RunSummary | undefined => summaries.find((m) => m.size === size && m.run === run);
  const lines: string[] = [];
  const quick = (s: RunSummary | undefined, run: 'nochange' | 'onechange', size: string): string => {
    const what = run === 'nochange' ? 'no-change re-synth < 3 s wall, writing nothing' : 'one changed service < 3 s wall, writing only the files it changes';
    if (!s) return `${NOT_MEASURED} ${size} ${what}`;
    // Every round must write only what it should, not just the median one.
    const writesOk = s.rounds.every((m) => (run === 'nochange' ? m.writes.written === 0 : m.writes.written === m.writes.changed));
    const m = s.rounds.find((r) => (run === 'nochange' ? r.writes.written !== 0 : r.writes.written !== r.writes.changed)) ?? s.rounds[0]!;
    const where = s.rounds.length > 1 ? ` (round ${m.round})` : '';
    const detail = run === 'nochange' ? `${count(m.writes.written)} written${where}` : `${count(m.writes.written)} files written, ${count(m.writes.changed)} with new content${where}, for: ${m.note ?? '?'}`;
    return `${verdict(s.wallMs < QUICK_RUN_MS && writesOk)} ${size} ${what}: ${medianText(s.wallMs, s.rounds.map((r) => r.wallMs))}, cpu ${seconds(s.cpuMs)} s; ${detail}`;
  };

  lines.push(`issue 18 targets (${TARGET_SIZE} full mesh):`);
  lines.push(`  ${quick(find(TARGET_SIZE, 'nochange'), 'nochange', TARGET_SIZE)}`);
  lines.push(`  ${quick(find(TARGET_SIZE, 'onechange'), 'onechange', TARGET_SIZE)}`);
  const cold = find(TARGET_SIZE, 'cold');
  lines.push(`  ${cold ? verdict(cold.wallMs < COLD_RUN_MS) : NOT_MEASURED} ${TARGET_SIZE} cold synth < 30 s wall${cold ? `: ${medianText(cold.wallMs, cold.rounds.map((r) => r.wallMs))}, cpu ${seconds(cold.cpuMs)} s` : ''}`);
  const big = ok.filter((m) => m.size === TARGET_SIZE && !Number.isNaN(m.peakRssMiB));
  const peak = big.reduce<SynthMeasurement | undefined>((a, m) => (a === undefined || m.peakRssMiB > a.peakRssMiB ? m : a), undefined);
  lines.push(`  ${peak ? verdict(peak.peakRssMiB < PEAK_RSS_MIB) : NOT_MEASURED} ${TARGET_SIZE} peak RSS < 1 GiB (every run)${peak ? `: ${count(peak.peakRssMiB)} MiB (${peak.run}; ${big.map((m) => `${m.run} ${count(m.peakRssMiB)}`).join(', ')})` : ''}`);
  lines.push(...doubleInputLines(ok).map((l) => `  ${l}`));
  const unit = delivery.find((d) => d.size === TARGET_SIZE);
  lines.push(`  ${deliveryLine(unit, TARGET_SIZE)}`);

  const others = [...new Set(synth.map((m) => m.size).concat(delivery.map((d) => d.size)))].filter((s) => s !== TARGET_SIZE);
  if (others.length > 0) lines.push('the same checks at the other sizes:');
  for (const size of others) {
    if (find(size, 'nochange')) lines.push(`  ${quick(find(size, 'nochange'), 'nochange', size)}`);
    if (find(size, 'onechange')) lines.push(`  ${quick(find(size, 'onechange'), 'onechange', size)}`);
    const d = delivery.find((x) => x.size === size);
    if (d) lines.push(`  ${deliveryLine(d, size)}`);
    const example = size === 'example' ? find(size, 'cold') : undefined;
    if (example) lines.push(`  ${verdict(example.wallMs < 1000)} example fleet end to end < 1 s wall (issue 9): ${medianText(example.wallMs, example.rounds.map((r) => r.wallMs))}`);
  }
  const changed = ok.filter((m) => m.run === 'onechange' && m.round === 1);
  for (const m of changed) lines.push(`  ${m.size} one-change new content: ${m.writes.changedPaths.join(', ')}${m.writes.changed > m.writes.changedPaths.length ? ', ...' : ''}`);
  return lines;
}

function deliveryLine(d: DeliveryMeasurement | undefined, size: string): string {
  const what = `${size} every delivery unit renders with kustomize in < 5 s`;
  if (!d || d.kustomizeMs === undefined) return `${NOT_MEASURED} ${what}${d?.kustomizeError ? `: ${d.kustomizeError}` : ''}`;
  return `${verdict(d.kustomizeMs < KUSTOMIZE_MS)} ${what}: largest ${d.largest} (${count(d.largestObjects)} objects) ${seconds(d.kustomizeMs)} s`;
}

/**
 * Twice the input at most 2.1x the time: for each run kind, every pair of sizes whose mirrors
 * differ by exactly 2x, by CPU time (medians over the rounds; the user and kernel parts are printed
 * beside it, as is the wall ratio). Pairs whose N x S doubles while the mirrors do not (more
 * clusters: the mesh grows quadratically) are printed as information, with the time per mirror.
 */
export function doubleInputLines(ok: readonly SynthMeasurement[]): string[] {
  const lines: string[] = [];
  const summaries = summarize(ok);
  const runs = [...new Set(summaries.map((m) => m.run))];
  let pairs = 0;
  for (const run of runs) {
    const of = summaries.filter((m) => m.run === run && meshMirrors(m.size) !== undefined);
    for (const a of of) {
      for (const b of of) {
        const [ma, mb] = [meshMirrors(a.size)!, meshMirrors(b.size)!];
        const [sa, sb] = [parseSize(a.size)!, parseSize(b.size)!];
        const cpu = b.cpuMs / a.cpuMs;
        const wall = b.wallMs / a.wallMs;
        if (mb === 2 * ma) {
          pairs++;
          const parts = `user ${(b.userMs / a.userMs).toFixed(2)}x, sys ${(b.systemMs / a.systemMs).toFixed(2)}x`;
          const each = (s: RunSummary): string => s.rounds.map((r) => seconds(r.cpuMs)).join(', ');
          const figures = a.rounds.length > 1 || b.rounds.length > 1
            ? `medians of ${each(a)} -> ${each(b)} s`
            : `${seconds(a.cpuMs)} -> ${seconds(b.cpuMs)} s`;
          lines.push(`${verdict(cpu <= DOUBLE_INPUT_MAX_RATIO)} 2x the input (${a.size} -> ${b.size}, ${run}) <= 2.1x the time: cpu ${cpu.toFixed(2)}x (${parts}; ${figures}), wall ${wall.toFixed(2)}x`);
        } else if (sb.clusters * sb.services === 2 * sa.clusters * sa.services) {
          const perMirror = (b.cpuMs / mb) / (a.cpuMs / ma);
          lines.push(`(information) ${a.size} -> ${b.size} ${run}: N x S doubles but the mesh's mirrors grow ${(mb / ma).toFixed(2)}x; cpu ${cpu.toFixed(2)}x, cpu per mirror ${perMirror.toFixed(2)}x`);
        }
      }
    }
  }
  if (pairs === 0) lines.unshift(`${NOT_MEASURED} 2x the input <= 2.1x the time: needs two sizes whose mirrors differ by 2x (e.g. 20x250 and 20x500)`);
  return lines;
}
