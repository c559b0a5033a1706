import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { CompileError } from '../../src/compile/diagnostics.js';
import { Cluster, Link, ExplicitExport } from '../../src/model/index.js';
import { compileObjects, gateway, IDENTITY, service, snapshot, source, spec, target } from '../fixtures/snapshots.js';

const londonParis = spec((fleet) => {
  const london = new Cluster(fleet, 'london');
  const paris = new Cluster(fleet, 'paris', { clusterDomain: 'paris.example' });
  new Link(fleet, 'london-paris', { source: london, target: paris });
});

describe('gateway-mode mirror (contract §2.2)', () => {
  test('the mirror Service carries only ports, copied labels, the cluster-name label and the fq-name annotation', () => {
    // GIVEN an exported service with a nodePort-free multi-port spec, labels and annotations
    const bar = service('default', 'bar', {
      labels: { app: 'bar', 'mirror.linkerd.io/exported': 'true', 'multicluster.linkerd.io/team': 'x' },
      annotations: { 'example.com/owner': 'team-a', 'service.kubernetes.io/topology-mode': 'Auto' },
      ports: [
        { name: 'http', protocol: 'TCP', port: 80, targetPort: 'web' },
        { name: 'dns', protocol: 'UDP', port: 53, targetPort: 5353 },
      ],
    });
    // WHEN compiled for london
    const { objects } = compileObjects(londonParis, snapshot({ paris: target([bar]) }, { london: source() }));
    const svc = objects.get('london/Service/default/bar-paris');
    // THEN it is named <svc>-<target> in the same namespace, with ports only
    assert.ok(svc, 'mirror service bar-paris exists');
    assert.deepEqual(svc.spec, {
      ports: [
        { name: 'http', protocol: 'TCP', port: 80, targetPort: 'web' },
        { name: 'dns', protocol: 'UDP', port: 53, targetPort: 5353 },
      ],
    });
    // (multicluster.linkerd.io/* is never copied: see the metadata policy)
    assert.deepEqual(svc.metadata.labels, {
      app: 'bar',
      'mirror.linkerd.io/mirrored-service': 'true',
      'mirror.linkerd.io/cluster-name': 'paris',
      'mirrorc.io/managed': 'true',
    });
    assert.deepEqual(svc.metadata.annotations, {
      'example.com/owner': 'team-a',
      'mirror.linkerd.io/remote-svc-fq-name': 'bar.default.svc.paris.example',
    });
    assert.equal(svc.metadata.annotations['mirror.linkerd.io/remote-resource-version'], undefined);
  });

  test('Endpoints send every port, by Service port name, to the gateway port, and skip EndpointSlice mirroring', () => {
    // GIVEN a two-port service and a gateway with two addresses listed out of order
    const bar = service('default', 'bar', {
      ports: [
        { name: 'http', protocol: 'TCP', port: 80, targetPort: 8080 },
        { name: 'admin', protocol: 'TCP', port: 9990, targetPort: 9990 },
      ],
    });
    const snap = snapshot({ paris: target([bar], { gateway: gateway({ addresses: ['203.0.113.20', '203.0.113.10'], port: 4143 }) }) }, { london: source() });
    // WHEN compiled
    const { objects } = compileObjects(londonParis, snap);
    const ep = objects.get('london/Endpoints/default/bar-paris');
    // THEN the Endpoints point at the sorted gateway IPs, port names equal Service port names, ports = gateway port
    assert.deepEqual(ep.subsets, [
      {
        addresses: [{ ip: '203.0.113.10' }, { ip: '203.0.113.20' }],
        ports: [
          { name: 'http', port: 4143, protocol: 'TCP' },
          { name: 'admin', port: 4143, protocol: 'TCP' },
        ],
      },
    ]);
    assert.equal(ep.metadata.labels['endpointslice.kubernetes.io/skip-mirror'], 'true');
    assert.equal(ep.metadata.labels['mirror.linkerd.io/cluster-name'], 'paris');
    assert.deepEqual(ep.metadata.annotations, {
      'mirror.linkerd.io/remote-svc-fq-name': 'bar.default.svc.paris.example',
      'mirror.linkerd.io/remote-gateway-identity': IDENTITY,
    });
  });

  test('EndpointSlices are split by address family, tied to the mirror and managed by mirrorc', () => {
    // GIVEN a dual-stack gateway
    const snap = snapshot({ paris: target([service('default', 'bar')], { gateway: gateway({ addresses: ['2001:db8::1', '203.0.113.10'] }) }) }, { london: source() });
    // WHEN compiled
    const { objects } = compileObjects(londonParis, snap);
    const v4 = objects.get('london/EndpointSlice/default/bar-paris-ipv4');
    const v6 = objects.get('london/EndpointSlice/default/bar-paris-ipv6');
    // THEN one slice per family, each only with its own addresses
    assert.equal(v4.addressType, 'IPv4');
    assert.deepEqual(v4.endpoints, [{ addresses: ['203.0.113.10'], conditions: { ready: true } }]);
    assert.equal(v6.addressType, 'IPv6');
    assert.deepEqual(v6.endpoints, [{ addresses: ['2001:db8::1'], conditions: { ready: true } }]);
    for (const slice of [v4, v6]) {
      assert.equal(slice.metadata.labels['kubernetes.io/service-name'], 'bar-paris');
      assert.equal(slice.metadata.labels['endpointslice.kubernetes.io/managed-by'], 'mirrorc.io');
      assert.equal(slice.metadata.annotations['mirror.linkerd.io/remote-gateway-identity'], IDENTITY);
      assert.equal(slice.metadata.annotations['mirror.linkerd.io/remote-svc-fq-name'], 'bar.default.svc.paris.example');
      assert.deepEqual(slice.ports, [{ name: 'http', port: 4143, protocol: 'TCP' }]);
    }
    // AND an IPv4-only gateway yields no IPv6 slice
    const v4only = compileObjects(londonParis, snapshot({ paris: target([service('default', 'bar')]) }, { london: source() })).objects;
    assert.equal(v4only.has('london/EndpointSlice/default/bar-paris-ipv6'), false);
  });

  test('an unnamed single port stays unnamed on the Service, Endpoints and EndpointSlice', () => {
    const bar = service('default', 'bar', { ports: [{ name: '', protocol: 'TCP', port: 6379, targetPort: 6379 }] });
    const { objects } = compileObjects(londonParis, snapshot({ paris: target([bar]) }, { london: source() }));
    assert.deepEqual(objects.get('london/Service/default/bar-paris').spec.ports, [{ protocol: 'TCP', port: 6379, targetPort: 6379 }]);
    assert.deepEqual(objects.get('london/Endpoints/default/bar-paris').subsets[0].ports, [{ port: 4143, protocol: 'TCP' }]);
    assert.deepEqual(objects.get('london/EndpointSlice/default/bar-paris-ipv4').ports, [{ port: 4143, protocol: 'TCP' }]);
  });

  test('without a gateway identity the identity annotation is left out rather than empty', () => {
    const snap = snapshot({ paris: target([service('default', 'bar')], { gateway: { addresses: ['203.0.113.10'], port: 4143 } }) }, { london: source() });
    const { objects } = compileObjects(londonParis, snap);
    assert.equal('mirror.linkerd.io/remote-gateway-identity' in objects.get('london/Endpoints/default/bar-paris').metadata.annotations, false);
  });

  test('link exclusions and GitOps tracking keys are not copied', () => {
    // GIVEN a link excluding a label prefix and an annotation, and a service carrying Argo CD / Flux keys
    const fleet = spec((f) => {
      const a = new Cluster(f, 'a');
      const b = new Cluster(f, 'b');
      new Link(f, 'a-b', { source: a, target: b, excludedLabels: ['internal.example.com/*'], excludedAnnotations: ['example.com/secret-note', 'config.linkerd.io/opaque-ports'] });
    });
    const svc = service('default', 'web', {
      labels: {
        'mirror.linkerd.io/exported': 'true',
        'internal.example.com/cost': '1',
        'app.kubernetes.io/instance': 'web-prod',
        'kustomize.toolkit.fluxcd.io/name': 'apps',
        tier: 'front',
      },
      annotations: {
        'example.com/secret-note': 'x',
        'argocd.argoproj.io/tracking-id': 'apps:/Service:default/web',
        'config.linkerd.io/opaque-ports': '4000',
      },
    });
    // WHEN compiled
    const { objects } = compileObjects(fleet, snapshot({ b: target([svc]) }, { a: source() }));
    const mirror = objects.get('a/Service/default/web-b');
    // THEN only the allowed keys remain; opaque-ports survives its exclusion as in Linkerd
    assert.deepEqual(Object.keys(mirror.metadata.labels).sort(), ['mirror.linkerd.io/cluster-name', 'mirror.linkerd.io/mirrored-service', 'mirrorc.io/managed', 'tier']);
    assert.deepEqual(mirror.metadata.annotations, {
      'config.linkerd.io/opaque-ports': '4000',
      'mirror.linkerd.io/remote-svc-fq-name': 'web.default.svc.cluster.local',
    });
    assert.equal(objects.get('a/Endpoints/default/web-b').metadata.labels['internal.example.com/cost'], undefined);
  });
});

