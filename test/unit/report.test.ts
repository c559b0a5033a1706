/** The JSON run report (--report): content on a known change, on failures, and stable across runs. */
import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { ExitCode } from '../../src/errors/exit-codes.js';
import { REPORT_FORMAT } from '../../src/report/report.js';
import { exampleCopy } from './support/example-copy.js';

test('the report of a plan lists, per source, exactly the changed files, and per target its state', async () => {
  const ws = exampleCopy();
  try {
    // GIVEN the lock records a new gateway address for east, and a stale paris since a known time
    ws.editLock('198.51.100.7', '198.51.100.8');
    ws.editLock('"observed": {', '"observed": {\n    "staleSince": { "targets": { "paris": "2025-03-01T10:00:00Z" } },');
    const reportFile = join(ws.dir, 'report.json');
    // The counts come from the fixture: a target's services in the lock; a source's files in the
    // committed dist/ (plan writes nothing, and this change adds and removes no file) but the changed ones.
    // One file per mirror: the mirror's Endpoints and EndpointSlice change inside its Service's file.
    const lock = JSON.parse(readFileSync(ws.lockFile, 'utf8'));
    const exported = (cluster: string): number => lock.observed.targets[cluster].services.length;
    const filesOf = (cluster: string): number => readdirSync(join(ws.outDir, cluster), { recursive: true, withFileTypes: true }).filter((e) => e.isFile()).length;
    const westChanged = ['from-east/shop/service-payments-east.yaml'];
    const targetCounts = Object.fromEntries(['ap', 'east', 'eu', 'lyon', 'oslo', 'paris', 'us', 'west'].map((c) => [c, exported(c)]));
    const sourceFiles = Object.fromEntries(['ap', 'east', 'eu', 'london', 'us', 'west'].map((c) => [c, filesOf(c)]));
    for (const [c, n] of Object.entries({ ...targetCounts, ...sourceFiles })) assert.ok(n > 0, `${c}: the fixture is empty`);
    // WHEN planning with a report
    const result = await ws.run({ mode: 'plan', reportFile });
    // THEN the file holds the documented document
    assert.equal(result.exitCode, ExitCode.OK);
    const report = JSON.parse(readFileSync(reportFile, 'utf8'));
    assert.deepEqual(report, {
      reportFormat: REPORT_FORMAT,
      // The version of mirrorc that wrote it (issue 39: every report names it)
      mirrorcVersion: JSON.parse(readFileSync('package.json', 'utf8')).version,
      command: 'plan',
      exitCode: 0,
      error: null,
      offline: true,
      shard: null,
      lockChanged: true, // the hand-edited lock is not canonical JSON
      targets: [
        { cluster: 'ap', observed: false, reachable: null, stale: false, staleSince: null, error: null, exportedServices: targetCounts.ap },
        { cluster: 'east', observed: false, reachable: null, stale: false, staleSince: null, error: null, exportedServices: targetCounts.east },
        { cluster: 'eu', observed: false, reachable: null, stale: false, staleSince: null, error: null, exportedServices: targetCounts.eu },
        { cluster: 'lyon', observed: false, reachable: null, stale: false, staleSince: null, error: null, exportedServices: targetCounts.lyon },
        { cluster: 'oslo', observed: false, reachable: null, stale: false, staleSince: null, error: null, exportedServices: targetCounts.oslo },
        { cluster: 'paris', observed: false, reachable: null, stale: true, staleSince: '2025-03-01T10:00:00Z', error: null, exportedServices: targetCounts.paris },
        { cluster: 'us', observed: false, reachable: null, stale: false, staleSince: null, error: null, exportedServices: targetCounts.us },
        { cluster: 'west', observed: false, reachable: null, stale: false, staleSince: null, error: null, exportedServices: targetCounts.west },
      ],
      sources: [
        ...(['ap', 'east', 'eu', 'london', 'us'] as const).map((cluster) => ({
          cluster, observed: false, reachable: null, stale: false, staleSince: null, error: null, compiled: true, added: [], changed: [], removed: [],
          unchanged: sourceFiles[cluster],
        })),
        {
          cluster: 'west', observed: false, reachable: null, stale: false, staleSince: null, error: null, compiled: true,
          added: [], changed: westChanged, removed: [], unchanged: sourceFiles.west! - westChanged.length,
        },
      ],
      warnings: [],
      diagnostics: [],
    });
    // AND the same run gives a byte-identical report
    const text = readFileSync(reportFile, 'utf8');
    await ws.run({ mode: 'plan', reportFile });
    assert.equal(readFileSync(reportFile, 'utf8'), text);
  } finally {
    ws.remove();
  }
});

