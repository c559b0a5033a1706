/**
 * Flat (remote-discovery) mode: selection, the mirror's shape (contract §2.3) and the credentials
 * Secret requirement (contract §4.1), which compile describes but never writes.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { Cluster, Link } from '../../src/model/index.js';
import { buildFleet } from '../../src/load/load-fleet.js';
import { FleetDefinitionError } from '../../src/model/fleet.js';
import {
  compileObjects,
  DEFAULT_SELECTOR_QUERIES,
  flatService,
  service,
  snapshot,
  source,
  spec,
  target,
} from '../fixtures/snapshots.js';

const londonParis = spec((fleet) => {
  const london = new Cluster(fleet, 'london');
  const paris = new Cluster(fleet, 'paris', { clusterDomain: 'paris.example', trustDomain: 'paris.trust' });
  new Link(fleet, 'london-paris', { source: london, target: paris });
});

const declared = spec((fleet) => {
  const london = new Cluster(fleet, 'london');
  const paris = new Cluster(fleet, 'paris');
  new Link(fleet, 'london-paris', { source: london, target: paris, remoteDiscoveryCredentials: { provided: 'external' } });
});

function paris(services: ReturnType<typeof service>[], overrides: Parameters<typeof target>[1] = {}) {
  return snapshot({ paris: target(services, { selectors: DEFAULT_SELECTOR_QUERIES, ...overrides }) }, { london: source(['default', 'web']) });
}

/** Keys of the compiled objects, sorted. */
function kinds(objects: Map<string, any>): string[] {
  return [...objects.keys()].sort();
}

