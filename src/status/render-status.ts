/** `mirrorc status` as text for people: one table of sources, one of targets, then every problem; the exit code's meaning last. */
import type { StatusDocument } from './status-report.js';
import { printableText } from '../util/printable-text.js';

/** Columns padded to their widest cell. */
function table(rows: readonly (readonly string[])[]): string[] {
  const widths = rows[0]!.map((_, i) => rows.reduce((widest, r) => Math.max(widest, r[i]!.length), 0));
  return rows.map((r) => r.map((cell, i) => cell.padEnd(widths[i]!)).join('  ').trimEnd());
}

/** The source table: per source, its mirrors by state, how many have no ready endpoint, and the GitOps side. */
function sourceRows(doc: StatusDocument): string[][] {
  const rows = [['SOURCE', 'MIRRORS', 'OK', 'MISSING', 'UNEXPECTED', 'DIFFER', 'NO-READY', 'STALE-SINCE', 'GITOPS']];
  for (const s of doc.sources) {
    const count = (state: string): string => (s.visible ? String(s.mirrors.filter((m) => m.state === state).length) : '?');
    const gitops = s.gitops === null ? '-' : !s.gitops.visible ? 'not visible' : s.gitops.kustomizations.every((k) => k.ready === 'True') ? `flux ready (${s.gitops.kustomizations.length})` : 'flux not ready';
    rows.push([
      s.cluster,
      s.visible ? String(s.mirrors.length) : 'not visible',
      count('ok'), count('missing'), count('unexpected'), count('differs'),
      s.visible ? String(s.mirrors.filter((m) => m.readyEndpoints === 0).length) : '?',
      s.staleSince ?? '-',
      gitops,
    ]);
  }
  return rows;
}

/** The target table: per target, what the lock says of its last observation and whether it answers now. */
function targetRows(doc: StatusDocument): string[][] {
  const rows = [['TARGET', 'EXPORTED', 'GATEWAY-THEN', 'GATEWAY-NOW', 'STALE-SINCE', 'REACHABLE-NOW']];
  for (const t of doc.targets) {
    const now = t.gatewayNow === null ? '-' : t.gatewayNow.alive === null ? 'not probed' : t.gatewayNow.alive ? `alive ${t.gatewayNow.latencyMs} ms` : 'down';
    rows.push([t.cluster, t.observed ? String(t.exportedServices) : 'never observed', t.gatewayAlive === null ? '-' : t.gatewayAlive ? 'alive' : 'not alive', now, t.staleSince ?? '-', t.reachableNow === null ? '-' : t.reachableNow ? 'yes' : 'no']);
  }
  return rows;
}

/** The status document as lines of text (every cell made printable: cluster text is the cluster's). */
export function renderStatus(doc: StatusDocument): string[] {
  const lines = [...table(sourceRows(doc)), '', ...table(targetRows(doc)), ''];
  if (doc.problems.length === 0) lines.push('no problem found (exit 0)');
  else {
    lines.push(`${doc.problems.length} problem${doc.problems.length === 1 ? '' : 's'} (exit ${doc.exitCode}):`);
    for (const p of doc.problems) lines.push(`  [${p.class}] ${p.message}`);
  }
  return lines.map((l) => printableText(l));
}
