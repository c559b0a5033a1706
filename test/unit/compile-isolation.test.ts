/**
 * Isolation (src/compile/compile-fleet.ts isolateNames, pinned IPs): a problem of one service's
 * mirror skips that mirror only, with a warning; --strict makes it a fleet-wide error. In a clash,
 * the mirror that exists in the current output keeps its name (the lock's unit records, src/state/unit-records.ts; an older dist/ is adopted by src/state/adopt-dist.ts).
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import YAML from 'yaml';
import { CompileError } from '../../src/compile/diagnostics.js';
import { mirrorOrigin } from '../../src/state/unit-inventory.js';
import { treeUnitRecords } from '../../src/state/adopt-dist.js';
import { recordOwnerLookup } from '../../src/state/unit-records.js';

/** The owners an older dist/ tree gives once adopted into unit records (the migration path). */
const previousOwnerLookup = (tree: ReadonlyMap<string, string>) => recordOwnerLookup(treeUnitRecords(tree));
import { objectPath } from '../../src/emit/render-files.js';
import { readTree } from '../../src/emit/write-output.js';
import { Cluster, Link } from '../../src/model/index.js';
import type { FleetSnapshot, PinnedRangeService } from '../../src/snapshot/snapshot.js';
import { compileObjects, service, snapshot, source, spec, statefulService, target } from '../fixtures/snapshots.js';
import { renderClash } from './support/clash-render.js';

const CLASH_RENDER = join(import.meta.dirname, 'support', 'clash-render.ts');

// s mirrors x-y and y: foo of "x-y" and foo-x of "y" are both mirrored as foo-x-y.
const clashFleet = spec((f) => {
  const s = new Cluster(f, 's', { pinnedServiceIPRange: '10.96.0.0/29' });
  const xy = new Cluster(f, 'x-y');
  const y = new Cluster(f, 'y');
  new Link(f, 's-xy', { source: s, target: xy });
  new Link(f, 's-y', { source: s, target: y });
});

/** Mirror Services compiled for source s, by `namespace/name`. */
function mirrorNames(objects: Map<string, any>): string[] {
  return [...objects.keys()].filter((k) => k.startsWith('s/Service/')).map((k) => k.slice('s/Service/'.length)).sort();
}

function clashSnapshot(extra: FleetSnapshot['targets'] = {}): FleetSnapshot {
  return snapshot({ 'x-y': target([service('default', 'foo'), service('default', 'keep')]), y: target([service('default', 'foo-x'), service('default', 'other')]), ...extra }, { s: source(['default']) });
}

