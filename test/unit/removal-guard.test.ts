/** The removal guard and suspect targets: which removals need --confirm-removals, which observations are held back. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parseAllDocuments } from 'yaml';
import type { FileTree } from '../../src/emit/render-files.js';
import { largeRemovalMessage, largeRemovals as recordRemovals } from '../../src/guard/removal-guard.js';
import { mirrorTargetOf, treeUnitRecords } from '../../src/state/adopt-dist.js';

/** The guard on the unit records of two output trees (as a migration adopts them). */
const largeRemovals = (before: ReadonlyMap<string, string>, after: ReadonlyMap<string, string>) => recordRemovals(treeUnitRecords(before), treeUnitRecords(after));
import { holdBackSuspectTargets } from '../../src/guard/suspect-targets.js';
import type { FleetSnapshot, ObservedService, TargetSnapshot } from '../../src/snapshot/snapshot.js';

const mirror = (target: string, extraAnnotation = ''): string =>
  `# header\napiVersion: v1\nkind: Service\nmetadata:\n  annotations:\n${extraAnnotation}    mirror.linkerd.io/remote-svc-fq-name: x.default.svc.cluster.local\n` +
  `  labels:\n    app: x\n    mirror.linkerd.io/cluster-name: ${target}\n    mirrorc.io/managed: "true"\n  name: x-${target}\nspec: {}\n`;

/** A source folder with `counts[target]` mirror Services per target, plus an Endpoints file per mirror. */
function tree(source: string, counts: Record<string, number>): FileTree {
  const files: FileTree = new Map();
  for (const [target, n] of Object.entries(counts)) {
    for (let i = 0; i < n; i++) {
      files.set(`${source}/default/service-s${i}-${target}.yaml`, mirror(target));
      files.set(`${source}/default/endpoints-s${i}-${target}.yaml`, 'kind: Endpoints\n');
    }
  }
  files.set(`${source}/kustomization.yaml`, 'resources: []\n');
  return files;
}

test('GIVEN a mirror Service file WHEN its target is read THEN the label counts, a look-alike annotation does not', () => {
  assert.equal(mirrorTargetOf(mirror('paris')), 'paris');
  assert.equal(mirrorTargetOf(mirror('paris', '    mirror.linkerd.io/cluster-name: evil\n')), 'paris');
  assert.equal(mirrorTargetOf(mirror('"123"')), '123');
  assert.equal(mirrorTargetOf('kind: Service\nmetadata:\n  labels:\n    app: x\n  name: y\n'), undefined);
  // A per-pod mirror of a StatefulSet counts with its root, not on its own.
  assert.equal(mirrorTargetOf(mirror('paris').replace('    app: x\n', '    app: x\n    mirror.linkerd.io/headless-mirror-svc-name: kafka-paris\n')), undefined);
});

test('GIVEN a source with mirrors of two targets WHEN every mirror of one target would go THEN the guard names source and target', () => {
  const before = tree('london', { paris: 3, rome: 10 });
  const after = tree('london', { rome: 10 });
  assert.deepEqual(largeRemovals(before, after), [{ source: 'london', target: 'paris', removed: 3, before: 3 }]);
  assert.match(largeRemovalMessage(largeRemovals(before, after)), /london: all 3 mirror Services of "paris" would be removed[\s\S]*--confirm-removals/);
});

test('GIVEN a target with a single mirror WHEN it goes THEN that is an ordinary unexport, not a large removal', () => {
  assert.deepEqual(largeRemovals(tree('london', { paris: 1, rome: 10 }), tree('london', { rome: 10 })), []);
});

test('GIVEN a source with 20 mirrors WHEN 6 go (30 %) THEN the guard stops it; WHEN 5 go (25 %) THEN it does not', () => {
  const before = tree('london', { paris: 20 });
  const keep = (n: number): FileTree => new Map([...before].filter(([p]) => !/service-s(\d+)-/.test(p) || Number(/service-s(\d+)-/.exec(p)![1]) >= n));
  assert.deepEqual(largeRemovals(before, keep(6)), [{ source: 'london', removed: 6, before: 20 }]);
  assert.deepEqual(largeRemovals(before, keep(5)), []);
});

test('GIVEN a small source WHEN 4 of its 5 mirrors go THEN the share rule needs at least 5 removals', () => {
  const before = tree('london', { paris: 5 });
  const after = new Map([...before].filter(([p]) => !/service-s[0-3]-/.test(p)));
  assert.deepEqual(largeRemovals(before, after), []);
});

test('GIVEN mirrors that change content or only lose Endpoints (a mode switch) WHEN compared THEN nothing counts as removed', () => {
  const before = tree('london', { paris: 4 });
  const after: FileTree = new Map([...before].filter(([p]) => !p.includes('/endpoints-')).map(([p, t]) => [p, `${t}# changed\n`]));
  assert.deepEqual(largeRemovals(before, after), []);
});

