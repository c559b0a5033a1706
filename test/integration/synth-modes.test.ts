/**
 * Every mode at once, against real kube-apiservers: london links paris, rome and madrid; one service
 * is exported in each mode. The output applies server-side without drift, and switching a service's
 * label between modes changes exactly the expected objects, with no change to the fleet definition.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, describe, test } from 'node:test';
import { parse } from 'yaml';
import { ExitCode } from '../../src/errors/exit-codes.js';
import type { FleetDefinition } from '../../src/load/load-fleet.js';
import { Cluster, Link } from '../../src/model/index.js';
import { observationRules } from '../../src/observe/observation-rbac.js';
import { kubeFleetForTests, type KubeFleet } from '../harness/kube-fleet.js';
import { applyService, applyStatefulService, applyWithoutDrift, ensureNamespace, installGateway, unitFree, Workspace } from './support.js';

const GATEWAY = { 'mirror.linkerd.io/exported': 'true' };
const FLAT = { 'mirror.linkerd.io/exported': 'remote-discovery' };
const MEMBER = { 'mirror.linkerd.io/federated': 'member' };

/** The objects of `cluster` (per-object keys of {@link Workspace.files}, relative to it) added, changed and removed from `before` to `after`, sorted. */
function objectChanges(before: ReadonlyMap<string, string>, after: ReadonlyMap<string, string>, cluster: string): { added: string[]; changed: string[]; removed: string[] } {
  const mine = (tree: ReadonlyMap<string, string>): Map<string, string> =>
    new Map([...tree].filter(([k]) => k.startsWith(`${cluster}/`)).map(([k, v]) => [k.slice(cluster.length + 1), v]));
  const a = mine(before);
  const b = mine(after);
  return {
    added: [...b.keys()].filter((k) => !a.has(k)).sort(),
    changed: [...b.keys()].filter((k) => a.has(k) && a.get(k) !== b.get(k)).sort(),
    removed: [...a.keys()].filter((k) => !b.has(k)).sort(),
  };
}

const defineFleet: FleetDefinition = (fleet) => {
  const london = new Cluster(fleet, 'london', { pinnedServiceIPRange: '10.96.0.0/24' });
  for (const t of ['paris', 'rome', 'madrid']) {
    new Link(fleet, `london-from-${t}`, { source: london, target: new Cluster(fleet, t), remoteDiscoveryCredentials: { provided: 'external' }, globalServices: true });
  }
};