describe('selection', () => {
  test('each link applies its own selector and namespace filter to a target observed once', () => {
    // GIVEN two sources linking the same target with different selectors and namespace filters
    const fleet = spec((f) => {
      const a = new Cluster(f, 'a');
      const b = new Cluster(f, 'b');
      const t = new Cluster(f, 't');
      new Link(f, 'a-t', { source: a, target: t, namespaces: { exclude: ['kube-*'] } });
      new Link(f, 'b-t', { source: b, target: t, selector: { matchLabels: { tier: 'public' } } });
    });
    const services = [
      service('apps', 'one'),
      service('kube-system', 'dns'),
      service('apps', 'two', { labels: { tier: 'public' } }),
    ];
    const snap = snapshot({ t: target(services, { selectors: ['mirror.linkerd.io/exported=true', 'tier=public'] }) }, { a: source(['apps', 'kube-system']), b: source(['apps']) });
    // WHEN compiled
    const { objects } = compileObjects(fleet, snap);
    const services_ = [...objects.keys()].filter((k) => k.includes('/Service/')).sort();
    // THEN a gets only the exported service outside kube-*, b only the tier=public one
    assert.deepEqual(services_, ['a/Service/apps/one-t', 'b/Service/apps/two-t']);
  });

  test('an explicit export is mirrored without the export label; a missing one is reported', () => {
    const fleet = spec((f) => {
      const a = new Cluster(f, 'a');
      const t = new Cluster(f, 't');
      new Link(f, 'a-t', { source: a, target: t });
      new ExplicitExport(f, 'vendor', { cluster: t, namespace: 'default', name: 'vendor-api' });
      new ExplicitExport(f, 'gone', { cluster: t, namespace: 'default', name: 'gone' });
    });
    const vendor = { ...service('default', 'vendor-api', { labels: { app: 'vendor' } }), explicit: true as const };
    const { objects, result } = compileObjects(fleet, snapshot({ t: target([vendor], { missingExplicitExports: ['default/gone'] }) }, { a: source() }));
    assert.ok(objects.has('a/Service/default/vendor-api-t'));
    assert.ok(result.warnings.some((w) => w.includes('t/default/gone') && w.includes('does not exist')), result.warnings.join('\n'));
  });

  test('a target without a known gateway yields no gateway mirrors and says why', () => {
    const { objects, result } = compileObjects(londonParis, snapshot({ paris: target([service('default', 'bar')], { gateway: undefined }) }, { london: source() }));
    assert.equal([...objects.keys()].length, 0);
    assert.ok(result.warnings.some((w) => w.includes('no gateway address is known for "paris"')), result.warnings.join('\n'));
  });

  test('a service without ports is skipped with a warning', () => {
    const { objects, result } = compileObjects(londonParis, snapshot({ paris: target([service('default', 'ext', { type: 'ExternalName', ports: [] })]) }, { london: source() }));
    assert.equal(objects.size, 0);
    assert.ok(result.warnings.some((w) => w.includes('paris/default/ext has no ports')));
  });
});

