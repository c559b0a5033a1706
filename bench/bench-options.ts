/** The benchmark's command-line values, checked: sizes, runs, and which size the Flux phase measures. */
import { SYNTH_RUNS, type SynthRun } from './run-synth-bench.js';

/** A mistake in the options: exit 2 with one line, no stack. */
export class UsageError extends Error {}

/** One generated fleet size: N clusters in full mesh x S services each. */
export interface FleetSize {
  readonly clusters: number;
  readonly services: number;
}

/** The size the Flux phase measures when `--flux-size` is not given (when that size runs). */
export const DEFAULT_FLUX_SIZE = '10x250';

/** `--sizes`: comma-separated `NxS`, N >= 2, S >= 1. */
export function parseSizes(text: string): FleetSize[] {
  return text.split(',').map((s) => s.trim()).filter((s) => s !== '').map((s) => parseSize('--sizes', s));
}

function parseSize(option: string, s: string): FleetSize {
  const m = /^(\d+)x(\d+)$/.exec(s);
  if (!m || Number(m[1]) < 2 || Number(m[2]) < 1) throw new UsageError(`${option}: "${s}" is not NxS with N >= 2 clusters and S >= 1 services`);
  return { clusters: Number(m[1]), services: Number(m[2]) };
}

/** `--runs`: comma-separated run kinds. */
export function parseRuns(text: string): SynthRun[] {
  const runs = text.split(',').map((s) => s.trim()).filter((s) => s !== '');
  for (const r of runs) if (!(SYNTH_RUNS as readonly string[]).includes(r)) throw new UsageError(`--runs: "${r}" is none of ${SYNTH_RUNS.join(', ')}`);
  return runs as SynthRun[];
}

/** A positive whole number option. */
export function positiveInt(name: string, text: string): number {
  const n = Number(text);
  if (!Number.isInteger(n) || n < 1) throw new UsageError(`--${name} must be a positive whole number, not "${text}"`);
  return n;
}

/** `NxS` of a size. */
export function sizeLabel(size: FleetSize): string {
  return `${size.clusters}x${size.services}`;
}

/**
 * The size whose Flux reconcile time is measured, or undefined for none: `--flux-size` (which must
 * be one of `--sizes`), else {@link DEFAULT_FLUX_SIZE} when it is one of them; `--no-flux` turns it off.
 */
export function fluxSize(sizes: readonly FleetSize[], option: string | undefined, noFlux: boolean, phase = 'flux'): string | undefined {
  if (noFlux) {
    if (option !== undefined) throw new UsageError(`--${phase}-size and --no-${phase} contradict each other: give one`);
    return undefined;
  }
  const labels = sizes.map(sizeLabel);
  if (option === undefined) return labels.includes(DEFAULT_FLUX_SIZE) ? DEFAULT_FLUX_SIZE : undefined;
  const wanted = sizeLabel(parseSize(`--${phase}-size`, option.trim()));
  if (!labels.includes(wanted)) throw new UsageError(`--${phase}-size ${wanted} is not one of --sizes (${labels.join(',') || 'none'}): add it there`);
  return wanted;
}
