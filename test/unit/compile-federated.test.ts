/**
 * Federated mode (contract §2.4) on fixture snapshots: the `<svc>-federated` Service, the member
 * precedence, the conflict report, members left out, name checks and the credentials Secret.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { CompileError } from '../../src/compile/diagnostics.js';
import { buildFleet, type FleetDefinition } from '../../src/load/load-fleet.js';
import { FleetDefinitionError } from '../../src/model/fleet.js';
import { Cluster, Link } from '../../src/model/index.js';
import type { ObservedService, SourceSnapshot } from '../../src/snapshot/snapshot.js';
import {
  compileObjects,
  DEFAULT_SELECTOR_QUERIES,
  federatedService,
  federatedSource,
  service,
  snapshot,
  source,
  spec,
  target,
} from '../fixtures/snapshots.js';

/** london links to paris and rome, declared rome first; both declare their credentials Secret. */
const defineFleet: FleetDefinition = (fleet) => {
  const london = new Cluster(fleet, 'london');
  const paris = new Cluster(fleet, 'paris');
  const rome = new Cluster(fleet, 'rome');
  new Link(fleet, 'london-from-rome', { source: london, target: rome, remoteDiscoveryCredentials: { provided: 'external' } });
  new Link(fleet, 'london-from-paris', {
    source: london,
    target: paris,
    excludedLabels: ['paris.example.com/*'],
    remoteDiscoveryCredentials: { provided: 'external' },
  });
};
const fleet = spec(defineFleet);

function fleetSnapshot(paris: ObservedService[], rome: ObservedService[], london: SourceSnapshot = federatedSource(['default', 'shop'], [])) {
  return snapshot(
    { paris: target(paris, { selectors: DEFAULT_SELECTOR_QUERIES }), rome: target(rome, { selectors: DEFAULT_SELECTOR_QUERIES }) },
    { london },
  );
}