test('a failed check and an invalid lock still write a report with the exit code and the error', async () => {
  const ws = exampleCopy();
  try {
    const reportFile = join(ws.dir, 'report.json');
    // GIVEN a lock that no longer matches the committed dist/
    ws.editLock('198.51.100.7', '198.51.100.9');
    // WHEN check runs
    const check = await ws.run({ mode: 'check', reportFile });
    // THEN the report carries exit code 5 and the reason
    assert.equal(check.exitCode, ExitCode.CHECK_FAILED);
    const report = JSON.parse(readFileSync(reportFile, 'utf8'));
    assert.equal(report.exitCode, ExitCode.CHECK_FAILED);
    assert.match(report.error, /differs from what synth would write/);
    assert.equal(report.command, 'check');
    // WHEN the lock is not JSON
    ws.editLock('{', '{{');
    const invalid = await ws.run({ reportFile });
    // THEN the report has exit code 2, the lock error, and no clusters (nothing was known)
    assert.equal(invalid.exitCode, ExitCode.INVALID_INPUT);
    const invalidReport = JSON.parse(readFileSync(reportFile, 'utf8'));
    assert.equal(invalidReport.exitCode, ExitCode.INVALID_INPUT);
    assert.match(invalidReport.error, /is not valid JSON/);
    assert.deepEqual([invalidReport.targets, invalidReport.sources], [[], []]);
  } finally {
    ws.remove();
  }
});

test('a target held back by the removal guard is stale in the report, the summary table and the job summary, with why', async () => {
  const { buildRunReport } = await import('../../src/report/report.js');
  const { summaryLines } = await import('../../src/report/summary.js');
  const { jobSummaryMarkdown } = await import('../../src/report/job-summary.js');
  const spec = { clusters: [{ name: 'london' }, { name: 'paris' }, { name: 'rome' }], links: [{ source: 'london', target: 'paris' }, { source: 'london', target: 'rome' }] };
  const service = { namespace: 'shop', name: 'cart', labels: {}, annotations: {}, type: 'ClusterIP', headless: false, ports: [] };
  const snapshot = { format: 1, targets: { paris: { selectors: [], services: [service, service], missingExplicitExports: [] }, rome: { selectors: [], services: [service], missingExplicitExports: [] } }, sources: {}, staleSince: { targets: { paris: '2026-11-29T08:00:00Z' } } };
  const report = buildRunReport({
    command: 'synth', exitCode: 0, offline: false, spec: spec as never, snapshot: snapshot as never, stale: [], changes: [], lockChanged: true, diagnostics: [],
    heldBack: [{ target: 'paris', removals: [{ source: 'london', target: 'paris', removed: 2, before: 2 }], wouldMake: [{ source: 'london', target: 'paris', removed: 2, before: 2 }], together: [], causes: [] }],
  });
  const paris = report.targets.find((t) => t.cluster === 'paris')!;
  assert.deepEqual({ ...paris }, {
    cluster: 'paris', observed: true, reachable: true, stale: true, staleSince: '2026-11-29T08:00:00Z', error: null, exportedServices: 2,
    heldBack: 'its new observation would remove 2 of its 2 mirrors in "london"; letting it through would remove all 2 mirror Services of "paris" in "london", more than the removal guard allows',
  });
  assert.equal('heldBack' in report.targets.find((t) => t.cluster === 'rome')!, false, 'only a held-back target has the field');
  assert.ok(summaryLines(report).some((l) => /^paris\s+held back \(stale\)\s+2\s+2026-11-29T08:00:00Z$/.test(l)), summaryLines(report).join('\n'));
  assert.match(jobSummaryMarkdown(report), /\| paris \| target \| 2026-11-29T08:00:00Z \| held back: ` its new observation would remove 2 of its 2 mirrors in "london"; .* ` \|/);
});

test('the job summary keeps the shape of a multi-line error: the removal guard\'s sources are a list in the quote, each cause nested under its source (issue 39)', async () => {
  const { jobSummaryMarkdown } = await import('../../src/report/job-summary.js');
  const { largeRemovalMessage } = await import('../../src/guard/removal-guard.js');
  const MarkdownIt = (await import('markdown-it')).default;
  const error = largeRemovalMessage(
    [{ source: 'london', target: 'paris', removed: 5, before: 5 }, { source: 'rome', removed: 3, before: 4 }],
    (r) => (r.source === 'london' ? ['paris lists no exported service'] : []),
  );
  const report = {
    reportFormat: REPORT_FORMAT, mirrorcVersion: '0.1.0', command: 'synth', exitCode: ExitCode.REMOVAL_NOT_CONFIRMED, error, offline: false, shard: null, lockChanged: false,
    targets: [], sources: [], warnings: [], diagnostics: [],
  } as const;
  const html = new MarkdownIt().render(jobSummaryMarkdown(report));
  const quote = /<blockquote>([\s\S]*)<\/blockquote>/.exec(html)?.[1] ?? '';
  const items = [...quote.matchAll(/<li>(?:<p>)?<code>([^<]*)<\/code>/g)].map((m) => m[1]);
  assert.deepEqual(items, [
    'london: all 5 mirror Services of &quot;paris&quot; would be removed',
    'because: paris lists no exported service',
    'rome: 3 of its 4 mirror Services would be removed (more than 25 %)',
  ], html);
  // The cause is nested in london's item; the advice after the list is a paragraph of its own.
  assert.match(quote, /<li><code>london: [^<]*<\/code>\s*<ul>\s*<li><code>because: /, html);
  assert.match(quote, /<\/ul>\s*<p><code>Argo CD or Flux would delete them/, html);
});
