/**
 * Which remote labels and annotations a mirror copies (src/compile/copy-metadata.ts), against the
 * Linkerd contract §2.1, and the link namespace filter (src/compile/namespace-filter.ts).
 */
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { copiedAnnotations, copiedLabels, isExcluded } from '../../src/compile/copy-metadata.js';
import { namespaceSelected } from '../../src/compile/namespace-filter.js';
import type { LinkSpec } from '../../src/model/index.js';

function link(overrides: Partial<LinkSpec> = {}): LinkSpec {
  return {
    source: 'east',
    target: 'west',
    path: 'fleet/east-from-west',
    selector: { matchLabels: { 'mirror.linkerd.io/exported': 'true' } },
    remoteDiscoverySelector: { matchLabels: { 'mirror.linkerd.io/exported': 'remote-discovery' } },
    federatedServiceSelector: { matchLabels: { 'mirror.linkerd.io/federated': 'member' } },
    excludedLabels: [],
    excludedAnnotations: [],
    namespaces: { include: [], exclude: [] },
    createMissingNamespaces: false,
    globalServices: false,
    ...overrides,
  };
}

describe('isExcluded', () => {
  test('a plain entry matches only the exact key', () => {
    assert.equal(isExcluded('team', ['team']), true);
    assert.equal(isExcluded('team-x', ['team']), false);
    assert.equal(isExcluded('example.com/team', ['team']), false);
  });

  test('"X/*" matches every key starting with X, slash or not (Linkerd trims "/*")', () => {
    const entries = ['example.com/*'];
    assert.equal(isExcluded('example.com/owner', entries), true);
    assert.equal(isExcluded('example.com.au/owner', entries), true);
    assert.equal(isExcluded('example.comx', entries), true);
    assert.equal(isExcluded('example.com', entries), true);
    assert.equal(isExcluded('sub.example.com/owner', entries), false);
    assert.equal(isExcluded('example.co/owner', entries), false);
  });

  test('a "*" that is not after a slash is taken literally', () => {
    assert.equal(isExcluded('example.com/owner', ['example.com/own*']), false);
    assert.equal(isExcluded('example.com/own*', ['example.com/own*']), true);
  });

  test('no entries exclude nothing', () => {
    assert.equal(isExcluded('anything', []), false);
  });
});

