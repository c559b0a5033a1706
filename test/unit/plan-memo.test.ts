/**
 * The planning memo (src/compile/plan-memo.ts) shares work between the sources of one planFleet
 * call: metadata copied under a link's policy, the services a link selects, mirror names. These
 * tests make several sources mirror the same target services through links that differ in exactly
 * what the memo keys on, and check that each source gets the mirrors and warnings of its own link,
 * and the same ones whether it is planned alone or after the others filled the memo.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { planFleet } from '../../src/compile/compile-fleet.js';
import { copiedAnnotations, copiedLabels, copiedMetadata, undeliverableMetadata } from '../../src/compile/copy-metadata.js';
import { Cluster, Link } from '../../src/model/index.js';
import type { FleetSnapshot } from '../../src/snapshot/snapshot.js';
import { compileObjects, service, snapshot, source, spec, statefulService, target } from '../fixtures/snapshots.js';

// One target, four sources: a and c share a metadata policy, b copies everything but takes federated members by tier, d selects mirrors by tier.
const fleet = spec((f) => {
  const t = new Cluster(f, 't');
  const a = new Cluster(f, 'a', { pinnedServiceIPRange: '10.96.0.0/28' });
  const b = new Cluster(f, 'b', { pinnedServiceIPRange: '10.96.0.0/28' });
  const c = new Cluster(f, 'c', { pinnedServiceIPRange: '10.96.0.0/28' });
  const d = new Cluster(f, 'd', { pinnedServiceIPRange: '10.96.0.0/28' });
  new Link(f, 'a-t', { source: a, target: t, excludedLabels: ['team'], excludedAnnotations: ['note'], followPodReadiness: true });
  new Link(f, 'b-t', { source: b, target: t, federatedServiceSelector: { matchLabels: { 'mirror.linkerd.io/federated': 'member', tier: 'front' } } });
  new Link(f, 'c-t', { source: c, target: t, excludedLabels: ['team'], excludedAnnotations: ['note'] });
  new Link(f, 'd-t', { source: d, target: t, selector: { matchLabels: { tier: 'front' } }, namespaces: { exclude: ['ops'] } });
});

const LINE_SEPARATOR = '\u2028';

function fleetSnapshot(): FleetSnapshot {
  const exported = { 'mirror.linkerd.io/exported': 'true' };
  return snapshot(
    {
      t: target(
        [
          service('default', 'web', { labels: { ...exported, app: 'web', team: 'payments', tier: 'front' }, annotations: { note: 'keep out', owner: 'alice' } }),
          service('default', 'api', { labels: { ...exported, app: 'api', tier: 'back', motto: `one${LINE_SEPARATOR}two` } }),
          service('ops', 'panel', { labels: { ...exported, app: 'panel', tier: 'front' } }),
          service('default', 'cache', { labels: { 'mirror.linkerd.io/federated': 'member', app: 'cache', tier: 'back' } }),
          statefulService('default', 'kafka', ['kafka-0', 'kafka-1'], { labels: { ...exported, app: 'kafka', tier: 'front' }, notReadyHostnames: ['kafka-1'] }),
        ],
        { selectors: ['mirror.linkerd.io/exported=remote-discovery', 'mirror.linkerd.io/exported=true', 'tier=front'] },
      ),
    },
    { a: source(['default', 'ops']), b: source(['default', 'ops']), c: source(['default', 'ops']), d: source(['default', 'ops']) },
  );
}

/** The Services compiled into `cluster`, by `namespace/name`. */
function services(objects: Map<string, any>, cluster: string): Map<string, any> {
  const prefix = `${cluster}/Service/`;
  return new Map([...objects].filter(([k]) => k.startsWith(prefix)).map(([k, o]) => [k.slice(prefix.length), o]));
}