const svc = (name: string): ObservedService => ({ namespace: 'default', name, labels: {}, annotations: {}, type: 'ClusterIP', headless: false, ports: [{ name: 'http', protocol: 'TCP', port: 80 }] });
const target = (names: string[], address = '203.0.113.1'): TargetSnapshot => ({
  selectors: ['mirror.linkerd.io/exported=true'], services: names.map(svc), missingExplicitExports: [], gateway: { addresses: [address], port: 4143 },
});
const snap = (targets: Record<string, TargetSnapshot>): FleetSnapshot => ({ format: 1, targets, sources: {} });

test('GIVEN a lock with 3 services of paris WHEN paris now lists none THEN its services are kept, its fresh gateway taken, and it is reported', () => {
  const { snapshot, suspects } = holdBackSuspectTargets(snap({ paris: target(['a', 'b', 'c']) }), snap({ paris: target([], '198.51.100.9') }));
  assert.deepEqual(suspects, [{ cluster: 'paris', kept: 3 }]);
  assert.deepEqual(snapshot.targets.paris!.services.map((s) => s.name), ['a', 'b', 'c']);
  assert.deepEqual(snapshot.targets.paris!.gateway!.addresses, ['198.51.100.9']);
});

test('GIVEN a held-back target whose lock says its gateway probe failed WHEN the fresh probe passed THEN the fresh verdict and trust roots are kept, not the old ones', () => {
  const root = { fingerprint: Array(32).fill('AB').join(':'), subject: 'CN=root-b', notAfter: '2030-01-01T00:00:00.000Z' };
  const before = { ...target(['a', 'b', 'c']), gatewayProbe: { alive: false }, trustRoots: [{ ...root, subject: 'CN=root-a' }] };
  const now = { ...target([], '198.51.100.9'), trustRoots: [root] };
  const { snapshot } = holdBackSuspectTargets(snap({ paris: before }), snap({ paris: now }));
  assert.deepEqual(snapshot.targets.paris!.services.map((s) => s.name), ['a', 'b', 'c']);
  assert.equal(snapshot.targets.paris!.gatewayProbe, undefined);
  assert.deepEqual(snapshot.targets.paris!.trustRoots, [root]);
});

test('GIVEN a lock with 1 service of paris WHEN paris lists none, or 3 of rome WHEN rome lists one THEN nothing is held back', () => {
  const { snapshot, suspects } = holdBackSuspectTargets(snap({ paris: target(['a']), rome: target(['a', 'b', 'c']) }), snap({ paris: target([]), rome: target(['a']) }));
  assert.deepEqual(suspects, []);
  assert.equal(snapshot.targets.paris!.services.length, 0);
  assert.equal(snapshot.targets.rome!.services.length, 1);
});

test('GIVEN MCS imports of 3 services from paris WHEN paris would no longer be imported THEN the guard stops it like mirrors (the real rendered files)', async () => {
  // GIVEN london imports shop/a, shop/b, shop/c from paris and rome through the MCS API, rendered as synth writes them
  const { Cluster, Link } = await import('../../src/model/index.js');
  const { compileFleetTree } = await import('../../src/pipeline/synth-fleet.js');
  const { DEFAULT_SELECTOR_QUERIES, gateway, service, snapshot, source, spec, target } = await import('../fixtures/snapshots.js');
  const fleet = (targets: string[]) => spec((f) => {
    const london = new Cluster(f, 'london');
    for (const t of ['paris', 'rome']) {
      const cluster = new Cluster(f, t);
      if (targets.includes(t)) new Link(f, `london-from-${t}`, { source: london, target: cluster, mcs: true });
    }
  });
  const services = ['a', 'b', 'c'].map((n) => service('shop', n));
  const snap = snapshot({
    paris: target(services, { selectors: DEFAULT_SELECTOR_QUERIES, gateway: gateway({ addresses: ['203.0.113.10', 'fd00::10'] }) }),
    rome: target(services, { selectors: DEFAULT_SELECTOR_QUERIES, gateway: gateway({ addresses: ['198.51.100.30'] }) }),
  }, { london: source(['shop']) });
  const before = compileFleetTree(fleet(['paris', 'rome']), snap, {}).tree;
  // (each import is one file: its ServiceImport, then the slices of every exporting cluster, paris's of both address families)
  const importA = before.get('london/shared/shop/serviceimport-a.yaml');
  assert.ok(importA !== undefined, [...before.keys()].join(', '));
  assert.deepEqual(parseAllDocuments(importA).map((d) => d.toJS() as { kind: string; metadata: { name: string } }).map((o) => `${o.kind}/${o.metadata.name}`), [
    'ServiceImport/a', 'EndpointSlice/a-paris-mcs-ipv4', 'EndpointSlice/a-paris-mcs-ipv6', 'EndpointSlice/a-rome-mcs-ipv4',
  ]);
  // WHEN the paris link goes (rome's imports stay)
  const after = compileFleetTree(fleet(['rome']), snap, {}).tree;
  // THEN the guard names london and paris, counting each import once (not per address family)
  assert.deepEqual(largeRemovals(before, after), [{ source: 'london', target: 'paris', removed: 3, before: 3 }]);
  // AND an unchanged tree is no removal
  assert.deepEqual(largeRemovals(before, before), []);
});
