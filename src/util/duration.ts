/** Durations written by people (`90m`, `24h`, `1d12h`), as used by `--max-stale` and `Fleet` props. */

const UNIT_MS: Readonly<Record<string, number>> = { s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000 };
const DURATION_RE = /^(?:\d+[smhd])+$/;

/** Milliseconds of `text` (one or more `<whole number><s|m|h|d>`, e.g. `36h`, `1d12h`), or undefined when it is not such a duration or is zero. */
export function parseDuration(text: string): number | undefined {
  const t = text.trim();
  if (!DURATION_RE.test(t)) return undefined;
  let ms = 0;
  for (const [, n, unit] of t.matchAll(/(\d+)([smhd])/g)) ms += Number(n) * UNIT_MS[unit!]!;
  return Number.isSafeInteger(ms) && ms > 0 ? ms : undefined;
}

/** `ms` in the largest whole units, e.g. `2d3h`, `45m`, `10s` (rounded down to the second). */
export function formatDuration(ms: number): string {
  let left = Math.max(0, Math.floor(ms / 1_000));
  const parts: string[] = [];
  for (const [unit, size] of [['d', 86_400], ['h', 3_600], ['m', 60], ['s', 1]] as const) {
    const n = Math.floor(left / size);
    left -= n * size;
    if (n > 0) parts.push(`${n}${unit}`);
  }
  return parts.length > 0 ? parts.join('') : '0s';
}