describe('flat-mode mirror (contract §2.3)', () => {
  test('is one Service with the gateway-mode ports, the remote-discovery labels and no Endpoints or EndpointSlices', () => {
    // GIVEN a service exported with mirror.linkerd.io/exported=remote-discovery, two ports, labels and annotations
    const bb = flatService('default', 'bb', {
      labels: { app: 'bb', 'mirror.linkerd.io/exported': 'remote-discovery', team: 'x' },
      annotations: { 'example.com/owner': 'team-a', 'service.kubernetes.io/topology-mode': 'Auto' },
      ports: [
        { name: 'http', protocol: 'TCP', port: 80, targetPort: 'web' },
        { name: 'dns', protocol: 'UDP', port: 53, targetPort: 5353 },
      ],
    });
    // WHEN compiled for london
    const { objects } = compileObjects(londonParis, paris([bb]));
    // THEN london gets exactly one object: the Service bb-paris
    assert.deepEqual(kinds(objects), ['london/Service/default/bb-paris']);
    const svc = objects.get('london/Service/default/bb-paris');
    assert.deepEqual(svc.spec, {
      ports: [
        { name: 'http', protocol: 'TCP', port: 80, targetPort: 'web' },
        { name: 'dns', protocol: 'UDP', port: 53, targetPort: 5353 },
      ],
    });
    assert.deepEqual(svc.metadata.labels, {
      app: 'bb',
      team: 'x',
      'mirror.linkerd.io/mirrored-service': 'true',
      'mirror.linkerd.io/cluster-name': 'paris',
      'multicluster.linkerd.io/remote-discovery': 'paris',
      'multicluster.linkerd.io/remote-service': 'bb',
      'mirrorc.io/managed': 'true',
    });
    assert.deepEqual(svc.metadata.annotations, {
      'example.com/owner': 'team-a',
      'mirror.linkerd.io/remote-svc-fq-name': 'bb.default.svc.paris.example',
    });
  });

  test('a service matching both selectors is mirrored in flat mode', () => {
    // GIVEN a link whose gateway selector is tier=public, and a service matching it and the remote-discovery selector
    const fleet = spec((f) => {
      const london = new Cluster(f, 'london');
      const p = new Cluster(f, 'paris');
      new Link(f, 'london-paris', { source: london, target: p, selector: { matchLabels: { tier: 'public' } } });
    });
    const both = flatService('default', 'both', { labels: { app: 'both', tier: 'public', 'mirror.linkerd.io/exported': 'remote-discovery' } });
    const gw = service('default', 'gw', { labels: { app: 'gw', tier: 'public' } });
    // WHEN compiled
    const { objects } = compileObjects(fleet, paris([both, gw], { selectors: ['mirror.linkerd.io/exported=remote-discovery', 'tier=public'] }));
    // THEN "both" is flat (no Endpoints, remote-discovery label) and "gw" stays in gateway mode
    assert.equal(objects.get('london/Service/default/both-paris').metadata.labels['multicluster.linkerd.io/remote-discovery'], 'paris');
    assert.equal(objects.get('london/Endpoints/default/both-paris'), undefined);
    assert.ok(objects.get('london/Endpoints/default/gw-paris'));
    assert.equal(objects.get('london/Service/default/gw-paris').metadata.labels['multicluster.linkerd.io/remote-discovery'], undefined);
  });

  test('switching the export label from "true" to "remote-discovery" removes Endpoints and EndpointSlices and adds two labels, nothing else', () => {
    // GIVEN the same service exported for gateway mode, then for flat mode
    const gatewayRun = compileObjects(declared, paris([service('default', 'bar')])).objects;
    const flatRun = compileObjects(declared, paris([flatService('default', 'bar')])).objects;
    // THEN only the Service remains, and it differs by exactly the two remote-discovery labels
    const removed = [...gatewayRun.keys()].filter((k) => !flatRun.has(k)).sort();
    assert.deepEqual(removed, ['london/EndpointSlice/default/bar-paris-ipv4', 'london/Endpoints/default/bar-paris']);
    assert.deepEqual([...flatRun.keys()].filter((k) => !gatewayRun.has(k)), []);
    const before = gatewayRun.get('london/Service/default/bar-paris');
    const after = flatRun.get('london/Service/default/bar-paris');
    assert.deepEqual(after, {
      ...before,
      metadata: {
        ...before.metadata,
        labels: { ...before.metadata.labels, 'multicluster.linkerd.io/remote-discovery': 'paris', 'multicluster.linkerd.io/remote-service': 'bar' },
      },
    });
  });

  test('needs no gateway: compiled without one, and the gateway warning only concerns gateway-mode services', () => {
    // GIVEN a target with no known gateway, exporting one flat-mode service
    const flatOnly = compileObjects(declared, paris([flatService('default', 'bb')], { gateway: undefined }));
    // THEN the flat mirror is compiled and nothing mentions the gateway
    assert.ok(flatOnly.objects.get('london/Service/default/bb-paris'));
    assert.deepEqual(flatOnly.result.warnings, []);
    // AND with a gateway-mode service too, only that one is skipped, with the gateway warning
    const mixed = compileObjects(declared, paris([flatService('default', 'bb'), service('default', 'bar')], { gateway: undefined }));
    assert.deepEqual(kinds(mixed.objects), ['london/Service/default/bb-paris']);
    assert.ok(mixed.result.warnings.some((w) => w.includes('no gateway address is known for "paris"')), mixed.result.warnings.join('\n'));
  });

  test('a lock observed without the remote-discovery selector is reported', () => {
    // GIVEN a lock from before flat mode was observed
    const { result } = compileObjects(declared, paris([service('default', 'bar')], { selectors: ['mirror.linkerd.io/exported=true'] }));
    // THEN compile says which selector the lock lacks
    assert.ok(result.warnings.some((w) => w.includes('selector "mirror.linkerd.io/exported=remote-discovery"')), result.warnings.join('\n'));
  });
});

