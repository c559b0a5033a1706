/**
 * Coded diagnostics: the table (unique, documented, every code used), the grouping of repeated
 * findings, and the codes the JSON report carries for real runs of the example fleet: clusters
 * that cannot be reached, mirrors skipped, and the removal guard.
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { test } from 'node:test';
import { ExitCode } from '../../src/errors/exit-codes.js';
import { allDiagnostics, Diag } from '../../src/diagnostics/diagnostic-codes.js';
import { diagnostic, type Diagnostic } from '../../src/diagnostics/diagnostic.js';
import { diagnosticsMarkdown } from '../../src/diagnostics/diagnostics-doc.js';
import { groupedLines } from '../../src/diagnostics/group-diagnostics.js';
import { exampleCopy } from './support/example-copy.js';

/** Every .ts file under `dir`. */
function sources(dir: string): string[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true }).filter((e) => e.isFile() && e.name.endsWith('.ts')).map((e) => join(e.parentPath, e.name));
}

test('every code in the table is unique, well formed, documented in docs/diagnostics.md, and used by the code', () => {
  const all = allDiagnostics();
  // Codes and names are unique, MRC and four digits, each with a title and a one-line hint
  assert.equal(new Set(all.map((d) => d.code)).size, all.length, 'a code is defined twice');
  for (const d of all) {
    assert.match(d.code, /^MRC[1-5]\d{3}$/);
    assert.ok(d.title.length > 0 && d.hint.length > 0 && !d.hint.includes('\n'), `${d.code}: title and one-line hint`);
  }
  // The committed page is what the table renders (npm run docs:diagnostics), and names every code
  const page = readFileSync('docs/diagnostics.md', 'utf8');
  assert.equal(page, diagnosticsMarkdown(), 'docs/diagnostics.md is not current: run npm run docs:diagnostics');
  for (const d of all) assert.ok(page.includes(`\`${d.code}\``), `${d.code} is not documented`);
  // Every name of the table is used outside it (no dead code to document)
  const code = sources('src').filter((f) => !f.endsWith('diagnostic-codes.ts')).map((f) => readFileSync(f, 'utf8')).join('\n');
  for (const name of Object.keys(Diag)) assert.ok(code.includes(`Diag.${name}`), `Diag.${name} is never reported`);
});

test('findings of one code saying the same about three clusters or more are one line naming how many and which; ten different ones are one line of title and hint; fewer stay one line each', () => {
  const stale = (cluster: string): Diagnostic => diagnostic(Diag.CLUSTER_KUBECONFIG, `target cluster "${cluster}": kubeconfig ~/.kube/config does not exist; pass --kubeconfig`, { cluster });
  // GIVEN nine clusters failing alike, and two namespaces missing
  const missing = ['api', 'web'].map((service) => diagnostic(Diag.NAMESPACE_MISSING, `london: namespace "shop" does not exist, so paris/shop/${service} is not mirrored`, { cluster: 'london', target: 'paris', namespace: 'shop', service }));
  const names = ['west', 'ap', 'east', 'eu', 'lyon', 'oslo', 'paris', 'us', 'london'];
  const { lines, details } = groupedLines([...names.map(stale), ...missing], 'warning: ');
  // THEN the nine are one line, sorted, with the words they share and the code; the two stay apart
  assert.deepEqual(lines, [
    'warning: 9 clusters (ap, east, eu, london, lyon, oslo, paris, us, west): kubeconfig ~/.kube/config does not exist; pass --kubeconfig [MRC2001]',
    'warning: london: namespace "shop" does not exist, so paris/shop/api is not mirrored [MRC3009]',
    'warning: london: namespace "shop" does not exist, so paris/shop/web is not mirrored [MRC3009]',
  ]);
  assert.equal(details.length, 9);
  // AND three findings of one code with different words stay one line each; ten give the code's title and hint, naming each service
  const noPorts = (service: string): Diagnostic => diagnostic(Diag.NO_PORTS, `london: paris/shop/${service} has no ports (${service})`, { cluster: 'london', target: 'paris', namespace: 'shop', service });
  assert.equal(groupedLines(['a', 'b', 'c'].map(noPorts), '').lines.length, 3);
  const ten = 'abcdefghij'.split('');
  assert.deepEqual(groupedLines(ten.map(noPorts), '').lines, [
    `10 findings (${ten.map((s) => `london: paris/shop/${s}`).join(', ')}): ${Diag.NO_PORTS.title}; ${Diag.NO_PORTS.hint} (--verbose or the JSON report lists each) [MRC3012]`,
  ]);
});