describe('the planning memo keeps each link its own', () => {
  const { objects, result } = compileObjects(fleet, fleetSnapshot());

  test('GIVEN links to one target with different metadata policies WHEN compiled together THEN each source copies what its own link allows', () => {
    for (const cluster of ['a', 'c']) {
      const web = services(objects, cluster).get('default/web-t');
      assert.equal(web.metadata.labels.team, undefined, `${cluster}: team is excluded on its link`);
      assert.equal(web.metadata.annotations.note, undefined, `${cluster}: note is excluded on its link`);
      assert.equal(web.metadata.annotations.owner, 'alice');
    }
    const web = services(objects, 'b').get('default/web-t');
    assert.equal(web.metadata.labels.team, 'payments', 'b excludes nothing');
    assert.equal(web.metadata.annotations.note, 'keep out');
  });

  test('GIVEN links with different selectors and namespace filters WHEN compiled together THEN each source mirrors the services its own link selects', () => {
    assert.deepEqual([...services(objects, 'd').keys()].filter((k) => !/kafka-\d-t|-federated/.test(k)).sort(), ['default/kafka-t', 'default/web-t'], 'd: tier=front, ops excluded');
    assert.deepEqual([...services(objects, 'b').keys()].filter((k) => !/kafka-\d-t|-federated/.test(k)).sort(), ['default/api-t', 'default/kafka-t', 'default/web-t', 'ops/panel-t'], 'b: every exported service');
  });

  test('GIVEN links with different federated selectors WHEN compiled together THEN only the sources whose link selects the member get its federated Service', () => {
    for (const cluster of ['a', 'c', 'd']) assert.ok(services(objects, cluster).has('default/cache-federated'), `${cluster}: default federated selector`);
    assert.ok(!services(objects, 'b').has('default/cache-federated'), 'b: its federated selector asks for tier=front');
  });

  test('GIVEN one link that follows pod readiness WHEN compiled together THEN only its source leaves the not-ready pod out', () => {
    assert.ok(services(objects, 'a').has('default/kafka-0-t'));
    assert.ok(!services(objects, 'a').has('default/kafka-1-t'), 'a follows pod readiness');
    for (const cluster of ['b', 'c', 'd']) assert.ok(services(objects, cluster).has('default/kafka-1-t'), `${cluster} does not follow pod readiness`);
  });

  test('GIVEN a label kustomize cannot carry, mirrored into three sources WHEN compiled together THEN each of them warns about it, under its own name', () => {
    const warned = result.diagnostics.filter((d) => d.code === 'MRC3013').map((d) => d.cluster);
    assert.deepEqual(warned, ['a', 'b', 'c'], result.warnings.join('\n'));
    for (const cluster of ['a', 'b', 'c']) {
      assert.ok(result.warnings.some((w) => w.startsWith(`${cluster}: t/default/api: the label "motto" is not copied`)), result.warnings.join('\n'));
    }
  });

  test('GIVEN each source planned alone WHEN compared with planning them all together THEN its units, pinned IPs and warnings are the same', () => {
    const together = planFleet(fleet, fleetSnapshot());
    for (const cluster of ['a', 'b', 'c', 'd']) {
      const alone = planFleet(fleet, fleetSnapshot(), { sources: new Set([cluster]) });
      const mine = together.plans.find((p) => p.source === cluster)!;
      assert.deepEqual(alone.plans.map((p) => p.source), [cluster]);
      const summary = (p: typeof mine) => p.units.map((u) => `${u.mode} ${u.namespace}/${u.serviceNames.join(',')} ${u.origin}`);
      assert.deepEqual(summary(alone.plans[0]!), summary(mine));
      assert.deepEqual(alone.plans[0]!.pinnedIPs, mine.pinnedIPs);
      assert.deepEqual(alone.warnings, together.warnings.filter((w) => w.startsWith(`${cluster}:`)));
      const objectsAlone = compileObjects(fleet, fleetSnapshot(), { sources: new Set([cluster]) }).objects;
      assert.deepEqual([...objectsAlone], [...objects].filter(([k]) => k.startsWith(`${cluster}/`)));
    }
  });
});