describe('flat-mode credentials Secret (contract §4.1): described, never written', () => {
  test('is required once per source and target, with the exact type, label, annotations and data key', () => {
    // GIVEN two flat services and one gateway service
    const { objects, result } = compileObjects(londonParis, paris([flatService('web', 'b'), flatService('default', 'a'), service('default', 'bar')]));
    // THEN exactly one requirement for london ← paris
    assert.deepEqual(result.requirements, [
      {
        cluster: 'london',
        target: 'paris',
        link: 'fleet/london-paris',
        provided: undefined,
        neededBy: ['default/a-paris', 'web/b-paris'],
        name: 'cluster-credentials-paris',
        namespace: 'linkerd',
        type: 'mirror.linkerd.io/remote-kubeconfig',
        labels: { 'multicluster.linkerd.io/cluster-name': 'paris' },
        annotations: { 'multicluster.linkerd.io/cluster-domain': 'paris.example', 'multicluster.linkerd.io/trust-domain': 'paris.trust' },
        dataKeys: ['kubeconfig'],
      },
    ]);
    // AND no Secret is in the output
    assert.deepEqual([...objects.values()].filter((o) => o.kind === 'Secret'), []);
  });

  test('an undeclared Secret gives one short coded warning naming it and the declaration; plan spells the Secret out', () => {
    // GIVEN a link without remoteDiscoveryCredentials and a flat service
    const { result } = compileObjects(londonParis, paris([flatService('default', 'bb')]));
    // THEN one warning, coded MRC3010, names the Secret and the declaration in one line (it was 837 characters)
    const warnings = result.diagnostics.filter((d) => d.message.includes('cluster-credentials'));
    assert.equal(warnings.length, 1, result.warnings.join('\n'));
    const w = warnings[0]!;
    assert.equal(w.code, 'MRC3010');
    assert.deepEqual([w.cluster, w.target], ['london', 'paris']);
    assert.ok(w.message.length < 400 && !w.message.includes('\n'), `${w.message.length} characters: ${w.message}`);
    for (const part of ['london: link fleet/london-paris', 'default/bb-paris', 'Secret linkerd/cluster-credentials-paris', "remoteDiscoveryCredentials: { provided: 'external' }"]) {
      assert.ok(w.message.includes(part), `warning lacks ${part}: ${w.message}`);
    }
    // AND the plan row gives the Secret in full: type, labels, annotations, data key
    const rows = result.planRows.filter((r) => r.startsWith('credentials Secret: london needs Secret linkerd/cluster-credentials-paris'));
    assert.equal(rows.length, 1, result.planRows.join('\n'));
    for (const part of [
      'type mirror.linkerd.io/remote-kubeconfig',
      'multicluster.linkerd.io/cluster-name: paris',
      'multicluster.linkerd.io/trust-domain: paris.trust',
      'multicluster.linkerd.io/cluster-domain: paris.example',
      'data key "kubeconfig"',
      'not declared on the link',
    ]) {
      assert.ok(rows[0]!.includes(part), `plan row lacks ${part}: ${rows[0]}`);
    }
  });

  test('a declared Secret gives no warning and keeps its declared name; gateway-only links need none', () => {
    // GIVEN a link declaring the Secret under a custom name
    const named = spec((fleet) => {
      const london = new Cluster(fleet, 'london');
      const p = new Cluster(fleet, 'paris');
      new Link(fleet, 'london-paris', { source: london, target: p, remoteDiscoveryCredentials: { provided: 'external', secretName: 'paris-kubeconfig' } });
    });
    const { result } = compileObjects(named, paris([flatService('default', 'bb')]));
    // THEN no warning, and the requirement carries the name and the declaration
    assert.deepEqual(result.warnings, []);
    assert.equal(result.requirements.length, 1);
    assert.equal(result.requirements[0]!.name, 'paris-kubeconfig');
    assert.equal(result.requirements[0]!.provided, 'external');
    // AND a link with only gateway-mode mirrors requires no Secret and warns about none
    const gatewayOnly = compileObjects(londonParis, paris([service('default', 'bar')]));
    assert.deepEqual(gatewayOnly.result.requirements, []);
    assert.deepEqual(gatewayOnly.result.warnings, []);
  });
});

describe('flat-mode model validation', () => {
  function problems(define: Parameters<typeof buildFleet>[0]): readonly string[] {
    try {
      buildFleet(define).fleet.toSpec();
    } catch (e) {
      if (e instanceof FleetDefinitionError) return e.problems;
      throw e;
    }
    assert.fail('expected a FleetDefinitionError');
  }

  test('remoteDiscoverySelector is validated like selector and reported under its own name', () => {
    const found = problems((fleet) => {
      const s = new Cluster(fleet, 's');
      const t = new Cluster(fleet, 't');
      new Link(fleet, 'l', { source: s, target: t, remoteDiscoverySelector: {} });
    });
    assert.equal(found.length, 1, found.join('\n'));
    assert.ok(found[0]!.startsWith('link fleet/l: remoteDiscoverySelector:'), found[0]);
    assert.ok(found[0]!.includes('the selector is empty'), found[0]);
  });

  test('a bad trust domain and a bad credentials Secret name are reported', () => {
    const found = problems((fleet) => {
      const s = new Cluster(fleet, 's');
      const t = new Cluster(fleet, 't', { trustDomain: 'Not A Domain' });
      new Link(fleet, 'l', { source: s, target: t, remoteDiscoveryCredentials: { provided: 'external', secretName: 'Bad_Name' } });
    });
    assert.deepEqual(found, [
      'cluster fleet/t: trustDomain "Not A Domain" is not a DNS domain',
      'link fleet/l: remoteDiscoveryCredentials.secretName "Bad_Name" is not a Secret name (a DNS subdomain)',
    ]);
  });
});