test('report: clusters that cannot be reached are coded per cluster, and printed as one grouped line', async () => {
  // GIVEN a kubeconfig whose every context points at a closed port of this machine
  const port = await new Promise<number>((resolve) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const { port: p } = server.address() as { port: number };
      server.close(() => resolve(p));
    });
  });
  const ws = exampleCopy();
  try {
    const clusters = ['ap', 'east', 'eu', 'london', 'lyon', 'oslo', 'paris', 'us', 'west'];
    const kubeconfig = join(ws.dir, 'kubeconfig');
    writeFileSync(kubeconfig, JSON.stringify({
      apiVersion: 'v1', kind: 'Config',
      clusters: clusters.map((name) => ({ name, cluster: { server: `https://127.0.0.1:${port}`, 'insecure-skip-tls-verify': true } })),
      users: [{ name: 'u', user: { token: 'not-a-secret' } }],
      contexts: clusters.map((name) => ({ name, context: { cluster: name, user: 'u' } })),
    }));
    // WHEN plan observes the fleet
    const result = await ws.run({ mode: 'plan', offline: false, kubeconfig, requestTimeoutMs: 5000 });
    // THEN every cluster role is a coded warning MRC2002 naming its cluster, in the report as data
    assert.equal(result.exitCode, ExitCode.OK, result.error);
    const unreachable = result.report.diagnostics.filter((d) => d.code === 'MRC2002');
    assert.equal(unreachable.length, result.stale.length);
    assert.ok(unreachable.length >= clusters.length);
    assert.deepEqual([...new Set(unreachable.map((d) => d.cluster))].sort(), clusters);
    for (const d of unreachable) {
      assert.equal(d.severity, 'warning');
      assert.equal(d.hint, Diag.CLUSTER_UNREACHABLE.hint);
      assert.match(d.message, new RegExp(`cluster "${d.cluster}"`));
    }
    // AND the human output says it once, grouped, instead of once per cluster role
    const grouped = ws.logged.filter((l) => l.includes('[MRC2002]'));
    assert.equal(grouped.length, 1, ws.logged.join('\n'));
    assert.match(grouped[0]!, /^ {2}- 9 clusters \(ap, east, eu, london, lyon, oslo, paris, us, west\): /);
  } finally {
    ws.remove();
  }
});

test('report: skipped mirrors are coded with cluster, target, namespace and service; the removal guard is an error with its code, and names what it would remove', async () => {
  const ws = exampleCopy();
  try {
    // GIVEN the lock says namespace coord no longer exists in the sources ap, eu and us
    ws.editLock('\n          "coord",', '');
    // WHEN planned
    const plan = await ws.run({ mode: 'plan' });
    // THEN each skipped mirror is an MRC3009 warning naming where it would go and what it mirrors
    assert.equal(plan.exitCode, ExitCode.OK, plan.error);
    const skipped = plan.report.diagnostics.filter((d) => d.code === 'MRC3009');
    assert.deepEqual(skipped.map((d) => [d.severity, d.cluster, d.target, d.namespace, d.service]), [
      ['warning', 'ap', 'eu', 'coord', 'zookeeper'], ['warning', 'ap', 'us', 'coord', 'zookeeper'],
      ['warning', 'eu', 'ap', 'coord', 'zookeeper'], ['warning', 'eu', 'us', 'coord', 'zookeeper'],
      ['warning', 'us', 'ap', 'coord', 'zookeeper'], ['warning', 'us', 'eu', 'coord', 'zookeeper'],
    ]);
    assert.deepEqual(plan.report.warnings, plan.report.diagnostics.filter((d) => d.severity === 'warning').map((d) => d.message));
    // AND when lyon stops exporting both its services, synth stops at the removal guard: the error is in the report with its code
    const lock = JSON.parse(readFileSync(ws.lockFile, 'utf8'));
    lock.observed.targets.lyon.services = [];
    writeFileSync(ws.lockFile, JSON.stringify(lock));
    const synth = await ws.run({});
    assert.equal(synth.exitCode, ExitCode.REMOVAL_NOT_CONFIRMED);
    const errors = synth.report.diagnostics.filter((d) => d.severity === 'error');
    assert.deepEqual(errors.map((d) => d.code), ['MRC4001']);
    assert.equal(errors[0]!.message, synth.report.error);
    assert.equal(errors[0]!.hint, Diag.REMOVAL_NOT_CONFIRMED.hint);
    assert.match(errors[0]!.message, /lyon/);
  } finally {
    ws.remove();
  }
});

test('report: an invalid fleet definition is an error coded MRC1002', async () => {
  const ws = exampleCopy();
  try {
    // GIVEN a fleet that links a cluster to itself
    const bad = await ws.run({ define: (fleet) => {
      const { Cluster, Link } = fleetModule;
      const a = new Cluster(fleet, 'a');
      new Link(fleet, 'loop', { source: a, target: a });
    }, newFleet: true });
    // THEN exit 2 with MRC1002
    assert.equal(bad.exitCode, ExitCode.INVALID_INPUT);
    assert.deepEqual(bad.report.diagnostics.map((d) => [d.code, d.severity]), [['MRC1002', 'error']]);
  } finally {
    ws.remove();
  }
});

const fleetModule = await import('../../src/index.js');