describe('mirrors every source writes alike (PlanMemo.sharedObjects)', () => {
  // Three sources with one metadata policy; e's link also adopts Linkerd's mirrors (its Endpoints keep Kubernetes' slices).
  const shared = spec((f) => {
    const t = new Cluster(f, 't');
    for (const name of ['a', 'c', 'e']) {
      const s = new Cluster(f, name);
      new Link(f, `${name}-t`, { source: s, target: t, excludedLabels: ['team'], ...(name === 'e' ? { adoptLinkerdMirrors: true } : {}) });
    }
  });
  const snap = snapshot(
    { t: target([service('default', 'web', { labels: { 'mirror.linkerd.io/exported': 'true', app: 'web', team: 'x' } }), service('default', 'flat', { labels: { 'mirror.linkerd.io/exported': 'remote-discovery', app: 'flat' } })], { selectors: ['mirror.linkerd.io/exported=remote-discovery', 'mirror.linkerd.io/exported=true'] }) },
    { a: source(), c: source(), e: source() },
  );

  test('GIVEN two sources whose links mirror a target service alike WHEN planned together THEN their gateway and flat mirrors are one frozen set of objects; a link that differs in what the objects hold gets its own', () => {
    const { plans } = planFleet(shared, snap, {});
    const objectsOf = (source: string, origin: string) => {
      const unit = plans.find((p) => p.source === source)!.units.find((u) => u.origin === origin)!;
      return unit.objects({ pinnedIP: () => assert.fail('no pinned IP') });
    };
    for (const origin of ['t/default/web', 't/default/flat']) {
      const [a, c, e] = ['a', 'c', 'e'].map((s) => objectsOf(s, origin));
      assert.equal(a, c, origin);
      assert.ok(Object.isFrozen(a) && a!.every((o) => Object.isFrozen(o)), origin);
      if (origin === 't/default/web') {
        assert.notEqual(a, e);
        const endpoints = (objects: typeof a) => objects!.find((o) => o.kind === 'Endpoints')!.metadata.labels!;
        assert.equal(endpoints(a)['endpointslice.kubernetes.io/skip-mirror'], 'true');
        assert.equal(endpoints(e)['endpointslice.kubernetes.io/skip-mirror'], undefined);
      }
    }
  });
});

describe('copiedMetadata', () => {
  test('GIVEN keys that are copied, excluded, outside an allow-list, never copied, or not deliverable WHEN judged in one pass THEN it copies and reports what the separate functions do', () => {
    const remote = {
      labels: { app: 'web', team: 'a', 'billing.example.com/cc': '7', 'helm.sh/chart': 'x', motto: `a${LINE_SEPARATOR}b`, 'tier\u0085': 'x' },
      annotations: { note: 'n', owner: 'o', 'config.linkerd.io/opaque-ports': '3306', 'meta.helm.sh/release-name': 'r', bad: '\u007f' },
    };
    const policies = [
      { excludedLabels: [], excludedAnnotations: [] },
      { excludedLabels: ['team', 'billing.example.com/*'], excludedAnnotations: ['note'] },
      { excludedLabels: [], excludedAnnotations: [], allowedLabels: ['app', 'motto'], allowedAnnotations: ['owner', 'bad'] },
    ];
    for (const policy of policies) {
      const one = copiedMetadata(remote, policy);
      assert.deepEqual(one.labels, copiedLabels(remote.labels, policy));
      assert.deepEqual(one.annotations, copiedAnnotations(remote.annotations, policy));
      assert.deepEqual(one.undeliverable, undeliverableMetadata(remote, policy));
    }
    assert.deepEqual(copiedMetadata(remote, policies[1]!).undeliverable.map((u) => u.key), ['motto', 'tier\u0085', 'bad']);
  });
});