describe('copiedLabels', () => {
  test('drops every key starting with mirror.linkerd.io, including ones without a slash (HasPrefix)', () => {
    // GIVEN remote labels with Linkerd mirror keys, look-alikes and ordinary keys
    const remote = {
      'mirror.linkerd.io/exported': 'true',
      'mirror.linkerd.io/federated': 'member',
      'mirror.linkerd.io/cluster-name': 'elsewhere',
      'mirror.linkerd.io-foo': 'x',
      'mirror.linkerd.io.example.com/x': 'y',
      'x-mirror.linkerd.io.example.com/keep': 'kept',
      app: 'web',
    };
    // WHEN copied
    const out = copiedLabels(remote, link());
    // THEN only keys that do not start with the prefix survive (contract §2.1)
    assert.deepEqual(out, { 'x-mirror.linkerd.io.example.com/keep': 'kept', app: 'web' });
  });

  test('drops multicluster.linkerd.io/* labels: the destination reads them, so only mirrorc writes them (metadata policy)', () => {
    // GIVEN a gateway-mode export carrying the flat-mode keys
    const remote = { 'multicluster.linkerd.io/remote-discovery': 'east', 'multicluster.linkerd.io/custom': 'v', app: 'web' };
    // WHEN copied / THEN none reaches the mirror
    assert.deepEqual(copiedLabels(remote, link()), { app: 'web' });
  });

  test('drops the link exclusions, with the "X/*" glob matching the bare prefix', () => {
    // GIVEN a link excluding a key and a prefix glob
    const l = link({ excludedLabels: ['team', 'example.com/*'] });
    const remote = {
      team: 'a',
      'team-lead': 'b',
      'example.com/owner': 'c',
      'example.com.au/region': 'd',
      'other.example.com/keep': 'e',
    };
    // WHEN copied
    const out = copiedLabels(remote, l);
    // THEN exact and prefix matches are gone, including example.com.au (Linkerd's trimmed-prefix rule)
    assert.deepEqual(out, { 'team-lead': 'b', 'other.example.com/keep': 'e' });
  });

  test('drops GitOps tracking labels even when the link excludes nothing', () => {
    // GIVEN labels by which Argo CD and Flux claim objects
    const remote = {
      'app.kubernetes.io/instance': 'payments',
      'argocd.argoproj.io/instance': 'payments',
      'argocd.argoproj.io/anything': 'x',
      'kustomize.toolkit.fluxcd.io/name': 'apps',
      'kustomize.toolkit.fluxcd.io/namespace': 'flux-system',
      'helm.toolkit.fluxcd.io/name': 'rel',
      'helm.toolkit.fluxcd.io/namespace': 'flux-system',
      'app.kubernetes.io/name': 'payments',
    };
    // WHEN copied / THEN only the non-tracking label is kept
    assert.deepEqual(copiedLabels(remote, link()), { 'app.kubernetes.io/name': 'payments' });
  });

  test('keeps values verbatim and does not modify its input', () => {
    const remote = { app: '', version: 'v1.2.3' };
    const out = copiedLabels(remote, link());
    assert.notEqual(out, remote);
    out['added'] = 'x';
    assert.deepEqual(out, { app: '', version: 'v1.2.3', added: 'x' });
    assert.deepEqual(remote, { app: '', version: 'v1.2.3' });
  });

  test('excludedAnnotations do not affect labels', () => {
    assert.deepEqual(copiedLabels({ team: 'a' }, link({ excludedAnnotations: ['team'] })), { team: 'a' });
  });
});

describe('copiedAnnotations', () => {
  test('drops mirror.linkerd.io* annotations too (metadata policy: only mirrorc writes Linkerd\'s mirror keys)', () => {
    const remote = {
      'mirror.linkerd.io/remote-gateway-identity': 'x',
      'mirror.linkerd.io/probe-path': '/ready',
      'mirror.linkerd.io-foo': 'y',
      note: 'kept',
    };
    assert.deepEqual(copiedAnnotations(remote, link()), { note: 'kept' });
  });

  test('drops the topology annotations and every other service.kubernetes.io key', () => {
    const remote = {
      'service.kubernetes.io/topology-aware-hints': 'auto',
      'service.kubernetes.io/topology-mode': 'Auto',
      'service.kubernetes.io/other': 'x',
      note: 'kept',
    };
    assert.deepEqual(copiedAnnotations(remote, link()), { note: 'kept' });
  });

  test('drops the link exclusions with the same glob rule as labels', () => {
    const l = link({ excludedAnnotations: ['note', 'example.com/*'] });
    const remote = { note: 'a', 'note-2': 'b', 'example.com/x': 'c', 'example.com.au/y': 'd', keep: 'e' };
    assert.deepEqual(copiedAnnotations(remote, l), { 'note-2': 'b', keep: 'e' });
  });

  test('re-adds config.linkerd.io/opaque-ports even when the link excludes it by key', () => {
    // GIVEN a link that excludes exactly the opaque-ports key
    const l = link({ excludedAnnotations: ['config.linkerd.io/opaque-ports'] });
    const remote = { 'config.linkerd.io/opaque-ports': '3306,5432', 'config.linkerd.io/proxy-cpu-limit': '1' };
    // WHEN copied
    const out = copiedAnnotations(remote, l);
    // THEN opaque-ports survives with its value, and the other key is untouched
    assert.deepEqual(out, { 'config.linkerd.io/opaque-ports': '3306,5432', 'config.linkerd.io/proxy-cpu-limit': '1' });
  });

  test('re-adds config.linkerd.io/opaque-ports even when the link excludes its prefix', () => {
    // GIVEN a link that excludes every config.linkerd.io annotation
    const l = link({ excludedAnnotations: ['config.linkerd.io/*'] });
    const remote = { 'config.linkerd.io/opaque-ports': '3306,5432', 'config.linkerd.io/proxy-cpu-limit': '1' };
    // WHEN copied
    const out = copiedAnnotations(remote, l);
    // THEN only opaque-ports is left of that prefix
    assert.deepEqual(out, { 'config.linkerd.io/opaque-ports': '3306,5432' });
  });

  test('does not invent opaque-ports when the remote has none', () => {
    const out = copiedAnnotations({ a: 'b' }, link({ excludedAnnotations: ['config.linkerd.io/*'] }));
    assert.deepEqual(out, { a: 'b' });
    assert.equal(Object.prototype.hasOwnProperty.call(out, 'config.linkerd.io/opaque-ports'), false);
  });

  test('drops kubectl last-applied-configuration and Argo CD / Flux annotations', () => {
    const remote = {
      'kubectl.kubernetes.io/last-applied-configuration': '{"big":"json"}',
      'argocd.argoproj.io/tracking-id': 'app:/Service:ns/svc',
      'argocd.argoproj.io/sync-options': 'Prune=false',
      'kustomize.toolkit.fluxcd.io/reconcile': 'disabled',
      'helm.toolkit.fluxcd.io/driftDetection': 'disabled',
      'kubectl.kubernetes.io/restartedAt': 'dropped with every kubectl.kubernetes.io key',
      description: 'kept',
    };
    assert.deepEqual(copiedAnnotations(remote, link()), { description: 'kept' });
  });

  test('excludedLabels do not affect annotations', () => {
    assert.deepEqual(copiedAnnotations({ team: 'a' }, link({ excludedLabels: ['team'] })), { team: 'a' });
  });
});

