/**
 * A streamed synth keeps little alive (at 20×500: about 250 MB after planning, while rendering and
 * staging 544,000 files), but it allocates a great deal that dies soon after: V8 lets the old
 * generation grow to several times the live size before it collects, so the peak RSS was 1.8 GiB of
 * mostly garbage. Once a run plans some source whole, the heap may grow by at most half of what is
 * live after a collection (V8's `--heap-growing-percent`, read at every collection; restored
 * afterwards): measured on the 20×500 cold run, peak RSS 1,795 → 969 MiB for 12.5 s more user CPU
 * (52.7 → 65.3 s), same load. A process started with its own `--heap-growing-percent` keeps it.
 */
import { setFlagsFromString } from 'node:v8';

/** The heap growth allowed while a synth streams its output (percent of the live size). */
export const STREAMED_HEAP_GROWING_PERCENT = 50;

/**
 * V8's heap growth limited to `percent` from the first {@link limit} until {@link restore}, which
 * brings back the default (a process started with its own `--heap-growing-percent` keeps it). synth
 * limits it once it knows it plans some source whole (src/pipeline/compile-stage.ts): a run that
 * skips or plans in part every source renders little, and its peak RSS is the same without the limit
 * (20×500 one-change: 406–414 MiB with it, 415–427 MiB without), for 0.1–0.3 s less CPU.
 */
export class HeapGrowthLimit {
  private limited = false;

  constructor(private readonly percent: number) {}

  /** Limits the heap growth (once; later calls do nothing). */
  limit(): void {
    if (this.limited || ownHeapGrowth()) return;
    setFlagsFromString(`--heap-growing-percent=${this.percent}`);
    this.limited = true;
  }

  /** Restores the default growth, if {@link limit} limited it. */
  restore(): void {
    if (!this.limited) return;
    setFlagsFromString('--heap-growing-percent=0');
    this.limited = false;
  }
}

/** Whether the process was started with its own `--heap-growing-percent`. */
function ownHeapGrowth(): boolean {
  return [...process.execArgv, ...(process.env.NODE_OPTIONS ?? '').split(/\s+/)].some((a) => /^--heap[-_]growing[-_]percent\b/.test(a));
}
