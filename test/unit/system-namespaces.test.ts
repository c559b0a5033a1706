/** System namespaces (issue 16, finding 10): skipped with a named warning unless a link opts in. */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { Cluster, Link } from '../../src/model/index.js';
import { compileObjects, DEFAULT_SELECTOR_QUERIES, federatedService, federatedSource, service, snapshot, source, spec, target } from '../fixtures/snapshots.js';

const SYSTEM = ['kube-system', 'kube-public', 'kube-node-lease', 'linkerd', 'linkerd-multicluster', 'linkerd-viz'];

describe('system namespaces', () => {
  test('a target\'s exported services in system namespaces are not mirrored by default, each named in a warning; other namespaces are', () => {
    const fleet = spec((f) => {
      new Link(f, 'a-t', { source: new Cluster(f, 'a'), target: new Cluster(f, 't') });
    });
    const snap = snapshot({ t: target([service('apps', 'web'), ...SYSTEM.map((ns) => service(ns, 'dns'))]) }, { a: source(['apps', ...SYSTEM]) });
    const { objects, result } = compileObjects(fleet, snap);
    assert.deepEqual([...objects.keys()].filter((k) => k.includes('/Service/')), ['a/Service/apps/web-t']);
    for (const ns of SYSTEM) {
      assert.ok(result.warnings.some((w) => w === `a: "${ns}" is a system namespace of "t", so t/${ns}/dns is not mirrored; set mirrorSystemNamespaces: true on link fleet/a-t to mirror system namespaces`), `${ns}\n${result.warnings.join('\n')}`);
    }
  });

  test('a namespaceMap into a source system namespace, and the clusters\' own control-plane namespace, count too', () => {
    const fleet = spec((f) => {
      const t = new Cluster(f, 't', { controlPlaneNamespace: 'mesh' });
      new Link(f, 'a-t', { source: new Cluster(f, 'a'), target: t, namespaceMap: { apps: 'kube-system' } });
    });
    const snap = snapshot({ t: target([service('apps', 'web'), service('mesh', 'identity'), service('shop', 'cart')]) }, { a: source(['apps', 'kube-system', 'mesh', 'shop']) });
    const { objects, result } = compileObjects(fleet, snap);
    assert.deepEqual([...objects.keys()].filter((k) => k.includes('/Service/')), ['a/Service/shop/cart-t']);
    assert.ok(result.warnings.some((w) => w.startsWith('a: its mirror would go to "kube-system", a system namespace of "a", so t/apps/web is not mirrored')), result.warnings.join('\n'));
    assert.ok(result.warnings.some((w) => w.startsWith('a: "mesh" is a system namespace of "t", so t/mesh/identity is not mirrored')), result.warnings.join('\n'));
  });

  test('a link with mirrorSystemNamespaces mirrors them, without a warning', () => {
    const fleet = spec((f) => {
      new Link(f, 'a-t', { source: new Cluster(f, 'a'), target: new Cluster(f, 't'), mirrorSystemNamespaces: true });
    });
    const snap = snapshot({ t: target([service('kube-system', 'dns'), service('linkerd', 'web')]) }, { a: source(['kube-system', 'linkerd']) });
    const { objects, result } = compileObjects(fleet, snap);
    assert.deepEqual([...objects.keys()].filter((k) => k.includes('/Service/')).sort(), ['a/Service/kube-system/dns-t', 'a/Service/linkerd/web-t']);
    assert.ok(!result.warnings.some((w) => w.includes('system namespace')), result.warnings.join('\n'));
  });

  test('federated members (issue 33, item 6): a target\'s member in a system namespace is left out, named in a warning, and no <svc>-federated lands in the source\'s system namespace; the same member elsewhere joins', () => {
    const fleet = spec((f) => {
      new Link(f, 'a-t', { source: new Cluster(f, 'a'), target: new Cluster(f, 't') });
    });
    const members = [...SYSTEM, 'apps'].map((ns) => federatedService(ns, 'dns'));
    const snap = snapshot({ t: target(members, { selectors: DEFAULT_SELECTOR_QUERIES }) }, { a: federatedSource(['apps', ...SYSTEM], []) });
    const { objects, result } = compileObjects(fleet, snap);
    assert.deepEqual([...objects.keys()].filter((k) => k.includes('/Service/')), ['a/Service/apps/dns-federated']);
    for (const ns of SYSTEM) {
      assert.ok(result.warnings.includes(`a: "${ns}" is a system namespace of "t", so t/${ns}/dns is not mirrored; set mirrorSystemNamespaces: true on link fleet/a-t to mirror system namespaces`), `${ns}\n${result.warnings.join('\n')}`);
    }
  });

  test('federated members: the source\'s own member in its system namespace makes no <svc>-federated there alone, nor with a member whose link does not opt in; a member whose link opts in brings it, local member included', () => {
    const define = (optIn: boolean) => spec((f) => {
      const a = new Cluster(f, 'a', { controlPlaneNamespace: 'mesh' });
      new Link(f, 'a-t', { source: a, target: new Cluster(f, 't'), ...(optIn ? { mirrorSystemNamespaces: true } : {}) });
    });
    // "mesh" is a system namespace of the source only (its control plane), "kube-system" of both.
    const snap = snapshot(
      { t: target([federatedService('mesh', 'api')], { selectors: DEFAULT_SELECTOR_QUERIES }) },
      { a: federatedSource(['mesh', 'kube-system'], [federatedService('mesh', 'api'), federatedService('kube-system', 'dns')]) },
    );
    const closed = compileObjects(define(false), snap);
    assert.deepEqual([...closed.objects.keys()].filter((k) => k.includes('/Service/')), []);
    assert.ok(closed.result.warnings.some((w) => w.startsWith('a: its federated Service mesh/api-federated would go to "mesh", a system namespace of "a", so t/mesh/api is not mirrored; set mirrorSystemNamespaces: true on link fleet/a-t')), closed.result.warnings.join('\n'));
    assert.ok(closed.result.warnings.some((w) => w.startsWith('a: its federated Service kube-system/dns-federated would go to "kube-system", a system namespace of "a", so a/kube-system/dns is not mirrored')), closed.result.warnings.join('\n'));
    const open = compileObjects(define(true), snap);
    assert.deepEqual([...open.objects.keys()].filter((k) => k.includes('/Service/')), ['a/Service/mesh/api-federated']);
    const annotations = open.objects.get('a/Service/mesh/api-federated').metadata.annotations;
    assert.equal(annotations['multicluster.linkerd.io/remote-discovery'], 'api@t');
    assert.equal(annotations['multicluster.linkerd.io/local-discovery'], 'api');
  });
});
