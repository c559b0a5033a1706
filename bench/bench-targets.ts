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
 * With several rounds (main.ts `--rounds`) each time is the median over the rounds that succeeded, a
 * round that failed fails its target, a written-files check must hold in every round, and the peak
 * RSS is the largest of every run.
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

/** One run kind of one size over its rounds: the median times of the rounds that succeeded, and those that failed. */
export interface RunSummary {
  readonly size: string;
  readonly run: SynthRun;
  /** The measurements of the rounds that succeeded (exit 0), in round order. */
  readonly rounds: readonly SynthMeasurement[];
  /** The rounds that failed (a non-zero exit): any of them fails the target. */
  readonly failed: readonly SynthMeasurement[];
  /** Medians over the rounds that succeeded (NaN when none did). */
  readonly wallMs: number;
  readonly cpuMs: number;
  /** Median of the CPU time outside the kernel (cpu - sys). */
  readonly userMs: number;
  readonly systemMs: number;
}

/** The median of `values` (the mean of the middle two for an even count; NaN for none). */
export function median(values: readonly number[]): number {
  if (values.length === 0) return NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

/** The runs of `synth` grouped by size and run kind, in first-seen order. */
export function summarize(synth: readonly SynthMeasurement[]): RunSummary[] {
  const groups = new Map<string, SynthMeasurement[]>();
  for (const m of synth) {
    const key = `${m.size} ${m.run}`;
    groups.set(key, [...(groups.get(key) ?? []), m]);
  }
  return [...groups.values()].map((ms) => {
    const all = [...ms].sort((a, b) => a.round - b.round);
    const rounds = all.filter((m) => m.exitCode === 0);
    return {
      size: all[0]!.size,
      run: all[0]!.run,
      rounds,
      failed: all.filter((m) => m.exitCode !== 0),
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

/** `; round 2 failed (exit 1)` for each failed round of `s` (`label` before `round`), or nothing. */
function failures(s: RunSummary, label = ''): string {
  return s.failed.map((m) => `; ${label}round ${m.round} failed (exit ${m.exitCode})`).join('');
}

/** Whether every round of `s` succeeded (and there was one): a target's times count only then. */
function allSucceeded(s: RunSummary): boolean {
  return s.failed.length === 0 && s.rounds.length > 0;
}

/** The median wall time of `s` and its rounds, or that no round succeeded. */
function wallText(s: RunSummary): string {
  return s.rounds.length > 0 ? medianText(s.wallMs, s.rounds.map((r) => r.wallMs)) : 'no round succeeded';
}

/** {@link wallText}, then the median CPU time when a round succeeded. */
function timesText(s: RunSummary): string {
  return `${wallText(s)}${s.rounds.length > 0 ? `, cpu ${seconds(s.cpuMs)} s` : ''}`;
}

/** The lines of the issue's targets, in the issue's order, then the same checks for the other sizes. */
export function targetLines(synth: readonly SynthMeasurement[], delivery: readonly DeliveryMeasurement[]): string[] {
  const summaries = summarize(synth);
  const find = (size: string, run: string): RunSummary | undefined => summaries.find((m) => m.size === size && m.run === run);
  const lines: string[] = [];
  const severalRounds = synth.some((m) => m.round > 1);
  const quick = (s: RunSummary | undefined, run: 'nochange' | 'onechange', size: string): string => {
    const what = run === 'nochange' ? 'no-change re-synth < 3 s wall, writing nothing' : 'one changed service < 3 s wall, writing only the files it changes';
    if (!s) return `${NOT_MEASURED} ${size} ${what}`;
    // Every round must write only what it should, not just the median one: the line shows the first that did not.
    const wrong = (m: SynthMeasurement): boolean => (run === 'nochange' ? m.writes.written !== 0 : m.writes.written !== m.writes.changed);
    const bad = s.rounds.find(wrong);
    const m = bad ?? s.rounds[0];
    const where = bad && severalRounds ? ` (round ${bad.round})` : '';
    const detail = m === undefined ? '' : run === 'nochange'
      ? `; ${count(m.writes.written)} written${where}`
      : `; ${count(m.writes.written)} files written, ${count(m.writes.changed)} with new content${where}, for: ${m.note ?? '?'}`;
    const ok = allSucceeded(s) && s.wallMs < QUICK_RUN_MS && bad === undefined;
    return `${verdict(ok)} ${size} ${what}: ${timesText(s)}${detail}${failures(s)}`;
  };

  lines.push(`issue 18 targets (${TARGET_SIZE} full mesh):`);
  lines.push(`  ${quick(find(TARGET_SIZE, 'nochange'), 'nochange', TARGET_SIZE)}`);
  lines.push(`  ${quick(find(TARGET_SIZE, 'onechange'), 'onechange', TARGET_SIZE)}`);
  const cold = find(TARGET_SIZE, 'cold');
  lines.push(`  ${cold ? verdict(allSucceeded(cold) && cold.wallMs < COLD_RUN_MS) : NOT_MEASURED} ${TARGET_SIZE} cold synth < 30 s wall${cold ? `: ${timesText(cold)}${failures(cold)}` : ''}`);
  // Every run that reported its peak, a failed one too (a run killed for its memory is the one this is about).
  const big = synth.filter((m) => m.size === TARGET_SIZE && !Number.isNaN(m.peakRssMiB));
  const peak = big.reduce<SynthMeasurement | undefined>((a, m) => (a === undefined || m.peakRssMiB > a.peakRssMiB ? m : a), undefined);
  const runName = (m: SynthMeasurement): string => (severalRounds ? `${m.run} r${m.round}` : m.run);
  lines.push(`  ${peak ? verdict(peak.peakRssMiB < PEAK_RSS_MIB) : NOT_MEASURED} ${TARGET_SIZE} peak RSS < 1 GiB (every run)${peak ? `: ${count(peak.peakRssMiB)} MiB (${runName(peak)}; ${big.map((m) => `${runName(m)} ${count(m.peakRssMiB)}`).join(', ')})` : ''}`);
  lines.push(...doubleInputLines(synth).map((l) => `  ${l}`));
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
    if (example) lines.push(`  ${verdict(allSucceeded(example) && example.wallMs < 1000)} example fleet end to end < 1 s wall (issue 9): ${wallText(example)}${failures(example)}`);
  }
  // The files of the first round whose one-change succeeded (every round changes the same service).
  for (const s of summaries.filter((x) => x.run === 'onechange' && x.rounds.length > 0)) {
    const m = s.rounds[0]!;
    lines.push(`  ${m.size} one-change new content${severalRounds ? ` (round ${m.round})` : ''}: ${m.writes.changedPaths.join(', ')}${m.writes.changed > m.writes.changedPaths.length ? ', ...' : ''}`);
  }
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
export function doubleInputLines(synth: readonly SynthMeasurement[]): string[] {
  const lines: string[] = [];
  const summaries = summarize(synth).filter((s) => s.rounds.length > 0);
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
          const failed = failures(a, `${a.size} `) + failures(b, `${b.size} `);
          lines.push(`${verdict(cpu <= DOUBLE_INPUT_MAX_RATIO && failed === '')} 2x the input (${a.size} -> ${b.size}, ${run}) <= 2.1x the time: cpu ${cpu.toFixed(2)}x (${parts}; ${figures}), wall ${wall.toFixed(2)}x${failed}`);
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