describe('one service never freezes the fleet', () => {
  test('GIVEN one over-long mirror name WHEN compiled THEN that service is skipped with a warning and every other mirror is compiled', () => {
    const long = 'l'.repeat(60);
    const snap = snapshot({ 'x-y': target([service('default', long), service('default', 'keep')]), y: target([service('default', 'other')]) }, { s: source(['default']) });
    const { objects, result } = compileObjects(clashFleet, snap);
    assert.deepEqual(mirrorNames(objects), ['default/keep-x-y', 'default/other-y']);
    assert.ok(result.warnings.some((w) => w.includes(`x-y/default/${long}`) && w.includes('(64 characters)') && w.includes('is skipped, the other mirrors are updated (--strict makes this an error)')), result.warnings.join('\n'));
  });

  test('GIVEN two new target services clashing on one mirror name WHEN compiled with no previous owner THEN both are skipped, the rest compiled', () => {
    const { objects, result } = compileObjects(clashFleet, clashSnapshot());
    assert.deepEqual(mirrorNames(objects), ['default/keep-x-y', 'default/other-y']);
    assert.ok(result.warnings.some((w) => w.includes('x-y/default/foo and y/default/foo-x would all be mirrored as Service default/foo-x-y') && w.includes('none of them has that mirror yet, so all are skipped')), result.warnings.join('\n'));
  });

  test('GIVEN a clash where one service already owns the mirror in dist/ WHEN compiled THEN the owner keeps the name and the newcomer is skipped, either way round', () => {
    for (const [owner, newcomer] of [['x-y/default/foo', 'y/default/foo-x'], ['y/default/foo-x', 'x-y/default/foo']] as const) {
      const { objects, result } = compileObjects(clashFleet, clashSnapshot(), { previousOwners: { s: { 'default/foo-x-y': owner } } });
      assert.deepEqual(mirrorNames(objects), ['default/foo-x-y', 'default/keep-x-y', 'default/other-y']);
      const mirror = objects.get('s/Service/default/foo-x-y');
      assert.equal(mirrorOrigin(mirror), owner, 'the mirror written is the owner\'s');
      assert.ok(result.warnings.some((w) => w.includes(`${owner} has that mirror already and keeps it, so ${newcomer} is skipped`)), result.warnings.join('\n'));
    }
  });

  test('GIVEN a clash, a previous owner, foreign Services and pinned IPs WHEN compiled from inputs in the reverse order, and in another process with another time zone and locale THEN the files, warnings and pinned IPs are byte-identical', async () => {
    // GIVEN the inputs as observation writes them (sorted), rendered to dist/'s files
    const sorted = renderClash('sorted');
    const { files, warnings, pinnedServiceIPs } = JSON.parse(sorted);
    const paths: string[] = files[0][1].map(([p]: [string]) => p);
    for (const p of ['default/service-foo-x-y.yaml', 'default/service-keep-x-y.yaml', 'apps/service-web-x-y.yaml', 'default/service-kafka-1-x-y.yaml', 'default/service-zk-2-y.yaml', 'default/service-zk-y.yaml']) assert.ok(paths.includes(p), `${p} in ${paths.join(', ')}`);
    assert.ok(!paths.includes('default/service-other-y.yaml') && !paths.includes('default/service-taken-x-y.yaml'), 'foreign names are skipped');
    assert.equal(warnings.length, 3, warnings.join('\n'));
    assert.equal(Object.keys(pinnedServiceIPs.s).length, 5);
    // WHEN every list and record of the snapshot (targets, sources, services, hostnames, namespaces,
    // selectors, foreign Services) is in the reverse order THEN the same bytes
    assert.equal(renderClash('reversed'), sorted);
    // WHEN compiled in another process, at UTC+14 in a Turkish locale (dotless i, comma decimals), from either order
    const env = { ...process.env, NODE_OPTIONS: '', TZ: 'Pacific/Kiritimati', LC_ALL: 'tr_TR.UTF-8', LANG: 'tr_TR.UTF-8' };
    for (const order of ['sorted', 'reversed']) {
      const child = spawnSync(process.execPath, ['--import', 'tsx', CLASH_RENDER, order], { cwd: join(import.meta.dirname, '..', '..'), encoding: 'utf8', env, maxBuffer: 16 * 1024 * 1024 });
      assert.equal(child.status, 0, child.stderr);
      const [environment, ...rest] = child.stdout.split('\n');
      assert.equal(environment, 'Pacific/Kiritimati tr-TR', 'the child runs in another time zone and locale');
      // THEN the same bytes
      assert.equal(rest.join('\n'), sorted, `${order}, in another process`);
    }
  });

  test('GIVEN a mirror name taken by a foreign Service of the source WHEN compiled THEN only that mirror is skipped', () => {
    const snap = clashSnapshot();
    const withForeign = { ...snap, sources: { s: source(['default'], [{ namespace: 'default', name: 'other-y' }]) } };
    const { objects, result } = compileObjects(clashFleet, withForeign);
    assert.ok(!mirrorNames(objects).includes('default/other-y'));
    assert.ok(mirrorNames(objects).includes('default/keep-x-y'));
    assert.ok(result.warnings.some((w) => w.includes('would be Service default/other-y, which already exists in "s"') && w.includes('y/default/other is skipped')), result.warnings.join('\n'));
  });

  test('GIVEN a pinned IP held by a foreign Service WHEN compiled THEN that StatefulSet is skipped, its IP stays remembered, the rest compiled', () => {
    const live: PinnedRangeService[] = [{ namespace: 'apps', name: 'legacy', ip: '10.96.0.1', managed: false }];
    const snap: FleetSnapshot = {
      ...snapshot({ 'x-y': target([statefulService('default', 'kafka', ['kafka-0']), service('default', 'keep')]), y: target([statefulService('default', 'zk', ['zk-0'])]) }, {}),
      sources: { s: { ...source(['default']), pinnedRangeServices: live } },
      pinnedServiceIPs: { s: { 'default/kafka-0-x-y': '10.96.0.1' } },
    };
    const { objects, result } = compileObjects(clashFleet, snap);
    assert.deepEqual(mirrorNames(objects), ['default/keep-x-y', 'default/zk-0-y', 'default/zk-y']);
    assert.equal(result.pinnedServiceIPs.s?.['default/kafka-0-x-y'], '10.96.0.1', 'kept in the lock for when it is free again');
    assert.ok(result.pinnedServiceIPs.s?.['default/zk-0-y'] !== '10.96.0.1');
    assert.ok(result.warnings.some((w) => w.includes('is held by Service apps/legacy') && w.includes('x-y/default/kafka is skipped')), result.warnings.join('\n'));
  });

  test('GIVEN a range too small for every StatefulSet pod WHEN compiled THEN the services without an IP are skipped, the others compiled', () => {
    // /29: six usable addresses; kafka needs 3, zk needs 4
    const snap: FleetSnapshot = {
      ...snapshot({ 'x-y': target([statefulService('default', 'kafka', ['kafka-0', 'kafka-1', 'kafka-2'])]), y: target([statefulService('default', 'zk', ['zk-0', 'zk-1', 'zk-2', 'zk-3'])]) }, {}),
      sources: { s: { ...source(['default']), pinnedRangeServices: [] } },
    };
    const { objects, result } = compileObjects(clashFleet, snap);
    assert.ok(mirrorNames(objects).includes('default/kafka-x-y'));
    assert.ok(!mirrorNames(objects).includes('default/zk-y'));
    assert.ok(result.warnings.some((w) => w.includes('has no free address left') && w.includes('y/default/zk is skipped')), result.warnings.join('\n'));
  });

  test('GIVEN any of these problems WHEN compiled with strict THEN compile fails listing them and produces nothing', () => {
    assert.throws(() => compileObjects(clashFleet, clashSnapshot(), { strict: true }), (e: unknown) => e instanceof CompileError && e.message.includes('would both be mirrored as Service default/foo-x-y'));
    assert.throws(
      () => compileObjects(clashFleet, clashSnapshot(), { strict: true, previousOwners: { s: { 'default/foo-x-y': 'x-y/default/foo' } } }),
      (e: unknown) => e instanceof CompileError,
      'a previous owner does not soften --strict',
    );
  });
});

