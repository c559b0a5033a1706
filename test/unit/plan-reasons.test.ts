/**
 * `plan` names the reason next to each removed mirror and each endpoints change, and the removal
 * guard (exit 7) names the link or selector change that causes its removals
 * (src/explain/change-reasons.ts). Real runs: synth writes dist/ and the lock in a temp folder,
 * then the fleet or the lock changes and plan / synth run again, offline.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, test } from 'node:test';
import { parseAllDocuments } from 'yaml';
import { ExitCode } from '../../src/errors/exit-codes.js';
import { buildFleet } from '../../src/load/load-fleet.js';
import { diffTrees } from '../../src/emit/diff-trees.js';
import { changeReasons } from '../../src/explain/change-reasons.js';
import { ExplainReason } from '../../src/explain/explain-reason.js';
import { compileFleetTree } from '../../src/pipeline/synth-fleet.js';
import type { FleetDefinition } from '../../src/load/load-fleet.js';
import { Cluster, Link } from '../../src/model/index.js';
import type { LinkProps } from '../../src/model/link.js';
import { renderLockFile } from '../../src/observe/lock-file.js';
import { runSynth, type SynthOptions } from '../../src/pipeline/run-synth.js';
import type { FleetSnapshot } from '../../src/snapshot/snapshot.js';
import { service, source, target } from '../fixtures/snapshots.js';

const QUERIES = ['mirror.linkerd.io/exported=remote-discovery', 'mirror.linkerd.io/exported=true', 'mirror.linkerd.io/federated=member'];

function fleet(link: Partial<LinkProps> = {}, withLink = true): FleetDefinition {
  return (f) => {
    const src = new Cluster(f, 'src');
    const tgt = new Cluster(f, 'tgt');
    const other = new Cluster(f, 'other');
    new Link(f, 'src-from-other', { source: src, target: other });
    if (withLink) new Link(f, 'src-from-tgt', { source: src, target: tgt, ...link });
  };
}

function lock(tgtServices = ['a', 'b', 'c'], notReady: string[] = []): FleetSnapshot {
  return {
    format: 1,
    targets: {
      other: target([service('shop', 'keep')], { selectors: QUERIES }),
      tgt: target(tgtServices.map((n) => service('shop', n, notReady.includes(n) ? { hasReadyEndpoints: false } : {})), { selectors: QUERIES }),
    },
    sources: { src: source(['shop']) },
  };
}

let dir: string;
let printed: string[];
let logged: string[];
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'mirrorc-plan-reasons-'));
  writeFileSync(join(dir, 'lock.json'), renderLockFile(lock()));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

function run(define: FleetDefinition, options: Partial<SynthOptions> = {}): ReturnType<typeof runSynth> {
  printed = [];
  logged = [];
  return runSynth({ define, lockFile: join(dir, 'lock.json'), outDir: join(dir, 'dist'), offline: true, newFleet: true, print: (l) => printed.push(l), log: (l) => logged.push(l), ...options });
}

async function written(): Promise<void> {
  const first = await run(fleet());
  assert.equal(first.exitCode, ExitCode.OK, first.error);
}

test('a changed selector: plan names it next to each removed mirror, and the removal guard names it as the cause', async () => {
  await written();
  const changed = fleet({ selector: { matchLabels: { team: 'a' } } });
  const plan = await run(changed, { mode: 'plan' });
  assert.equal(plan.exitCode, ExitCode.OK, plan.error);
  const removed = printed.filter((l) => l.startsWith('  - '));
  assert.deepEqual(removed.filter((l) => l.includes('service-')).map((l) => l.split('  (')[0]), ['  - from-tgt/shop/service-a-tgt.yaml', '  - from-tgt/shop/service-b-tgt.yaml', '  - from-tgt/shop/service-c-tgt.yaml']);
  for (const line of removed.filter((l) => l.includes('service-'))) {
    assert.match(line, /\(selector no longer matches: link fleet\/src-from-tgt's selector "team=a" does not match tgt\/shop\/[abc] \(label team=a: the service has no such label\).*\) \[selector-not-matched\]$/);
  }
  // a removed mirror is one file (its Endpoints and slices are documents of it), its reason said once;
  // the other removed file (the emptied unit's kustomization.yaml) carries no reason
  assert.deepEqual(removed.map((l) => l.split('  (')[0]), ['  - from-tgt/kustomization.yaml', '  - from-tgt/shop/service-a-tgt.yaml', '  - from-tgt/shop/service-b-tgt.yaml', '  - from-tgt/shop/service-c-tgt.yaml']);
  assert.equal(removed[0], '  - from-tgt/kustomization.yaml');
  const synth = await run(changed);
  assert.equal(synth.exitCode, ExitCode.REMOVAL_NOT_CONFIRMED);
  assert.match(synth.error!, /src: all 3 mirror Services of "tgt" would be removed\n {6}because: 3 mirrors \(tgt\/shop\/a, tgt\/shop\/b, tgt\/shop\/c\): link fleet\/src-from-tgt's selector "team=a" no longer matches them \(label team=a: the service has no such label\) \[selector-not-matched\]\n {2}Argo/);
});

test('a selector that no longer matches the observed labels: the failing label is named', async () => {
  await written();
  const plan = await run(fleet({ selector: { matchLabels: { 'mirror.linkerd.io/exported': 'true', app: 'zzz' } } }), { mode: 'plan' });
  assert.equal(plan.exitCode, ExitCode.OK, plan.error);
  // the lock has no observation with that selector either; observed with it (as a live run would), the label is what fails
  writeFileSync(join(dir, 'lock.json'), renderLockFile({ ...lock(), targets: { ...lock().targets, tgt: { ...lock().targets.tgt!, selectors: [...QUERIES, 'app=zzz,mirror.linkerd.io/exported=true'].sort() } } }));
  const again = await run(fleet({ selector: { matchLabels: { 'mirror.linkerd.io/exported': 'true', app: 'zzz' } } }), { mode: 'plan' });
  assert.equal(again.exitCode, ExitCode.OK, again.error);
  const line = printed.find((l) => l.startsWith('  - from-tgt/shop/service-a-tgt.yaml'));
  assert.match(line ?? '', /selector no longer matches: .*label app=zzz: the service has app="a".*\[selector-not-matched\]$/);
});

test('a removed link: plan and the removal guard say so', async () => {
  await written();
  const withoutLink = fleet({}, false);
  await run(withoutLink, { mode: 'plan' });
  assert.ok(printed.includes('  - from-tgt/shop/service-a-tgt.yaml  (link removed: no link from "tgt" into "src" any more) [no-link]'), printed.join('\n'));
  const synth = await run(withoutLink);
  assert.equal(synth.exitCode, ExitCode.REMOVAL_NOT_CONFIRMED);
  assert.match(synth.error!, /because: 3 mirrors \(tgt\/shop\/a, tgt\/shop\/b, tgt\/shop\/c\): link removed: no link from "tgt" into "src" any more \[no-link\]/);
});

test('an export label gone (the target no longer lists the service): plan names it', async () => {
  await written();
  writeFileSync(join(dir, 'lock.json'), renderLockFile(lock(['a', 'c'])));
  const plan = await run(fleet(), { mode: 'plan' });
  assert.equal(plan.exitCode, ExitCode.OK, plan.error);
  const line = printed.find((l) => l.startsWith('  - from-tgt/shop/service-b-tgt.yaml'));
  assert.match(line ?? '', /\(export label gone: "tgt" no longer lists shop\/b among the services link fleet\/src-from-tgt selects .*; the label was removed, or the service deleted\) \[not-exported\]$/);
});

test('endpoints emptied because the target has no ready endpoint: plan names the reason next to the endpoints change', async () => {
  await written();
  writeFileSync(join(dir, 'lock.json'), renderLockFile(lock(['a', 'b', 'c'], ['b'])));
  const plan = await run(fleet(), { mode: 'plan' });
  assert.equal(plan.exitCode, ExitCode.OK, plan.error);
  const changed = printed.filter((l) => l.startsWith('  ~ from-tgt/shop/'));
  // the mirror's one file, with the reason once; its changed objects are its Endpoints and EndpointSlice
  assert.deepEqual(changed, ['  ~ from-tgt/shop/service-b-tgt.yaml  (endpoints removed: tgt/shop/b has no ready endpoint) [not-ready]']);
  const fields = printed.slice(printed.indexOf(changed[0]!) + 1);
  assert.deepEqual(fields.slice(0, fields.findIndex((l) => !l.startsWith('      '))), [
    '      Endpoints/b-tgt subsets: [{"addresses":[{"ip":"203.0.113.10"}],"ports":[{"name":"http","port":4143,"protocol":"TCP"}]}] → (none)',
    '      EndpointSlice/b-tgt-ipv4 endpoints[0]: {"addresses":["203.0.113.10"],"conditions":{"ready":true}} → (none)',
  ]);
  // and back: written, then ready again
  assert.equal((await run(fleet())).exitCode, ExitCode.OK);
  const objects = parseAllDocuments(readFileSync(join(dir, 'dist', 'src', 'from-tgt', 'shop', 'service-b-tgt.yaml'), 'utf8')).map((d) => d.toJS() as { kind: string; metadata: { name: string } });
  const emptied = objects.find((o) => o.kind === 'Endpoints' && o.metadata.name === 'b-tgt');
  assert.ok(emptied, JSON.stringify(objects));
  assert.doesNotMatch(JSON.stringify(emptied), /"ip":/);
});

test('a live run where the target stopped listing a service it listed before: "export label gone", with the label it had', () => {
  // GIVEN the previous observation (the lock) lists tgt/shop/b, the new one (a live run's) does not
  const spec = buildFleet(fleet()).fleet.toSpec();
  const previous = lock();
  const snapshot = lock(['a', 'c']);
  const before = compileFleetTree(spec, previous, {}).tree;
  const after = compileFleetTree(spec, snapshot, {}).tree;
  // WHEN the changes are explained
  const reasons = changeReasons({ spec, previous, snapshot, before, after, records: {} }, diffTrees(before, after));
  // THEN the removed mirror's Service file says the export label is gone, naming the label it had
  const line = reasons.byFile.get('src/from-tgt/shop/service-b-tgt.yaml');
  assert.equal(line?.reason, ExplainReason.NOT_EXPORTED);
  assert.match(line!.message, /^export label gone: "tgt" no longer lists shop\/b among the services link fleet\/src-from-tgt selects \(.*\); it had mirror\.linkerd\.io\/exported=true; the label was removed, or the service deleted$/);
  assert.deepEqual(reasons.removalCauses('src', 'tgt'), [`1 mirror (tgt/shop/b): export label gone: "tgt" no longer lists them among the services link fleet/src-from-tgt selects (${QUERIES.join(', ')}); their labels were removed, or the services deleted [not-exported]`]);
});

test('a mirror that moves to another unit folder (the target\'s unit splits into shards) is reported as moved, not "no longer compiled", and is no removal cause (issue 39)', () => {
  // GIVEN tgt's unit grows past one shard: 100 mirrors, then 200
  const spec = buildFleet(fleet()).fleet.toSpec();
  const many = (n: number): FleetSnapshot => ({ ...lock(), targets: { ...lock().targets, tgt: target(Array.from({ length: n }, (_, i) => service('shop', `s${String(i).padStart(3, '0')}`)), { selectors: QUERIES }) } });
  const [previous, snapshot] = [many(100), many(200)];
  const before = compileFleetTree(spec, previous, {}).tree;
  const after = compileFleetTree(spec, snapshot, {}).tree;
  const changes = diffTrees(before, after);
  const removed = changes.flatMap((c) => c.removed.map((r) => `${c.cluster}/${r}`)).filter((k) => k.endsWith('-tgt.yaml'));
  assert.ok(removed.length > 0, 'no mirror moved: the fixture no longer splits the unit');
  // WHEN the changes are explained
  const reasons = changeReasons({ spec, previous, snapshot, before, after, records: {} }, changes);
  // THEN each removed file is a move to the same file in the new shard, and nothing is a removal cause
  for (const key of removed) {
    const r = reasons.byFile.get(key);
    assert.equal(r?.reason, ExplainReason.MOVED, `${key}: ${JSON.stringify(r)}`);
    const to = after.has(`src/${r!.message.split(' ')[2]!.replace(/:$/, '')}`);
    assert.ok(to, `${key}: the message names no added file: ${r!.message}`);
    assert.doesNotMatch(r!.message, /no longer compiled/);
  }
  assert.deepEqual(reasons.removalCauses('src'), []);
});