describe('federated Service (contract §2.4)', () => {
  test('members in two targets plus the source: one <svc>-federated with the local member first and the targets by name', () => {
    // GIVEN shop/cart is a federated member in london itself, in paris and in rome
    const local = federatedService('shop', 'cart', {
      labels: { app: 'cart', team: 'checkout', 'mirror.linkerd.io/federated': 'member' },
      annotations: { 'config.linkerd.io/opaque-ports': '9090', 'service.kubernetes.io/topology-mode': 'Auto' },
      ports: [{ name: 'http', protocol: 'TCP', port: 80, targetPort: 'http' }, { name: 'grpc', protocol: 'TCP', port: 9090, targetPort: 9090 }],
    });
    const remote = (labels: Record<string, string>) => federatedService('shop', 'cart', { labels: { ...labels, 'mirror.linkerd.io/federated': 'member' }, ports: local.ports });
    const snap = fleetSnapshot([remote({ app: 'cart', site: 'paris' })], [remote({ app: 'cart', site: 'rome' })], federatedSource(['default', 'shop'], [local]));
    // WHEN london is compiled
    const { objects, result } = compileObjects(fleet, snap);
    // THEN london gets exactly one object, the Service shop/cart-federated, and no warning
    assert.deepEqual([...objects.keys()], ['london/Service/shop/cart-federated']);
    assert.deepEqual(result.warnings, []);
    const svc = objects.get('london/Service/shop/cart-federated');
    // AND its ports, labels and annotations are the local member's, with no cluster-name label and no fq-name
    assert.deepEqual(svc.spec, { ports: [{ name: 'http', protocol: 'TCP', port: 80, targetPort: 'http' }, { name: 'grpc', protocol: 'TCP', port: 9090, targetPort: 9090 }] });
    assert.deepEqual(svc.metadata.labels, { app: 'cart', team: 'checkout', 'mirror.linkerd.io/mirrored-service': 'true', 'mirrorc.io/managed': 'true' });
    // AND the remote members are listed paris before rome (cluster-name order, not declaration order), the local one separately
    assert.deepEqual(svc.metadata.annotations, {
      'config.linkerd.io/opaque-ports': '9090',
      'multicluster.linkerd.io/remote-discovery': 'cart@paris,cart@rome',
      'multicluster.linkerd.io/local-discovery': 'cart',
    });
  });

  test('without a local member the first target by cluster name wins, copied with its own link\'s exclusions', () => {
    // GIVEN cart in paris (with a label the paris link excludes) and in rome, none in london
    const paris = federatedService('shop', 'cart', { labels: { app: 'cart', 'paris.example.com/cost': 'x', 'mirror.linkerd.io/federated': 'member' }, annotations: { owner: 'paris-team' } });
    const rome = federatedService('shop', 'cart', { labels: { app: 'cart', site: 'rome', 'mirror.linkerd.io/federated': 'member' }, annotations: { owner: 'rome-team' } });
    // WHEN compiled
    const { objects } = compileObjects(fleet, fleetSnapshot([paris], [rome]));
    const svc = objects.get('london/Service/shop/cart-federated');
    // THEN paris's metadata wins, minus paris's exclusions, and there is no local-discovery annotation
    assert.deepEqual(svc.metadata.labels, { app: 'cart', 'mirror.linkerd.io/mirrored-service': 'true', 'mirrorc.io/managed': 'true' });
    assert.deepEqual(svc.metadata.annotations, { owner: 'paris-team', 'multicluster.linkerd.io/remote-discovery': 'cart@paris,cart@rome' });
  });

  test('a local member alone gives a federated Service with local-discovery only', () => {
    // GIVEN only london's own cart is a member
    const { objects } = compileObjects(fleet, fleetSnapshot([], [], federatedSource(['shop'], [federatedService('shop', 'cart')])));
    // THEN cart-federated names it in local-discovery and has no remote-discovery annotation
    assert.deepEqual(objects.get('london/Service/shop/cart-federated').metadata.annotations, { 'multicluster.linkerd.io/local-discovery': 'cart' });
  });

  test('member order and output do not depend on the declaration order of links or the list order of services', () => {
    // GIVEN the same members, with links declared in the other order and services listed in reverse
    const reversed = spec((f) => {
      const london = new Cluster(f, 'london');
      const rome = new Cluster(f, 'rome');
      const paris = new Cluster(f, 'paris');
      new Link(f, 'london-from-paris', { source: london, target: paris, excludedLabels: ['paris.example.com/*'], remoteDiscoveryCredentials: { provided: 'external' } });
      new Link(f, 'london-from-rome', { source: london, target: rome, remoteDiscoveryCredentials: { provided: 'external' } });
    });
    const members = ['a', 'b', 'c'].map((n) => federatedService('shop', n));
    const forward = compileObjects(fleet, fleetSnapshot(members, members, federatedSource(['shop'], members)));
    const backward = compileObjects(reversed, fleetSnapshot([...members].reverse(), [...members].reverse(), federatedSource(['shop'], [...members].reverse())));
    // THEN both compile to the same objects in the same order, every list being london, paris, rome
    assert.equal(JSON.stringify([...backward.objects]), JSON.stringify([...forward.objects]));
    for (const n of ['a', 'b', 'c']) {
      assert.equal(forward.objects.get(`london/Service/shop/${n}-federated`).metadata.annotations['multicluster.linkerd.io/remote-discovery'], `${n}@paris,${n}@rome`);
    }
  });

  test('a service both exported and a federated member gets its gateway mirror and joins the federated Service', () => {
    // GIVEN paris's cart carries both the export and the federated label
    const cart = service('shop', 'cart', { labels: { app: 'cart', 'mirror.linkerd.io/exported': 'true', 'mirror.linkerd.io/federated': 'member' } });
    // WHEN compiled
    const { objects } = compileObjects(fleet, fleetSnapshot([cart], []));
    // THEN london gets both cart-paris (with its Endpoints) and cart-federated
    assert.ok(objects.get('london/Service/shop/cart-paris'));
    assert.ok(objects.get('london/Endpoints/shop/cart-paris'));
    assert.equal(objects.get('london/Service/shop/cart-federated').metadata.annotations['multicluster.linkerd.io/remote-discovery'], 'cart@paris');
  });

  test('a link\'s namespace filter and federatedServiceSelector decide which target services join', () => {
    // GIVEN a link that only takes namespace "shop" and members labelled federation=global
    const custom = spec((f) => {
      const london = new Cluster(f, 'london');
      const paris = new Cluster(f, 'paris');
      new Link(f, 'l', {
        source: london,
        target: paris,
        namespaces: { include: ['shop'] },
        federatedServiceSelector: { matchLabels: { federation: 'global' } },
        remoteDiscoveryCredentials: { provided: 'external' },
      });
    });
    const snap = snapshot(
      {
        paris: target(
          [
            service('shop', 'in', { labels: { federation: 'global' } }),
            service('other', 'filtered', { labels: { federation: 'global' } }),
            federatedService('shop', 'default-label'),
          ],
          { selectors: ['federation=global', 'mirror.linkerd.io/exported=remote-discovery', 'mirror.linkerd.io/exported=true'] },
        ),
      },
      { london: federatedSource(['shop', 'other'], []) },
    );
    // WHEN compiled
    const { objects } = compileObjects(custom, snap);
    // THEN only shop/in joins
    assert.deepEqual([...objects.keys()], ['london/Service/shop/in-federated']);
  });
});

