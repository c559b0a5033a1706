/** The summary table printed at the end of a run: per source its file counts, per target its state. */
import type { RunReport } from './report.js';

/** Left-aligned columns separated by two spaces, trailing spaces trimmed. */
function table(rows: readonly (readonly string[])[]): string[] {
  const widths = rows[0]!.map((_, i) => rows.reduce((widest, r) => Math.max(widest, r[i]!.length), 0));
  return rows.map((r) => r.map((cell, i) => cell.padEnd(widths[i]!)).join('  ').trimEnd());
}

/** The summary lines of `report` (nothing when the fleet has no links). */
export function summaryLines(report: RunReport): string[] {
  if (report.sources.length === 0 && report.targets.length === 0) return [];
  const pending = report.command !== 'synth';
  const sourceRows = report.sources.map((s) => s.compiled
    ? [s.cluster, String(s.added.length), String(s.changed.length), String(s.removed.length), String(s.unchanged)]
    : [s.cluster, '-', '-', '-', report.shard && !report.shard.includes(s.cluster) ? '(not in this shard)' : '(not compiled)']);
  const targetRows = report.targets.map((t) => [
    t.cluster,
    t.reachable === false ? 'stale' : t.heldBack !== undefined ? 'held back (stale)' : t.stale ? 'stale (from lock)' : t.exportedServices === null ? 'never observed' : t.observed ? 'ok' : 'from lock',
    t.exportedServices === null ? '-' : String(t.exportedServices),
    t.staleSince ?? '',
  ]);
  return [
    '',
    ...table([[pending ? 'source (would change)' : 'source', 'added', 'changed', 'removed', 'unchanged'], ...sourceRows]),
    '',
    ...table([['target', 'state', 'services', 'stale since'], ...targetRows]),
  ];
}
