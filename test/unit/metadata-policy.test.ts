/**
 * The metadata policy (src/contract/metadata-policy.ts): which target label and annotation keys
 * reach mirrors, family by family, through copiedLabels/copiedAnnotations; the per-link allow-list;
 * and the validation that rejects allow-list entries naming a family that is never copied.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { App } from 'cdk8s';
import { copiedAnnotations, copiedLabels, undeliverableMetadata } from '../../src/compile/copy-metadata.js';
import { copyRule, forbiddenFamilyOfEntry, keyFamily, METADATA_POLICY } from '../../src/contract/metadata-policy.js';
import { Cluster, Fleet, FleetDefinitionError, Link, type LinkProps } from '../../src/model/index.js';
import { compileObjects, service, snapshot, source, spec, target } from '../fixtures/snapshots.js';

const NO_LIST = { excludedLabels: [], excludedAnnotations: [] } as const;

/** Keys that must never reach a mirror, as label and annotation, one or more per family. */
const FORBIDDEN: readonly string[] = [
  'mirror.linkerd.io/exported',
  'mirror.linkerd.io/remote-gateway-identity',
  'mirror.linkerd.io-foo',
  'mirrorc.io/managed',
  'mirrorc.io/global',
  'mirrorc.io/global-service',
  'multicluster.linkerd.io/remote-discovery',
  'multicluster.linkerd.io/remote-service',
  'multicluster.linkerd.io/local-discovery',
  'linkerd.io/control-plane-ns',
  'linkerd.io/extension',
  'viz.linkerd.io/tap',
  'app.kubernetes.io/managed-by',
  'kubectl.kubernetes.io/last-applied-configuration',
  'kubectl.kubernetes.io/restartedAt',
  'service.kubernetes.io/service-proxy-name',
  'service.kubernetes.io/headless',
  'service.kubernetes.io/topology-mode',
  'endpointslice.kubernetes.io/managed-by',
  'endpointslice.kubernetes.io/skip-mirror',
  'config.kubernetes.io/local-config',
  'internal.config.kubernetes.io/path',
  'kustomize.config.k8s.io/behavior',
  'config.k8s.io/owning-inventory',
  'cli-utils.sigs.k8s.io/on-remove',
  'kubernetes.io/service-name',
  'external-dns.alpha.kubernetes.io/hostname',
  'service.beta.kubernetes.io/aws-load-balancer-type',
  'topology.kubernetes.io/zone',
  'gateway.networking.k8s.io/gateway-name',
  'argocd.argoproj.io/tracking-id',
  'argocd.argoproj.io/instance',
  'argocd.argoproj.io/sync-options',
  'link.argocd.argoproj.io/external-link',
  'notifications.argoproj.io/subscribe.on-sync.slack',
  'kustomize.toolkit.fluxcd.io/name',
  'kustomize.toolkit.fluxcd.io/prune',
  'helm.toolkit.fluxcd.io/name',
  'reconcile.fluxcd.io/requestedAt',
  'helm.sh/hook',
  'helm.sh/hook-weight',
  'helm.sh/resource-policy',
  'helm.sh/chart',
  'meta.helm.sh/release-name',
  'meta.helm.sh/release-namespace',
  'kapp.k14s.io/app',
  'kapp.k14s.io/association',
  'objectset.rio.cattle.io/hash',
];

/** Keys that are copied (unless a link excludes them or leaves them out of its allow-list). */
const COPIED: readonly string[] = [
  'app',
  'team.example.com/owner',
  'prometheus.io/scrape',
  'app.kubernetes.io/name',
  'app.kubernetes.io/part-of',
  'config.linkerd.io/proxy-protocol',
  'retry.linkerd.io/http',
  'timeout.linkerd.io/request',
  'kubernetes.io.example.com/x',
  'example-helm.sh/x',
  'mirror.linkerd.example.com/x',
];