describe('federated member conflicts and members left out', () => {
  test('conflicting ports and types are one warning naming each member, port and value; the first member still wins', () => {
    // GIVEN paris's api (the winner) and rome's api disagree on every rule
    const paris = federatedService('shop', 'api', {
      ports: [{ name: 'http', protocol: 'TCP', port: 80 }, { name: 'grpc', protocol: 'TCP', port: 9090 }, { name: 'dns', protocol: 'UDP', port: 53 }],
    });
    const rome = federatedService('shop', 'api', {
      type: 'NodePort',
      ports: [{ name: 'http', protocol: 'TCP', port: 8080 }, { name: 'dns', protocol: 'TCP', port: 53 }, { name: 'admin', protocol: 'TCP', port: 9000 }],
    });
    // WHEN compiled
    const { objects, result } = compileObjects(fleet, fleetSnapshot([paris], [rome]));
    // THEN compile succeeds with paris's ports and both members listed
    const svc = objects.get('london/Service/shop/api-federated');
    assert.deepEqual(svc.spec.ports.map((p: { name: string }) => p.name), ['http', 'grpc', 'dns']);
    assert.equal(svc.metadata.annotations['multicluster.linkerd.io/remote-discovery'], 'api@paris,api@rome');
    // AND exactly one warning reports every conflict
    assert.equal(result.warnings.length, 1, result.warnings.join('\n'));
    const w = result.warnings[0]!;
    for (const part of [
      'london: the members of federated Service shop/api-federated conflict',
      'from api@paris (precedence: the source\'s own member, then the targets by cluster name)',
      'type: api@paris is ClusterIP, api@rome is NodePort',
      'port "http": api@paris has 80/TCP, api@rome has 8080/TCP',
      'port "grpc" (9090/TCP): in api@paris, missing in api@rome',
      'port "dns": api@paris has 53/UDP, api@rome has 53/TCP',
      'port "admin" (9000/TCP): in api@rome, missing in api@paris',
    ]) {
      assert.ok(w.includes(part), `warning lacks ${part}: ${w}`);
    }
  });

  test('members that agree give no conflict, whatever their targetPorts', () => {
    // GIVEN the same port names, numbers and protocols, with different targetPorts
    const paris = federatedService('shop', 'api', { ports: [{ name: 'http', protocol: 'TCP', port: 80, targetPort: 8080 }] });
    const rome = federatedService('shop', 'api', { ports: [{ name: 'http', protocol: 'TCP', port: 80, targetPort: 'web' }] });
    // THEN no warning
    assert.deepEqual(compileObjects(fleet, fleetSnapshot([paris], [rome])).result.warnings, []);
  });

  test('a headless member is left out with a warning that says why; a headless-only group gives no Service', () => {
    // GIVEN paris's cart is headless and rome's is not; paris's solo is headless and alone
    const snap = fleetSnapshot(
      [federatedService('shop', 'cart', { headless: true }), federatedService('shop', 'solo', { headless: true })],
      [federatedService('shop', 'cart')],
    );
    // WHEN compiled
    const { objects, result } = compileObjects(fleet, snap);
    // THEN cart-federated lists rome only, and there is no solo-federated
    assert.deepEqual([...objects.keys()], ['london/Service/shop/cart-federated']);
    assert.equal(objects.get('london/Service/shop/cart-federated').metadata.annotations['multicluster.linkerd.io/remote-discovery'], 'cart@rome');
    // AND each headless member is named in a warning
    for (const id of ['paris/shop/cart', 'paris/shop/solo']) {
      const w = result.warnings.find((x) => x.includes(id));
      assert.ok(w, `no warning for ${id}: ${result.warnings.join('\n')}`);
      assert.match(w, /is headless \(clusterIP: None\), and a headless Service cannot join a federated Service/);
    }
  });

  test('a namespace missing in the source skips the federated Service with a warning', () => {
    // GIVEN members in namespace "gone", which london lacks
    const { objects, result } = compileObjects(fleet, fleetSnapshot([federatedService('gone', 'cart')], [], federatedSource(['shop'], [])));
    // THEN nothing is compiled, and the warning names the Service and its members
    assert.deepEqual([...objects.keys()], []);
    assert.ok(result.warnings.some((w) => w.includes('namespace "gone" does not exist, so federated Service gone/cart-federated (cart@paris) is not compiled')), result.warnings.join('\n'));
  });

  test('a lock without an observation of the source\'s own members says so', () => {
    // GIVEN a source snapshot from before federated mode (no federatedSelector)
    const { result } = compileObjects(fleet, fleetSnapshot([federatedService('shop', 'cart')], [], source(['shop'])));
    // THEN compile warns that local members may be missing
    assert.ok(result.warnings.some((w) => w.includes('the lock holds no observation of "london"\'s own federated members with selector "mirror.linkerd.io/federated=member"')), result.warnings.join('\n'));
  });
});

