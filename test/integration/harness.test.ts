/**
 * Smoke test of the real-Kubernetes harness (test/harness/kube-fleet.ts): three real
 * kube-apiservers, isolation between them, the three identities, and an outage of one cluster.
 *
 * Skips when the binaries cannot be built (no Go) — except with CI=true, where it fails.
 */
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import * as k8s from '@kubernetes/client-node';
import {
  kubeFleetForTests,
  kubeFleetSkipReason,
  type Identity,
  type KubeFleet,
  type KubeFleetOptions,
} from '../harness/kube-fleet.js';

const CLUSTERS = ['alpha', 'beta', 'gamma'];
const OPTIONS: KubeFleetOptions = {
  readerRules: [
    { apiGroups: [''], resources: ['services'], verbs: ['list', 'get', 'watch'] },
    { apiGroups: ['discovery.k8s.io'], resources: ['endpointslices'], verbs: ['list', 'get', 'watch'] },
  ],
};

/** One KubeConfig per (identity, cluster): never share a KubeConfig between clusters. */
function core(fleet: KubeFleet, identity: Identity, cluster: string): k8s.CoreV1Api {
  const kc = new k8s.KubeConfig();
  kc.loadFromFile(fleet.kubeconfig(identity));
  kc.setCurrentContext(cluster);
  return kc.makeApiClient(k8s.CoreV1Api);
}

function discovery(fleet: KubeFleet, identity: Identity, cluster: string): k8s.DiscoveryV1Api {
  const kc = new k8s.KubeConfig();
  kc.loadFromFile(fleet.kubeconfig(identity));
  kc.setCurrentContext(cluster);
  return kc.makeApiClient(k8s.DiscoveryV1Api);
}

function service(name: string): k8s.V1Service {
  return {
    apiVersion: 'v1',
    kind: 'Service',
    metadata: { name, labels: { 'test.mirrorc.io/smoke': 'true' } },
    spec: { ports: [{ name: 'http', port: 80, targetPort: 8080 }], selector: { app: name } },
  };
}

/** Resolves to the HTTP status of an ApiException (or rethrows anything else). */
async function httpStatusOf(p: Promise<unknown>): Promise<number> {
  try {
    await p;
  } catch (e) {
    if (e instanceof k8s.ApiException) return e.code;
    throw e;
  }
  assert.fail('expected the request to be rejected');
}

describe('kube-fleet harness (real kube-apiservers)', () => {
  let fleet: KubeFleet | undefined;

  before(async () => {
    // GIVEN three real clusters sharing one etcd, with a reader allowed to list services and endpointslices
    fleet = await kubeFleetForTests(undefined, CLUSTERS, OPTIONS);
  });

  after(async () => {
    await fleet?.stop();
  });

  test('each cluster is isolated: a Service created in alpha exists only in alpha', async (t) => {
    if (!fleet) return t.skip(kubeFleetSkipReason);
    // WHEN admin creates a Service in alpha
    const created = await core(fleet, 'admin', 'alpha').createNamespacedService({ namespace: 'default', body: service('only-in-alpha') });
    // THEN it gets a ClusterIP from the service CIDR 10.96.0.0/16
    assert.match(created.spec?.clusterIP ?? '', /^10\.96\./);
    // AND it is readable in alpha
    const read = await core(fleet, 'admin', 'alpha').readNamespacedService({ name: 'only-in-alpha', namespace: 'default' });
    assert.equal(read.metadata?.uid, created.metadata?.uid);
    // AND it is not visible in beta or gamma
    for (const other of ['beta', 'gamma']) {
      assert.equal(await httpStatusOf(core(fleet, 'admin', other).readNamespacedService({ name: 'only-in-alpha', namespace: 'default' })), 404, other);
      const list = await core(fleet, 'admin', other).listNamespacedService({ namespace: 'default' });
      assert.deepEqual(list.items.map((s) => s.metadata?.name), ['kubernetes'], other);
    }
    // AND the kubectl helper talks to the same cluster
    const out = await fleet.kubectl('alpha', ['get', 'service', 'only-in-alpha', '-n', 'default', '-o', 'jsonpath={.metadata.uid}']);
    assert.equal(out, created.metadata?.uid);
  });

  test('reader can list services and endpointslices but not namespaces', async (t) => {
    if (!fleet) return t.skip(kubeFleetSkipReason);
    for (const name of CLUSTERS) {
      // WHEN the reader lists services in all namespaces
      const services = await core(fleet, 'reader', name).listServiceForAllNamespaces();
      // THEN it sees at least the default/kubernetes Service
      assert.ok(services.items.some((s) => s.metadata?.namespace === 'default' && s.metadata.name === 'kubernetes'), name);
      // AND it may list endpointslices
      await discovery(fleet, 'reader', name).listEndpointSliceForAllNamespaces();
      // BUT listing namespaces is forbidden
      assert.equal(await httpStatusOf(core(fleet, 'reader', name).listNamespace()), 403, name);
    }
  });

  test('nobody is authenticated but may not list services', async (t) => {
    if (!fleet) return t.skip(kubeFleetSkipReason);
    for (const name of CLUSTERS) {
      // WHEN the identity without bindings lists services
      // THEN the API server answers 403 (authenticated, not authorised — not 401)
      assert.equal(await httpStatusOf(core(fleet, 'nobody', name).listNamespacedService({ namespace: 'default' })), 403, name);
    }
  });

  test('one cluster can go down and come back with its data', async (t) => {
    if (!fleet) return t.skip(kubeFleetSkipReason);
    const beta = fleet.clusters.beta!;
    // GIVEN a Service stored in beta
    const created = await core(fleet, 'admin', 'beta').createNamespacedService({ namespace: 'default', body: service('survives-outage') });
    const portBefore = beta.server;

    for (let round = 1; round <= 2; round++) {
      // WHEN beta's apiserver is stopped
      await beta.stop();
      await beta.stop(); // idempotent
      assert.equal(beta.running, false);
      // THEN requests to beta fail with a connection error (no HTTP status)
      await assert.rejects(
        core(fleet, 'reader', 'beta').listNamespacedService({ namespace: 'default' }),
        (e: unknown) => {
          assert.ok(!(e instanceof k8s.ApiException), `expected a connection error, got HTTP ${(e as k8s.ApiException<unknown>).code}`);
          assert.match(String((e as { code?: string }).code ?? (e as Error).message), /ECONNREFUSED/);
          return true;
        },
        `round ${round}`,
      );
      // AND alpha still serves
      await core(fleet, 'reader', 'alpha').listNamespacedService({ namespace: 'default' });

      // WHEN beta is started again
      await beta.start();
      // THEN it serves on the same address, with its data intact
      assert.equal(beta.server, portBefore);
      const read = await core(fleet, 'reader', 'beta').readNamespacedService({ name: 'survives-outage', namespace: 'default' });
      assert.equal(read.metadata?.uid, created.metadata?.uid, `round ${round}`);
    }
  });
});
