/**
 * The observation boundary (src/observe/observed-checks.ts, observe-target.ts, observe-source.ts):
 * what a broken or hostile apiserver returns is checked with the lock's own schemas; one bad object
 * is skipped with a warning naming it, the rest is kept.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type * as k8s from '@kubernetes/client-node';
import type { ClusterClient } from '../../src/observe/cluster-client.js';
import { fleetSnapshotSchema, schemaProblems } from '../../src/observe/lock-schema.js';
import { observeSource } from '../../src/observe/observe-source.js';
import { observeTarget } from '../../src/observe/observe-target.js';
import { SNAPSHOT_FORMAT } from '../../src/snapshot/snapshot.js';

const EXPORTED = { 'mirror.linkerd.io/exported': 'true' };

function svc(namespace: string, name: string, overrides: { labels?: Record<string, string>; annotations?: Record<string, string>; ports?: k8s.V1ServicePort[]; clusterIP?: string } = {}): k8s.V1Service {
  return {
    metadata: { namespace, name, labels: overrides.labels ?? EXPORTED, annotations: overrides.annotations ?? {} },
    spec: { type: 'ClusterIP', clusterIP: overrides.clusterIP ?? '10.0.0.1', ports: overrides.ports ?? [{ name: 'http', protocol: 'TCP', port: 80 }] },
  };
}

const GATEWAY: k8s.V1Service = {
  metadata: { namespace: 'linkerd-multicluster', name: 'linkerd-gateway', annotations: { 'mirror.linkerd.io/gateway-identity': 'gw.example' } },
  spec: { type: 'LoadBalancer', ports: [{ name: 'mc-gateway', port: 4143 }] },
  status: { loadBalancer: { ingress: [{ ip: '203.0.113.7' }] } },
};

/** A client that answers like an apiserver that returns `services` (and the gateway, and `namespaces`). */
function fakeClient(services: k8s.V1Service[], namespaces: string[] = ['default'], slices: k8s.V1EndpointSlice[] = []): ClusterClient {
  return {
    cluster: 'paris',
    listServices: async () => services,
    readService: async (namespace: string, name: string) => [...services, GATEWAY].find((s) => s.metadata?.namespace === namespace && s.metadata?.name === name),
    listNamespaces: async () => namespaces.map((name) => ({ metadata: { name } })),
    listEndpointSlices: async () => slices,
  } as unknown as ClusterClient;
}

const LINK = { source: 'london', target: 'paris', selector: { matchLabels: EXPORTED }, remoteDiscoverySelector: { matchLabels: { 'mirror.linkerd.io/exported': 'remote-discovery' } }, federatedServiceSelector: { matchLabels: { 'mirror.linkerd.io/federated': 'member' } } } as any;
const GATEWAY_SPEC = { namespace: 'linkerd-multicluster', name: 'linkerd-gateway' };

describe('observation boundary', () => {
  test('GIVEN a target apiserver returning hostile Services among good ones WHEN observed THEN each bad one is skipped with a warning naming it and the good ones are kept', async () => {
    const hostile = [
      svc('../../x', 'web'),
      svc('default', 'web\nevil'),
      svc('default', 'badport', { ports: [{ name: 'http', protocol: 'TCP', port: 70000 }] }),
      svc('default', 'badlabel', { labels: { ...EXPORTED, 'bad key': 'v' } }),
      svc('default', 'badproto', { ports: [{ name: 'http', protocol: 'HTTP', port: 80 }] }),
    ];
    const good = svc('default', 'good');
    // WHEN observed
    const { snapshot, skipped } = await observeTarget(fakeClient([...hostile, good]), GATEWAY_SPEC, [LINK], []);
    // THEN only the good one is kept, and the lock built from it reads back
    assert.deepEqual(snapshot.services.map((s) => `${s.namespace}/${s.name}`), ['default/good']);
    assert.deepEqual(schemaProblems(fleetSnapshotSchema, { format: SNAPSHOT_FORMAT, targets: { paris: snapshot }, sources: {} }), []);
    // AND each bad one has its own warning naming the cluster, the Service and what is wrong
    assert.equal(skipped?.length, hostile.length, skipped?.join('\n'));
    assert.ok(skipped!.some((w) => w.includes('cluster "paris": Service "../../x"/"web" is skipped') && w.includes('is not a valid namespace name')), skipped!.join('\n'));
    assert.ok(skipped!.some((w) => w.includes('"web\\nevil"') && w.includes('is not a valid Service name')));
    assert.ok(skipped!.some((w) => w.includes('"badport"') && w.includes('70000 is not a port number')));
    assert.ok(skipped!.some((w) => w.includes('"badlabel"') && w.includes('is not a valid label key')));
    assert.ok(skipped!.every((w) => !w.includes('\n')), 'a warning is one line: names are escaped');
  });

  test('GIVEN a headless Service whose endpoints carry a hostile hostname WHEN observed THEN that Service is skipped', async () => {
    const headless = svc('data', 'kafka', { clusterIP: 'None' });
    const slices: k8s.V1EndpointSlice[] = [{ addressType: 'IPv4', endpoints: [{ addresses: ['10.1.0.1'], hostname: '../../etc' }], ports: [{ name: 'broker', port: 9092, protocol: 'TCP' }] }];
    const { snapshot, skipped } = await observeTarget(fakeClient([headless], ['data'], slices), GATEWAY_SPEC, [LINK], []);
    assert.deepEqual(snapshot.services, []);
    assert.ok(skipped!.some((w) => w.includes('"data"/"kafka"') && w.includes('is not a valid pod hostname')), skipped!.join('\n'));
  });

  test('GIVEN a source apiserver returning a hostile namespace and Services WHEN observed THEN they are left out with warnings, the rest is kept', async () => {
    const warnings: string[] = [];
    const client = fakeClient([svc('default', 'x-paris', { labels: {} }), svc('default', 'Bad-paris', { labels: {} })], ['default', '../../etc', 'ok']);
    const source = await observeSource(client, { targetNames: ['paris'], localFederatedSelector: { matchLabels: { 'mirror.linkerd.io/federated': 'member' } }, onSkipped: (w) => warnings.push(w) });
    assert.deepEqual(source.namespaces, ['default', 'ok']);
    assert.deepEqual(source.foreignServices, [{ namespace: 'default', name: 'x-paris' }]);
    assert.ok(warnings.some((w) => w.includes('"../../etc" is not a valid namespace name')), warnings.join('\n'));
    assert.ok(warnings.some((w) => w.includes('"Bad-paris"')), warnings.join('\n'));
  });
});