describe('namespaceSelected', () => {
  const filter = (include: string[], exclude: string[] = []) => ({ include, exclude });

  test('an empty include list selects every namespace', () => {
    for (const ns of ['default', 'team-a', 'kube-system']) assert.equal(namespaceSelected(filter([]), ns), true, ns);
  });

  test('include selects only matching namespaces, with * as a wildcard anywhere', () => {
    const f = filter(['team-*', 'prod', '*-db']);
    assert.equal(namespaceSelected(f, 'team-a'), true);
    assert.equal(namespaceSelected(f, 'team-'), true, '* also matches nothing');
    assert.equal(namespaceSelected(f, 'prod'), true);
    assert.equal(namespaceSelected(f, 'orders-db'), true);
    assert.equal(namespaceSelected(f, 'team'), false);
    assert.equal(namespaceSelected(f, 'my-team-a'), false, 'patterns are anchored at the start');
    assert.equal(namespaceSelected(f, 'production'), false, 'patterns are anchored at the end');
    assert.equal(namespaceSelected(f, 'orders-db2'), false);
  });

  test('exclude wins over include', () => {
    const f = filter(['team-*'], ['team-secret', '*-tmp']);
    assert.equal(namespaceSelected(f, 'team-a'), true);
    assert.equal(namespaceSelected(f, 'team-secret'), false);
    assert.equal(namespaceSelected(f, 'team-x-tmp'), false);
  });

  test('exclude applies when include is empty', () => {
    const f = filter([], ['kube-*']);
    assert.equal(namespaceSelected(f, 'kube-system'), false);
    assert.equal(namespaceSelected(f, 'default'), true);
  });

  test('regex characters in a pattern are literal, only * is a wildcard', () => {
    // GIVEN patterns with '.' and '-' which mean something in regular expressions
    assert.equal(namespaceSelected(filter(['a.c']), 'abc'), false);
    assert.equal(namespaceSelected(filter(['a.c']), 'a.c'), true);
    assert.equal(namespaceSelected(filter(['a-z']), 'b'), false);
    assert.equal(namespaceSelected(filter(['*']), 'anything'), true);
  });
});
