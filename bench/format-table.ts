/** Plain-text tables for the benchmark's output (columns aligned, numbers right-aligned). */

/** Renders rows under a header and a rule; the columns `left` lists are left-aligned, the others right-aligned. */
export function formatTable(header: readonly string[], rows: readonly (readonly string[])[], left: ReadonlySet<number> = new Set([0, 1])): string {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const line = (cells: readonly string[]): string =>
    cells.map((c, i) => (left.has(i) ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join('  ').trimEnd();
  return [line(header), line(widths.map((w) => '-'.repeat(w))), ...rows.map(line)].join('\n');
}

/** Seconds with two decimals, or `-`. */
export function seconds(ms: number | undefined): string {
  return ms === undefined || Number.isNaN(ms) ? '-' : (ms / 1000).toFixed(2);
}

/** A whole number with thousands separators, or `-`. */
export function count(n: number | undefined): string {
  return n === undefined || Number.isNaN(n) ? '-' : Math.round(n).toLocaleString('en-US');
}

/** Bytes as KiB/MiB/GiB. */
export function bytes(n: number): string {
  if (n < 1024) return `${n} B`;
  const units = ['KiB', 'MiB', 'GiB'];
  let v = n / 1024;
  let u = 0;
  while (v >= 1024 && u < units.length - 1) {
    v /= 1024;
    u++;
  }
  return `${v.toFixed(1)} ${units[u]}`;
}
