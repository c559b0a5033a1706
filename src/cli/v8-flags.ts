/**
 * The V8 flags the CLI runs with. They are passed on the command line of the Node process that runs
 * `main.js` — by the launcher (bin.ts, which starts that process) and by the npm scripts
 * (`node --heap-growing-percent=50 lib/cli/main.js …`) — never set while a run is under way.
 *
 * `--heap-growing-percent=50`: a streamed synth keeps little alive (at 20×500 about 250 MB after
 * planning, while rendering and staging 544,000 files) but allocates a great deal that dies soon;
 * V8 by default lets the old generation grow to several times the live size before it collects, so
 * the peak RSS was 1.8 GiB of mostly garbage. With the heap allowed to grow by half of what is live
 * after a collection: 20×500 cold, peak RSS 1,795 → 969 MiB for 12.5 s more user CPU (52.7 → 65.3 s);
 * 20×500 one-change, the same peak (406–427 MiB) for 0.1–0.3 s more CPU.
 */

/** The V8 flags `main.js` runs with. */
export const V8_FLAGS: readonly string[] = ['--heap-growing-percent=50'];

/** Whether `execArgv` already holds a heap-growth flag (the process was started with one: it is kept). */
export function hasHeapGrowthFlag(execArgv: readonly string[]): boolean {
  return execArgv.some((a) => /^--heap[-_]growing[-_]percent\b/.test(a));
}