describe('previous owners adopted from an older dist/', () => {
  test('GIVEN a dist/ tree with gateway, per-pod and other objects WHEN read THEN each mirror Service maps to its origin', () => {
    const dir = mkdtempSync(join(tmpdir(), 'mirrorc-owners-'));
    try {
      const write = (rel: string, object: unknown): void => {
        mkdirSync(join(dir, rel, '..'), { recursive: true });
        writeFileSync(join(dir, rel), YAML.stringify(object));
      };
      const mirror = (name: string, cluster: string, fq: string) => ({ apiVersion: 'v1', kind: 'Service', metadata: { name, namespace: 'default', labels: { 'mirror.linkerd.io/cluster-name': cluster }, annotations: { 'mirror.linkerd.io/remote-svc-fq-name': fq } } });
      write('s/default/service-foo-x-y.yaml', mirror('foo-x-y', 'x-y', 'foo.default.svc.cluster.local'));
      write('s/default/service-kafka-0-x-y.yaml', mirror('kafka-0-x-y', 'x-y', 'kafka-0.kafka.default.svc.cluster.local'));
      write('s/default/service-mine.yaml', { kind: 'Service', metadata: { name: 'mine', namespace: 'default' } });
      write('s/default/endpoints-foo-x-y.yaml', { kind: 'Endpoints', metadata: { name: 'foo-x-y' } });
      writeFileSync(join(dir, 's/default/service-broken.yaml'), ': not yaml : [');
      writeFileSync(join(dir, 's/kustomization.yaml'), 'resources: []\n');
      const owner = previousOwnerLookup(readTree(dir));
      const keys = ['default/foo-x-y', 'default/kafka-0-x-y', 'default/mine', 'default/broken'];
      assert.deepEqual(keys.map((k) => owner('s', k)), ['x-y/default/foo', 'x-y/default/kafka', undefined, undefined]);
      assert.equal(owner('other', 'default/foo-x-y'), undefined);
      assert.deepEqual(keys.map((k) => previousOwnerLookup(new Map())('s', k)), [undefined, undefined, undefined, undefined]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('emit defence in depth', () => {
  test('GIVEN an object whose name or namespace is not a DNS name WHEN its path is computed THEN it is an internal error, never a path', () => {
    assert.equal(objectPath({ kind: 'Service', metadata: { name: 'web-paris', namespace: 'default' } }), 'default/service-web-paris.yaml');
    for (const metadata of [{ name: '../../x', namespace: 'default' }, { name: 'web', namespace: '../../x' }, { name: 'a\nb' }, { name: 'a/b' }]) {
      assert.throws(() => objectPath({ kind: 'Service', metadata }), /internal error: refusing to write an object to a file path/);
    }
  });
});

describe('mirror names Kubernetes would refuse', () => {
  test('GIVEN a StatefulSet pod whose hostname starts with a digit WHEN compiled THEN its per-pod mirror (not a DNS-1035 name) skips that service only', () => {
    const snap: FleetSnapshot = {
      ...snapshot({ 'x-y': target([statefulService('default', 'kafka', ['0kafka']), service('default', 'keep')]) }, {}),
      sources: { s: { ...source(['default']), pinnedRangeServices: [] } },
    };
    const { objects, result } = compileObjects(clashFleet, snap);
    assert.deepEqual(mirrorNames(objects), ['default/keep-x-y']);
    assert.ok(result.warnings.some((w) => w.includes('"0kafka-x-y" is not a valid Service name') && w.includes('x-y/default/kafka is skipped')), result.warnings.join('\n'));
  });
});
