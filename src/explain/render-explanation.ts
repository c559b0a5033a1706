/** `mirrorc explain`'s human text: the service, then one block per link with its verdict, selectors, reasons and files. */
import type { Explanation } from './explain-service.js';

/** The explanation as lines of text (paths of files under `outDir`). */
export function renderExplanation(e: Explanation, outDir: string): string[] {
  const { cluster, namespace, name } = e.service;
  const lines: string[] = [];
  if (e.federatedMembers) {
    lines.push(`${e.askedMirror} is a federated Service; its members: ${e.federatedMembers.join(', ')}`);
    lines.push(`(explained below for ${cluster}/${namespace}/${name}; mirrorc explain <member> explains another)`, '');
  }
  lines.push(e.askedMirror && !e.federatedMembers ? `${e.askedMirror} is a mirror of ${cluster}/${namespace}/${name}` : `${cluster}/${namespace}/${name}`);
  if (e.observed) {
    const labels = Object.entries(e.observed.labels).map(([k, v]) => `${k}=${v}`);
    const kind = `${e.observed.headless ? 'headless ' : ''}${e.observed.type}`;
    lines.push(`  in the lock: ${kind}; labels: ${labels.length > 0 ? labels.join(', ') : '(none)'}${e.observed.explicit ? '; explicitly exported' : ''}${e.observed.serviceExport ? '; named by a ServiceExport' : ''}`);
    lines.push(`  readiness: ${e.observed.ready ? 'has a ready endpoint (or reports none)' : 'NO ready endpoint'}`);
  } else {
    lines.push('  in the lock: not listed');
  }
  for (const fact of e.target) lines.push(`  ${fact.message} [${fact.reason}]`);
  if (e.compileError) lines.push(`  the fleet does not compile: ${e.compileError.split('\n')[0]}`);
  for (const link of e.links) {
    lines.push('');
    const verdict = link.mirrored ? `MIRRORED${link.mode ? ` (${link.mode} mode)` : ''}` : 'NOT MIRRORED';
    lines.push(`${link.source} ← ${link.target} (link ${link.link}): ${verdict}`);
    for (const s of link.selectors) {
      lines.push(`  ${s.field} ${s.query}: ${s.matches ? 'matches' : `does not match: ${s.failing.join('; ')}`}`);
    }
    for (const r of link.reasons) lines.push(`  ${link.mirrored ? '' : 'why: '}${r.message} [${r.reason}]`);
    if (link.files.length > 0) {
      lines.push('  files:');
      for (const f of link.files) lines.push(`    ${outDir}/${f}`);
    }
  }
  return lines;
}