describe('the metadata policy', () => {
  test('every forbidden key, as label and as annotation, is dropped by copiedLabels and copiedAnnotations', () => {
    // GIVEN a target Service carrying every forbidden key and some copied ones
    const remote = Object.fromEntries([...FORBIDDEN, ...COPIED].map((k) => [k, `v-${k}`]));
    // WHEN its metadata is copied for a link that excludes and lists nothing
    const labels = copiedLabels(remote, NO_LIST);
    const annotations = copiedAnnotations(remote, NO_LIST);
    // THEN exactly the copied keys arrive, with their values
    const expected = Object.fromEntries(COPIED.map((k) => [k, `v-${k}`]));
    assert.deepEqual(labels, expected);
    assert.deepEqual(annotations, expected);
  });

  for (const key of FORBIDDEN) {
    test(`"${key}" belongs to a family that is never copied, with a reason`, () => {
      for (const kind of ['label', 'annotation'] as const) {
        const family = keyFamily(key, kind);
        assert.equal(family?.rule, 'never', `${kind} ${key}`);
        assert.ok(family!.reason.length > 20, 'the family states why');
      }
    });
  }

  test('app.kubernetes.io/instance is Argo CD\'s tracking label: dropped as a label, copied as an annotation', () => {
    assert.equal(copyRule('app.kubernetes.io/instance', 'label'), 'never');
    assert.equal(copyRule('app.kubernetes.io/instance', 'annotation'), 'allowed');
  });

  test('config.linkerd.io/opaque-ports is always copied, whatever the link excludes or allows', () => {
    // GIVEN a link that excludes every config.linkerd.io annotation and allows only one other key
    const link = { excludedLabels: [], excludedAnnotations: ['config.linkerd.io/*'], allowedAnnotations: ['team.example.com/owner'] };
    const remote = { 'config.linkerd.io/opaque-ports': '3306', 'config.linkerd.io/proxy-protocol': 'x', 'team.example.com/owner': 'a', other: 'b' };
    // WHEN copied / THEN opaque ports and the allowed key arrive
    assert.deepEqual(copiedAnnotations(remote, link), { 'config.linkerd.io/opaque-ports': '3306', 'team.example.com/owner': 'a' });
  });

  test('every family has patterns, kinds and a reason; every pattern has one of the documented shapes', () => {
    for (const family of METADATA_POLICY) {
      assert.ok(family.patterns.length > 0 && family.kinds.length > 0 && family.reason.length > 20, JSON.stringify(family));
      for (const p of family.patterns) assert.match(p, /^(\*\.)?[a-z0-9.-]+(\/\*|\/[A-Za-z0-9._-]+|\*)$/, p);
    }
  });
});