describe('build-time validation', () => {
  test('with --strict, a mirror name over 63 characters is an error naming the cluster, service and length', () => {
    const long = 'a'.repeat(58); // + "-paris" = 64
    assert.throws(
      () => compileObjects(londonParis, snapshot({ paris: target([service('default', long)]) }, { london: source() }), { strict: true }),
      (e: unknown) => e instanceof CompileError && /london: .*paris\/default\/a{58}.*64 characters.*at most 63/.test(e.message),
    );
  });

  test('a mirror name of exactly 63 characters is accepted', () => {
    const name = 'a'.repeat(57); // + "-paris" = 63
    const { objects } = compileObjects(londonParis, snapshot({ paris: target([service('default', name)]) }, { london: source() }));
    assert.ok(objects.has(`london/Service/default/${name}-paris`));
  });

  test('with --strict, a collision with an existing Service in the source that mirrorc did not write is an error', () => {
    assert.throws(
      () => compileObjects(londonParis, snapshot({ paris: target([service('default', 'bar')]) }, { london: source(['default'], [{ namespace: 'default', name: 'bar-paris' }]) }), { strict: true }),
      (e: unknown) => e instanceof CompileError && /london: .*paris\/default\/bar.*Service default\/bar-paris.*already exists/.test(e.message),
    );
  });

  test('with --strict, two targets whose mirrors get the same name are an error naming both', () => {
    // GIVEN foo in cluster "x-y" and foo-x in cluster "y": both become foo-x-y
    const fleet = spec((f) => {
      const s = new Cluster(f, 's');
      const xy = new Cluster(f, 'x-y');
      const y = new Cluster(f, 'y');
      new Link(f, 's-xy', { source: s, target: xy });
      new Link(f, 's-y', { source: s, target: y });
    });
    const snap = snapshot({ 'x-y': target([service('default', 'foo')]), y: target([service('default', 'foo-x')]) }, { s: source() });
    assert.throws(
      () => compileObjects(fleet, snap, { strict: true }),
      (e: unknown) => e instanceof CompileError && e.message.includes('x-y/default/foo') && e.message.includes('y/default/foo-x') && e.message.includes('default/foo-x-y'),
    );
  });

  test('a namespace missing in the source skips its mirrors with a warning, unless the link creates it', () => {
    const snap = snapshot({ paris: target([service('team-a', 'bar')]) }, { london: source(['default']) });
    // WHEN the link does not create namespaces
    const skipped = compileObjects(londonParis, snap);
    assert.equal(skipped.objects.size, 0);
    assert.ok(skipped.result.warnings.some((w) => w.includes('namespace "team-a" does not exist') && w.includes('createMissingNamespaces')));
    // WHEN it does
    const creating = spec((f) => {
      const london = new Cluster(f, 'london');
      const paris = new Cluster(f, 'paris');
      new Link(f, 'l', { source: london, target: paris, createMissingNamespaces: true });
    });
    const { objects } = compileObjects(creating, snap);
    const ns = objects.get('london/Namespace//team-a');
    assert.ok(ns, 'the Namespace is emitted');
    assert.equal(ns.metadata.labels['mirrorc.io/managed'], 'true');
    assert.ok(objects.has('london/Service/team-a/bar-paris'));
  });

  test('with --strict, all errors are reported at once and no chart is produced', () => {
    const long = 'b'.repeat(60);
    assert.throws(
      () => compileObjects(londonParis, snapshot({ paris: target([service('default', long), service('default', 'bar')]) }, { london: source(['default'], [{ namespace: 'default', name: 'bar-paris' }]) }), { strict: true }),
      (e: unknown) => e instanceof CompileError && e.problems.length === 2,
    );
  });
});

describe('determinism', () => {
  test('the same observation in a different order compiles to identical objects in identical order', () => {
    const fleet = spec((f) => {
      const a = new Cluster(f, 'a');
      const b = new Cluster(f, 'b');
      const c = new Cluster(f, 'c');
      new Link(f, 'a-b', { source: a, target: b });
      new Link(f, 'a-c', { source: a, target: c });
    });
    const svcs = [service('x', 'one'), service('y', 'two', { labels: { z: '1', a: '2', 'mirror.linkerd.io/exported': 'true' } }), service('x', 'three')];
    const ordered = snapshot({ b: target(svcs), c: target([service('x', 'four')]) }, { a: source(['x', 'y']) });
    const shuffled = snapshot(
      { c: target([service('x', 'four')], { gateway: gateway() }), b: target([svcs[2]!, svcs[0]!, svcs[1]!], { gateway: gateway({ addresses: ['203.0.113.10'] }) }) },
      { a: source(['y', 'x']) },
    );
    const first = compileObjects(fleet, ordered).result.charts.map((c) => JSON.stringify(c.toJson()));
    const second = compileObjects(fleet, shuffled).result.charts.map((c) => JSON.stringify(c.toJson()));
    assert.deepEqual(second, first);
  });
});