describe('federated names and credentials', () => {
  test('with --strict, a foreign <svc>-federated Service in the source and an overlong name are compile errors', () => {
    // GIVEN london already has a Service shop/cart-federated not written by mirrorc, and a member with a 54-character name
    const long = 'x'.repeat(54);
    const snap = fleetSnapshot([federatedService('shop', 'cart'), federatedService('shop', long)], [], federatedSource(['shop'], [], [{ namespace: 'shop', name: 'cart-federated' }]));
    // WHEN compiled
    let caught: unknown;
    try {
      compileObjects(fleet, snap, { strict: true });
    } catch (e) {
      caught = e;
    }
    // THEN both are reported and nothing is produced
    assert.ok(caught instanceof CompileError);
    assert.equal(caught.problems.length, 2, caught.message);
    assert.ok(caught.problems.some((p) => p.includes('would be Service shop/cart-federated, which already exists in "london"')), caught.message);
    assert.ok(caught.problems.some((p) => p.includes(`the federated-mode mirror of shop/${long} (members ${long}@paris) would be named "${long}-federated" (64 characters)`)), caught.message);
  });

  test('one credentials requirement per link covers its flat mirrors and federated members; the local member needs none', () => {
    // GIVEN a link without declared credentials; paris has a flat-mode service and a federated member, london has a local member
    const undeclared = spec((f) => {
      const london = new Cluster(f, 'london');
      const paris = new Cluster(f, 'paris');
      new Link(f, 'london-paris', { source: london, target: paris });
    });
    const snap = snapshot(
      {
        paris: target(
          [federatedService('shop', 'cart'), service('shop', 'bb', { labels: { 'mirror.linkerd.io/exported': 'remote-discovery' } })],
          { selectors: DEFAULT_SELECTOR_QUERIES },
        ),
      },
      { london: federatedSource(['shop'], [federatedService('shop', 'local-only')]) },
    );
    // WHEN compiled
    const { result } = compileObjects(undeclared, snap);
    // THEN exactly one requirement, needed by the flat mirror and the federated Service with a paris member
    assert.equal(result.requirements.length, 1);
    assert.deepEqual(result.requirements[0]!.neededBy, ['shop/bb-paris', 'shop/cart-federated']);
    // AND one warning that counts both kinds
    const warnings = result.warnings.filter((w) => w.includes('cluster-credentials-paris'));
    assert.equal(warnings.length, 1, result.warnings.join('\n'));
    assert.ok(warnings[0]!.includes('compiles 1 flat-mode (remote-discovery) mirror and 1 federated Service with members of "paris"'), warnings[0]);
  });
});

describe('federated model validation', () => {
  function problems(define: FleetDefinition): readonly string[] {
    try {
      buildFleet(define).fleet.toSpec();
    } catch (e) {
      if (e instanceof FleetDefinitionError) return e.problems;
      throw e;
    }
    assert.fail('expected a FleetDefinitionError');
  }

  test('a cluster named "federated" is rejected, since its mirrors would take federated Services\' names', () => {
    const found = problems((f) => {
      const s = new Cluster(f, 's');
      const t = new Cluster(f, 't', { name: 'federated' });
      new Link(f, 'l', { source: s, target: t });
    });
    assert.equal(found.length, 1, found.join('\n'));
    assert.match(found[0]!, /^cluster fleet\/t: the cluster name "federated" is reserved: its mirrors "<svc>-federated" would take the names of federated Services; rename the cluster/);
  });

  test('federatedServiceSelector and localFederatedSelector are validated under their own names', () => {
    const found = problems((f) => {
      const s = new Cluster(f, 's', { localFederatedSelector: {} });
      const t = new Cluster(f, 't');
      new Link(f, 'l', { source: s, target: t, federatedServiceSelector: { matchLabels: { 'bad key!': 'x' } } });
    });
    assert.equal(found.length, 2, found.join('\n'));
    assert.ok(found[0]!.startsWith('cluster fleet/s: localFederatedSelector: the selector is empty'), found[0]);
    assert.ok(found[1]!.startsWith('link fleet/l: federatedServiceSelector: label key "bad key!"'), found[1]);
  });
});