describe('the per-link allow-list', () => {
  test('without a list every key the policy allows is copied; with one, only listed keys and prefixes', () => {
    // GIVEN a target Service's labels
    const remote = { app: 'web', tier: 'front', 'team.example.com/owner': 'a', 'team.example.com.evil/x': 'b', 'helm.sh/chart': 'c-1' };
    // WHEN copied with no list, THEN everything but the forbidden key arrives
    assert.deepEqual(copiedLabels(remote, NO_LIST), { app: 'web', tier: 'front', 'team.example.com/owner': 'a', 'team.example.com.evil/x': 'b' });
    // WHEN copied with a list of one key and one prefix, THEN only those (the prefix matches exactly, not as a string prefix)
    const link = { ...NO_LIST, allowedLabels: ['app', 'team.example.com/*'] };
    assert.deepEqual(copiedLabels(remote, link), { app: 'web', 'team.example.com/owner': 'a' });
  });

  test('an empty list copies nothing (but opaque ports)', () => {
    const link = { ...NO_LIST, allowedLabels: [], allowedAnnotations: [] };
    assert.deepEqual(copiedLabels({ app: 'web' }, link), {});
    assert.deepEqual(copiedAnnotations({ note: 'x', 'config.linkerd.io/opaque-ports': '25' }, link), { 'config.linkerd.io/opaque-ports': '25' });
  });

  test('exclusions still apply to listed keys', () => {
    const link = { excludedLabels: ['tier'], excludedAnnotations: [], allowedLabels: ['app', 'tier'] };
    assert.deepEqual(copiedLabels({ app: 'web', tier: 'front' }, link), { app: 'web' });
  });

  test('a forbidden key stays out even if the list names it (when validation is bypassed)', () => {
    const link = { ...NO_LIST, allowedLabels: ['helm.sh/*', 'multicluster.linkerd.io/remote-discovery'] };
    assert.deepEqual(copiedLabels({ 'helm.sh/chart': 'x', 'multicluster.linkerd.io/remote-discovery': 'east' }, link), {});
  });

  test('forbiddenFamilyOfEntry: a key or prefix of a forbidden family is named; allowed families and sub-families are not', () => {
    assert.equal(forbiddenFamilyOfEntry('helm.sh/*', 'label')?.patterns[0], 'helm.sh/*');
    assert.equal(forbiddenFamilyOfEntry('helm.sh/chart', 'label')?.patterns[0], 'helm.sh/*');
    assert.equal(forbiddenFamilyOfEntry('service.beta.kubernetes.io/*', 'annotation')?.patterns[1], '*.kubernetes.io/*');
    assert.equal(forbiddenFamilyOfEntry('app.kubernetes.io/managed-by', 'label')?.patterns[0], 'app.kubernetes.io/managed-by');
    assert.equal(forbiddenFamilyOfEntry('app.kubernetes.io/*', 'label'), undefined, 'the family is allowed; its forbidden keys stay out');
    assert.equal(forbiddenFamilyOfEntry('config.linkerd.io/*', 'annotation'), undefined);
    assert.equal(forbiddenFamilyOfEntry('team.example.com/*', 'label'), undefined);
    assert.equal(forbiddenFamilyOfEntry('app.kubernetes.io/instance', 'annotation'), undefined);
  });
});

describe('allow-list validation', () => {
  function problems(props: Partial<LinkProps>): string[] {
    const fleet = new Fleet(new App({ outdir: 'unused' }), 'fleet');
    const s = new Cluster(fleet, 's');
    const t = new Cluster(fleet, 't');
    new Link(fleet, 'l', { source: s, target: t, ...props });
    try {
      fleet.toSpec();
      return [];
    } catch (e) {
      assert.ok(e instanceof FleetDefinitionError, String(e));
      return [...e.problems];
    }
  }

  test('valid keys and prefixes are accepted and kept in the spec', () => {
    const fleet = new Fleet(new App({ outdir: 'unused' }), 'fleet');
    const s = new Cluster(fleet, 's');
    const t = new Cluster(fleet, 't');
    new Link(fleet, 'l', { source: s, target: t, allowedLabels: ['app', 'team.example.com/*', 'app.kubernetes.io/*'], allowedAnnotations: [] });
    const link = fleet.toSpec().links[0]!;
    assert.deepEqual(link.allowedLabels, ['app', 'team.example.com/*', 'app.kubernetes.io/*']);
    assert.deepEqual(link.allowedAnnotations, []);
  });

  test('no list leaves the spec without one (copy everything the policy allows)', () => {
    const fleet = new Fleet(new App({ outdir: 'unused' }), 'fleet');
    new Link(fleet, 'l', { source: new Cluster(fleet, 's'), target: new Cluster(fleet, 't') });
    const link = fleet.toSpec().links[0]!;
    assert.equal('allowedLabels' in link, false);
    assert.equal('allowedAnnotations' in link, false);
  });

  test('an entry naming a forbidden family is rejected with the family, its reason and what to do', () => {
    // GIVEN allow-lists naming helm.sh/*, a multicluster.linkerd.io key and argocd's prefix
    const found = problems({ allowedLabels: ['app', 'helm.sh/*'], allowedAnnotations: ['multicluster.linkerd.io/remote-discovery', 'argocd.argoproj.io/*'] });
    // THEN each is reported, naming the field, the entry and the family
    assert.equal(found.length, 3, found.join('\n'));
    assert.match(found[0]!, /^link fleet\/l: allowedLabels entry "helm\.sh\/\*" names labels that are never copied to mirrors \(helm\.sh\/\*: .+\); remove the entry$/);
    assert.match(found[1]!, /^link fleet\/l: allowedAnnotations entry "multicluster\.linkerd\.io\/remote-discovery" names annotations that are never copied .*multicluster\.linkerd\.io\/\*/);
    assert.match(found[2]!, /allowedAnnotations entry "argocd\.argoproj\.io\/\*" names annotations that are never copied .*argoproj\.io/);
  });

  test('malformed entries are rejected', () => {
    const found = problems({ allowedLabels: ['Bad Key', '*', 'x/*/y'] });
    assert.deepEqual(found, [
      'link fleet/l: allowedLabels entry "Bad Key" is not a key or a "prefix/*" pattern',
      'link fleet/l: allowedLabels entry "*" is not a key or a "prefix/*" pattern',
      'link fleet/l: allowedLabels entry "x/*/y" is not a key or a "prefix/*" pattern',
    ]);
  });
});