describe('all modes mixed, and switching modes by label, against real API servers', () => {
  let fleet: KubeFleet | undefined;

  before(async (t) => {
    fleet = await kubeFleetForTests(t as never, ['london', 'paris', 'rome', 'madrid'], { readerRules: observationRules({ source: true, target: true }) });
    if (!fleet) return;
    await installGateway(fleet, 'paris', '203.0.113.10');
    await installGateway(fleet, 'rome', '198.51.100.30');
    await installGateway(fleet, 'madrid', '192.0.2.40');
    await ensureNamespace(fleet, 'london', 'shop');
  });

  after(async () => {
    await fleet?.stop();
  });

  test('one service per mode compiles, applies without drift, and a label switch changes exactly its objects', async (t) => {
    if (!fleet) return t.skip('no kube-apiserver');
    const ws = new Workspace(defineFleet, fleet.kubeconfig('reader'));
    try {
      // GIVEN web in gateway mode (paris), search in flat mode (rome), kafka as a StatefulSet (madrid),
      // and cart federated across london, paris and rome
      await applyService(fleet, 'paris', 'shop', 'web', { app: 'web', ...GATEWAY });
      await applyService(fleet, 'rome', 'shop', 'search', { app: 'search', ...FLAT });
      await applyStatefulService(fleet, 'madrid', 'shop', 'kafka', 2, { app: 'kafka', ...GATEWAY });
      for (const cluster of ['london', 'paris', 'rome']) await applyService(fleet, cluster, 'shop', 'cart', { app: 'cart', ...MEMBER });
      // WHEN synth runs
      const first = await ws.synth();
      assert.equal(first.exitCode, ExitCode.OK, ws.logs.join('\n'));
      // THEN london gets exactly the objects of each mode
      assert.deepEqual(ws.paths('london').filter((p) => p.startsWith('shop/')).sort(), [
        'shop/endpoints-kafka-0-madrid.yaml',
        'shop/endpoints-kafka-1-madrid.yaml',
        'shop/endpoints-kafka-madrid.yaml',
        'shop/endpoints-web-paris.yaml',
        'shop/endpointslice-kafka-0-madrid-ipv4.yaml',
        'shop/endpointslice-kafka-1-madrid-ipv4.yaml',
        'shop/endpointslice-kafka-global-madrid.yaml',
        'shop/endpointslice-kafka-madrid-ipv4.yaml',
        'shop/endpointslice-web-paris-ipv4.yaml',
        'shop/service-cart-federated.yaml',
        'shop/service-kafka-0-madrid.yaml',
        'shop/service-kafka-1-madrid.yaml',
        'shop/service-kafka-global.yaml',
        'shop/service-kafka-madrid.yaml',
        'shop/service-search-rome.yaml',
        'shop/service-web-paris.yaml',
      ]);
      // AND a file per mirror: a gateway mirror's Endpoints and slices, a headless mirror's per-pod
      // mirrors and a -global Service's slices are documents of the mirror's own file
      assert.deepEqual([...ws.outputFiles().keys()].filter((p) => p.startsWith('london/shop/')), [
        'london/shop/service-cart-federated.yaml',
        'london/shop/service-kafka-global.yaml',
        'london/shop/service-kafka-madrid.yaml',
        'london/shop/service-search-rome.yaml',
        'london/shop/service-web-paris.yaml',
      ]);
      const cart = parse(ws.files().get('london/shop/service-cart-federated.yaml')!);
      assert.equal(cart.metadata.annotations['multicluster.linkerd.io/remote-discovery'], 'cart@paris,cart@rome');
      assert.equal(cart.metadata.annotations['multicluster.linkerd.io/local-discovery'], 'cart');
      const search = parse(ws.files().get('london/shop/service-search-rome.yaml')!);
      assert.equal(search.metadata.labels['multicluster.linkerd.io/remote-discovery'], 'rome');
      assert.equal(search.metadata.labels['multicluster.linkerd.io/remote-service'], 'search');
      // AND the source apiserver accepts all of it, reads it back unchanged, and re-applies as a no-op
      await applyWithoutDrift(fleet, ws, 'london');

      // WHEN labels change on the targets only: web gateway→flat, search flat→gateway,
      // cart leaves the federation in rome, kafka is unexported
      await fleet.kubectl('paris', ['label', 'service', 'web', '-n', 'shop', '--overwrite', 'mirror.linkerd.io/exported=remote-discovery']);
      await fleet.kubectl('rome', ['label', 'service', 'search', '-n', 'shop', '--overwrite', 'mirror.linkerd.io/exported=true']);
      await fleet.kubectl('rome', ['label', 'service', 'cart', '-n', 'shop', 'mirror.linkerd.io/federated-']);
      await fleet.kubectl('madrid', ['label', 'service', 'kafka', '-n', 'shop', 'mirror.linkerd.io/exported-']);
      const objectsBefore = ws.files();
      const plan = await ws.synth({ mode: 'plan', print: () => {} });
      const second = await ws.synth();
      // THEN plan and synth report exactly these changes of files, with the same fleet definition:
      // search and web keep their files (now with and without Endpoints and slice), madrid's mirror
      // and kafka-global (whose file holds madrid's slice) go
      assert.equal(second.exitCode, ExitCode.OK, ws.logs.join('\n'));
      assert.deepEqual(plan.changes, second.changes);
      const london = second.changes.find((c) => c.cluster === 'london')!;
      assert.deepEqual(unitFree(london.added), []);
      assert.deepEqual(unitFree(london.changed), ['kustomization.yaml', 'shop/service-cart-federated.yaml', 'shop/service-search-rome.yaml', 'shop/service-web-paris.yaml']);
      assert.deepEqual(unitFree(london.removed), [
        'kustomization.yaml', // from-madrid/kustomization.yaml: madrid's whole unit goes
        'shop/service-kafka-global.yaml',
        'shop/service-kafka-madrid.yaml',
      ]);
      // AND exactly these objects are added, changed and removed
      const objects = objectChanges(objectsBefore, ws.files(), 'london');
      assert.deepEqual(objects.added, ['shop/endpoints-search-rome.yaml', 'shop/endpointslice-search-rome-ipv4.yaml']);
      assert.deepEqual(objects.changed, ['kustomization.yaml', 'shop/service-cart-federated.yaml', 'shop/service-search-rome.yaml', 'shop/service-web-paris.yaml']);
      assert.deepEqual(objects.removed, [
        'shop/endpoints-kafka-0-madrid.yaml',
        'shop/endpoints-kafka-1-madrid.yaml',
        'shop/endpoints-kafka-madrid.yaml',
        'shop/endpoints-web-paris.yaml',
        'shop/endpointslice-kafka-0-madrid-ipv4.yaml',
        'shop/endpointslice-kafka-1-madrid-ipv4.yaml',
        'shop/endpointslice-kafka-global-madrid.yaml',
        'shop/endpointslice-kafka-madrid-ipv4.yaml',
        'shop/endpointslice-web-paris-ipv4.yaml',
        'shop/service-kafka-0-madrid.yaml',
        'shop/service-kafka-1-madrid.yaml',
        'shop/service-kafka-global.yaml',
        'shop/service-kafka-madrid.yaml',
      ]);
      const web = parse(ws.files().get('london/shop/service-web-paris.yaml')!);
      assert.equal(web.metadata.labels['multicluster.linkerd.io/remote-discovery'], 'paris');
      const cartAfter = parse(ws.files().get('london/shop/service-cart-federated.yaml')!);
      assert.equal(cartAfter.metadata.annotations['multicluster.linkerd.io/remote-discovery'], 'cart@paris');
      // AND kafka's pinned IPs are released from the lock
      assert.equal(JSON.parse(readFileSync(ws.lockFile, 'utf8')).compiled.pinnedServiceIPs, undefined);
      // AND the switched output applies to the source without drift
      await applyWithoutDrift(fleet, ws, 'london');
    } finally {
      ws.remove();
    }
  });
});