describe('values kustomize cannot carry', () => {
  const UNSAFE = ['a\u0085b', 'x\u2028y', 'x\u2029y', 'del\u007f', 'c1\u0080', '\u009f', 'nc\ufffe', 'nc\uffff'];
  const SAFE = ['\ufeffbom', 'tab\t', 'cr\r\n', 'nul\u0000', 'esc\u001b', 'multi\nline', 'é 😀 \u00a0'];

  test('a key or value holding NEL, U+2028/9, DEL, a C1 control or U+FFFE/F is not copied; other control characters are', () => {
    // GIVEN annotations with unsafe and safe values, and an unsafe key
    const remote: Record<string, string> = { 'bad\u0085key': 'v' };
    UNSAFE.forEach((v, i) => (remote[`unsafe-${i}`] = v));
    SAFE.forEach((v, i) => (remote[`safe-${i}`] = v));
    // WHEN copied / THEN exactly the safe ones arrive, unchanged
    assert.deepEqual(copiedAnnotations(remote, NO_LIST), Object.fromEntries(SAFE.map((v, i) => [`safe-${i}`, v])));
    // AND each unsafe one is reported, with its kind
    assert.deepEqual(
      undeliverableMetadata({ labels: {}, annotations: remote }, NO_LIST).map((u) => `${u.kind} ${u.key}`),
      ['annotation bad\u0085key', ...UNSAFE.map((_v, i) => `annotation unsafe-${i}`)],
    );
  });

  test('only keys that would be copied are reported (forbidden, excluded or unlisted keys are not)', () => {
    const remote = { 'helm.sh/hook': 'a\u0085', excluded: 'a\u0085', unlisted: 'a\u0085', listed: 'a\u0085' };
    const link = { excludedLabels: [], excludedAnnotations: ['excluded'], allowedAnnotations: ['listed', 'excluded'] };
    assert.deepEqual(undeliverableMetadata({ labels: {}, annotations: remote }, link).map((u) => u.key), ['listed']);
  });

  test('compile warns once per left-out key, naming the source, the service, the characters and what to do', () => {
    const fleet = spec((f) => new Link(f, 'l', { source: new Cluster(f, 'london'), target: new Cluster(f, 'paris') }));
    const web = service('default', 'web', { annotations: { note: 'a\u0085b\u2028c', keep: 'yes' } });
    const { objects, result } = compileObjects(fleet, snapshot({ paris: target([web]) }, { london: source() }));
    assert.equal(objects.get('london/Service/default/web-paris').metadata.annotations.note, undefined);
    assert.equal(objects.get('london/Service/default/web-paris').metadata.annotations.keep, 'yes');
    assert.deepEqual(result.warnings.filter((w) => w.includes('is not copied')), [
      'london: paris/default/web: the annotation "note" is not copied to the mirror: it holds U+0085, U+2028, which kustomize (and so Argo CD, Flux and kubectl apply -k) ' +
        'turns into spaces (U+0085, U+2028, U+2029) or cannot build at all (DEL, C1 controls, U+FFFE, U+FFFF); change the value on paris, or exclude the key on the link to silence this',
    ]);
  });
});
