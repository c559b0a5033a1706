/**
 * Pins the two Linkerd models of test/harness to what Linkerd's code decides (linkerd/linkerd2 at
 * b24cd40): the destination's EndpointSlice bookkeeping (linkerd-destination-model.ts, cases a–g)
 * and the service-mirror controller's writes at restart (linkerd-service-mirror-model.ts, h–j).
 * Each case cites the function that decides it.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { ENDPOINTSLICE_MANAGED_BY_LABEL, HEADLESS_SERVICE_LABEL, SERVICE_NAME_LABEL } from '../../src/contract/kubernetes.js';
import {
  EXPORTED_LABEL, HEADLESS_MIRROR_SVC_NAME_LABEL, MIRRORED_RESOURCE_LABEL, REMOTE_CLUSTER_NAME_LABEL,
  REMOTE_GATEWAY_IDENTITY_ANNOTATION, REMOTE_RESOURCE_VERSION_ANNOTATION, REMOTE_SVC_FQ_NAME_ANNOTATION,
} from '../../src/contract/linkerd.js';
import { MANAGED_LABEL } from '../../src/contract/mirrorc.js';
import { DestinationModel, type EndpointSliceObject, type ServiceObject } from '../harness/linkerd-destination-model.js';
import {
  applyWrites, exportedServiceUpdate, headlessEndpointsUpdate, repairEndpoints,
  type EndpointsJson, type MirrorWorld, type ServiceJson,
} from '../harness/linkerd-service-mirror-model.js';

const NS = 'shop';
const IDENTITY = 'linkerd-gateway.linkerd-multicluster.serviceaccount.identity.linkerd.cluster.local';
const GATEWAY_IP = '172.18.0.9';

// ---- destination model ----

const webService: ServiceObject = { metadata: { namespace: NS, name: 'web-paris' }, spec: { ports: [{ name: 'http', port: 80 }] } };

interface SliceEndpoint { ip: string; ready?: boolean; hostname?: string }
/** A mirror's slice: no targetRef, the mirror annotations, one port `http` on the gateway port. */
function slice(name: string, service: string, endpoints: SliceEndpoint[], ports = [{ name: 'http', port: 4143 }]): EndpointSliceObject {
  return {
    metadata: {
      namespace: NS, name,
      labels: { [SERVICE_NAME_LABEL]: service, [ENDPOINTSLICE_MANAGED_BY_LABEL]: 'endpointslicemirroring-controller.k8s.io' },
      annotations: { [REMOTE_GATEWAY_IDENTITY_ANNOTATION]: IDENTITY, [REMOTE_SVC_FQ_NAME_ANNOTATION]: 'web.shop.svc.cluster.local' },
    },
    addressType: 'IPv4',
    endpoints: endpoints.map((e) => ({
      addresses: [e.ip],
      ...(e.ready === undefined ? {} : { conditions: { ready: e.ready } }),
      ...(e.hostname === undefined ? {} : { hostname: e.hostname }),
    })),
    ports,
  };
}

const gatewayAddress = { ip: GATEWAY_IP, port: 4143, identity: IDENTITY, authorityOverride: 'web.shop.svc.cluster.local:80' };

function subscribed(): DestinationModel {
  const d = new DestinationModel();
  d.service(webService);
  d.subscribe(NS, 'web-paris', 80);
  return d;
}

describe('Linkerd destination model (controller/api/destination/watcher @ b24cd40)', () => {
  test('(a) two slices list the same targetRef-less address; deleting one empties the set (PP deleteEndpointSlice)', () => {
    const d = subscribed();
    d.apply({ type: 'ADDED', obj: slice('web-paris-k8s', 'web-paris', [{ ip: GATEWAY_IP }]) });
    d.apply({ type: 'ADDED', obj: slice('web-paris-mirrorc', 'web-paris', [{ ip: GATEWAY_IP }]) });
    assert.deepEqual(d.addresses(NS, 'web-paris', 80), [gatewayAddress]);
    // Both slices give the ID web-paris-172.18.0.9-4143 (PP newServiceRefAddress): one delete removes it.
    d.apply({ type: 'DELETED', obj: slice('web-paris-k8s', 'web-paris', [{ ip: GATEWAY_IP }]) });
    assert.deepEqual(d.addresses(NS, 'web-paris', 80), []);
  });

  test('(b) the informer resync re-adds it (EW updateEndpointSlice(old=new) → PP updateEndpointSlice)', () => {
    const d = subscribed();
    d.apply({ type: 'ADDED', obj: slice('web-paris-k8s', 'web-paris', [{ ip: GATEWAY_IP }]) });
    d.apply({ type: 'ADDED', obj: slice('web-paris-mirrorc', 'web-paris', [{ ip: GATEWAY_IP }]) });
    d.apply({ type: 'DELETED', obj: slice('web-paris-k8s', 'web-paris', [{ ip: GATEWAY_IP }]) });
    d.resync();
    assert.deepEqual(d.addresses(NS, 'web-paris', 80), [gatewayAddress]);
  });

  test('(c) a slice relabelled to another Service: the update goes to the new label\'s publisher only (EW updateEndpointSlice, getServicePublisher)', () => {
    const d = subscribed();
    d.apply({ type: 'ADDED', obj: slice('s1', 'web-paris', [{ ip: GATEWAY_IP }]) });
    const moved = slice('s1', 'other-paris', [{ ip: '172.18.0.10' }]);
    d.apply({ type: 'MODIFIED', obj: moved });
    // No publisher for other-paris (no add created one, nobody subscribed): web-paris keeps the old
    // ID and does not see the new address.
    assert.deepEqual(d.addresses(NS, 'web-paris', 80), [gatewayAddress]);
    d.apply({ type: 'DELETED', obj: moved }); // dispatched to other-paris as well
    assert.deepEqual(d.addresses(NS, 'web-paris', 80), [gatewayAddress]);
    d.resync(); // update(s, s) → other-paris again
    assert.deepEqual(d.addresses(NS, 'web-paris', 80), [gatewayAddress]);
  });

  test('(c) with a publisher for the new label: it gets the address, the old service still keeps its own', () => {
    const d = subscribed();
    d.subscribe(NS, 'other-paris', 80);
    d.apply({ type: 'ADDED', obj: slice('s1', 'web-paris', [{ ip: GATEWAY_IP }]) });
    d.apply({ type: 'MODIFIED', obj: slice('s1', 'other-paris', [{ ip: GATEWAY_IP }]) });
    assert.deepEqual(d.addresses(NS, 'other-paris', 80), [{ ...gatewayAddress, port: 80 }]); // no Service: target port = 80
    assert.deepEqual(d.addresses(NS, 'web-paris', 80), [gatewayAddress]);
  });

  test('(d) not-ready endpoints are neither added nor removed by a delete (PP endpointSliceToAddresses skips ready=false)', () => {
    const d = subscribed();
    const notReady = slice('s-not-ready', 'web-paris', [{ ip: GATEWAY_IP, ready: false }]);
    d.apply({ type: 'ADDED', obj: notReady });
    assert.deepEqual(d.addresses(NS, 'web-paris', 80), []);
    d.apply({ type: 'ADDED', obj: slice('s-ready', 'web-paris', [{ ip: GATEWAY_IP }]) }); // no `ready`: counts as ready
    d.apply({ type: 'DELETED', obj: notReady });
    assert.deepEqual(d.addresses(NS, 'web-paris', 80), [gatewayAddress]);
  });

  test('(e) the hostname is part of the ID: deleting the hostless slice keeps the named address (PP newServiceRefAddress)', () => {
    const d = subscribed();
    d.apply({ type: 'ADDED', obj: slice('named', 'web-paris', [{ ip: GATEWAY_IP, hostname: 'web-0' }]) });
    d.apply({ type: 'ADDED', obj: slice('plain', 'web-paris', [{ ip: GATEWAY_IP }]) });
    assert.deepEqual(d.addresses(NS, 'web-paris', 80), [gatewayAddress, { ...gatewayAddress, hostname: 'web-0' }]);
    d.apply({ type: 'DELETED', obj: slice('plain', 'web-paris', [{ ip: GATEWAY_IP }]) });
    assert.deepEqual(d.addresses(NS, 'web-paris', 80), [{ ...gatewayAddress, hostname: 'web-0' }]);
    assert.deepEqual(d.addresses(NS, 'web-paris', 80, { hostname: 'web-1' }), []); // FLG filterAddresses
  });

  test('(e2) IDs are one Go type (watcher/k8s.go ID): an ExternalWorkload endpoint named like a ServiceID removes that address on update (PP endpointSliceToIDs)', () => {
    const d = subscribed();
    d.apply({ type: 'ADDED', obj: slice('web-paris-k8s', 'web-paris', [{ ip: GATEWAY_IP }]) });
    const other = slice('web-paris-ew', 'web-paris', []);
    const withWorkload: EndpointSliceObject = { ...other, endpoints: [{ addresses: ['10.0.0.7'], targetRef: { kind: 'ExternalWorkload', name: `web-paris-${GATEWAY_IP}-4143`, namespace: NS } }] };
    d.apply({ type: 'ADDED', obj: withWorkload });
    assert.deepEqual(d.addresses(NS, 'web-paris', 80), [gatewayAddress]);
    d.apply({ type: 'MODIFIED', obj: other }); // deletes the old version's IDs: ExternalWorkloadID{shop, web-paris-<ip>-4143} = the ServiceID
    assert.deepEqual(d.addresses(NS, 'web-paris', 80), []);
  });

  test('(f) a named target port picks the slice port by the service port\'s name (EW getTargetPort, PP resolveESTargetPort)', () => {
    const d = new DestinationModel();
    d.service({ metadata: { namespace: NS, name: 'web-paris' }, spec: { ports: [{ name: 'http', port: 80 }, { name: 'admin', port: 9990 }] } });
    d.subscribe(NS, 'web-paris', 80);
    d.subscribe(NS, 'web-paris', 7000); // no service port 7000: the number itself
    d.apply({ type: 'ADDED', obj: slice('s1', 'web-paris', [{ ip: GATEWAY_IP }], [{ name: 'admin', port: 4191 }, { name: 'http', port: 4143 }]) });
    assert.deepEqual(d.addresses(NS, 'web-paris', 80).map((a) => a.port), [4143]);
    assert.deepEqual(d.addresses(NS, 'web-paris', 7000).map((a) => a.port), [7000]);
    // The service port renamed: SP updateService → PP updatePort re-lists; no slice port `web` → nothing.
    d.service({ metadata: { namespace: NS, name: 'web-paris' }, spec: { ports: [{ name: 'web', port: 80 }] } });
    assert.deepEqual(d.addresses(NS, 'web-paris', 80), []);
  });

  test('(g) a subscribe after the events lists the informer\'s current slices (SP newPortPublisher)', () => {
    const d = new DestinationModel();
    d.service(webService);
    d.apply({ type: 'ADDED', obj: slice('web-paris-k8s', 'web-paris', [{ ip: GATEWAY_IP }]) });
    d.apply({ type: 'ADDED', obj: slice('web-paris-mirrorc', 'web-paris', [{ ip: GATEWAY_IP }]) });
    d.apply({ type: 'DELETED', obj: slice('web-paris-k8s', 'web-paris', [{ ip: GATEWAY_IP }]) });
    d.subscribe(NS, 'web-paris', 80); // a destination started, or a first client, during the gap of (a)
    assert.deepEqual(d.addresses(NS, 'web-paris', 80), [gatewayAddress]);
  });
});

// ---- service-mirror model ----

const EXPORTED = { [EXPORTED_LABEL]: 'true' };
const mirrorLabels = { [MIRRORED_RESOURCE_LABEL]: 'true', [REMOTE_CLUSTER_NAME_LABEL]: 'paris' };
const meta = (name: string, extra: object = {}) => ({ namespace: NS, name, ...extra });

/** Target paris: `web` (ClusterIP, no ready endpoints) and the StatefulSet's headless `db` (pod db-0). */
const target = {
  services: [
    { metadata: meta('web', { labels: EXPORTED, resourceVersion: '100' }), spec: { clusterIP: '10.0.0.10', ports: [{ name: 'http', port: 80, targetPort: 8080 }] } },
    { metadata: meta('db', { labels: EXPORTED, resourceVersion: '200' }), spec: { clusterIP: 'None', ports: [{ name: 'pg', port: 5432, targetPort: 5432 }] } },
  ] satisfies ServiceJson[],
  endpoints: [
    { metadata: meta('web', { labels: EXPORTED }), subsets: [{ notReadyAddresses: [{ ip: '10.1.0.4' }], ports: [{ name: 'http', port: 8080 }] }] },
    {
      metadata: meta('db', { labels: { ...EXPORTED, [HEADLESS_SERVICE_LABEL]: '' }, resourceVersion: '201' }),
      subsets: [{ addresses: [{ ip: '10.1.0.5', hostname: 'db-0', targetRef: { kind: 'Pod', name: 'db-0', namespace: NS } }], ports: [{ name: 'pg', port: 5432 }] }],
    },
  ] satisfies EndpointsJson[],
};

/** Source london after the takeover: mirrors marked with stale remote versions, per-pod mirrors managed by mirrorc. */
const source = {
  services: [
    { metadata: meta('web-paris', { labels: { ...mirrorLabels, [MANAGED_LABEL]: 'true' }, annotations: { [REMOTE_RESOURCE_VERSION_ANNOTATION]: '99' } }), spec: { clusterIP: '10.96.0.10', ports: [{ name: 'http', port: 80, targetPort: 8080 }] } },
    { metadata: meta('db-paris', { labels: { ...mirrorLabels, [MANAGED_LABEL]: 'true' }, annotations: { [REMOTE_RESOURCE_VERSION_ANNOTATION]: '199' } }), spec: { clusterIP: 'None', ports: [{ name: 'pg', port: 5432, targetPort: 5432 }] } },
    { metadata: meta('db-0-paris', { labels: { ...mirrorLabels, [MANAGED_LABEL]: 'true', [HEADLESS_MIRROR_SVC_NAME_LABEL]: 'db-paris' } }), spec: { clusterIP: '10.96.0.11', ports: [{ name: 'pg', port: 5432, targetPort: 5432 }] } },
    { metadata: meta('db-1-paris', { labels: { ...mirrorLabels, [HEADLESS_MIRROR_SVC_NAME_LABEL]: 'db-paris' } }), spec: { clusterIP: '10.96.0.12', ports: [{ name: 'pg', port: 5432, targetPort: 5432 }] } },
  ] satisfies ServiceJson[],
  endpoints: [
    { metadata: meta('web-paris', { labels: mirrorLabels }), subsets: [{ addresses: [{ ip: GATEWAY_IP }], ports: [{ name: 'http', port: 4143 }] }] },
    { metadata: meta('db-paris', { labels: mirrorLabels }), subsets: [{ addresses: [{ ip: '10.96.0.11', hostname: 'db-0' }], ports: [{ name: 'pg', port: 5432 }] }] },
    { metadata: meta('db-0-paris', { labels: mirrorLabels }), subsets: [{ addresses: [{ ip: GATEWAY_IP }], ports: [{ name: 'pg', port: 4143 }] }] },
  ] satisfies EndpointsJson[],
};

const world: MirrorWorld = {
  link: { targetClusterName: 'paris', gatewayAddresses: [GATEWAY_IP], gatewayPort: 4143, gatewayIdentity: IDENTITY },
  target, source,
};
const summary = (writes: { verb: string; kind: string; obj: { metadata: { name: string } } }[]) => writes.map((w) => `${w.verb} ${w.kind} ${w.obj.metadata.name}`);

describe('Linkerd service-mirror model (multicluster/service-mirror @ b24cd40)', () => {
  test('(h) a headless root marked with a stale remote-resource-version gets the gateway in its Endpoints (CW handleRemoteExportedServiceUpdated)', () => {
    const db = target.services[1]!;
    const writes = exportedServiceUpdate(world, db);
    assert.deepEqual(summary(writes), ['update Endpoints db-paris', 'update Service db-paris']);
    const ep = writes[0]!.obj as EndpointsJson;
    assert.deepEqual(ep.subsets, [{ addresses: [{ ip: GATEWAY_IP }], ports: [{ name: 'pg', port: 4143 }] }]);
    assert.deepEqual(ep.metadata.labels, mirrorLabels); // DeepCopy keeps them
    // The Service's labels are recomputed from the remote: mirrorc's label is gone.
    assert.equal((writes[1]!.obj as ServiceJson).metadata.labels?.[MANAGED_LABEL], undefined);
    // Repair skips headless roots (CW repairEndpoints), so nothing here undoes it.
    const after = { ...world, source: applyWrites(source, writes) };
    assert.ok(!summary(repairEndpoints(after)).includes('update Endpoints db-paris'));
    // Only a present and different annotation queues the update (CW createOrUpdateService).
    const current = { ...db, metadata: { ...db.metadata, resourceVersion: '199' } };
    assert.deepEqual(exportedServiceUpdate(world, current), []);
    const unmarked = { ...world, source: { ...source, services: source.services.map((s) => (s.metadata.name === 'db-paris' ? { ...s, metadata: { ...s.metadata, annotations: {} } } : s)) } };
    assert.deepEqual(exportedServiceUpdate(unmarked, db), []);
  });

  test('(i) repairEndpoints skips headless roots, empties a mirror whose target has no ready endpoint, fills per-pod mirrors', () => {
    const writes = repairEndpoints(world);
    assert.deepEqual(summary(writes), ['update Endpoints db-0-paris', 'update Endpoints web-paris']); // db-1-paris: no Endpoints
    const byName = new Map(writes.map((w) => [w.obj.metadata.name, w.obj as EndpointsJson]));
    assert.equal(byName.get('web-paris')!.subsets, undefined);
    // Per-pod mirrors: no emptiness check (the target has no Endpoints named db-0).
    assert.deepEqual(byName.get('db-0-paris')!.subsets, [{ addresses: [{ ip: GATEWAY_IP }], ports: [{ name: 'pg', port: 4143 }] }]);
    assert.equal(byName.get('db-0-paris')!.metadata.annotations?.[REMOTE_GATEWAY_IDENTITY_ANNOTATION], IDENTITY);
    // Gateway not alive: CW updateReadiness moves the addresses to notReadyAddresses.
    const dead = repairEndpoints({ ...world, gatewayAlive: false });
    assert.deepEqual((dead[0]!.obj as EndpointsJson).subsets, [{ notReadyAddresses: [{ ip: GATEWAY_IP }], ports: [{ name: 'pg', port: 4143 }] }]);
  });

  test('(j) createOrUpdateHeadlessEndpoints reads per-pod ClusterIPs and never relabels them; deletes the root\'s per-pod Services not in the set (CWH)', () => {
    const writes = headlessEndpointsUpdate(world, target.endpoints[1]!);
    assert.deepEqual(summary(writes), ['delete Service db-1-paris', 'update Endpoints db-paris']);
    assert.deepEqual((writes[1]!.obj as EndpointsJson).subsets, [{ addresses: [{ hostname: 'db-0', ip: '10.96.0.11' }], ports: [{ name: 'pg', port: 5432 }] }]);
    // db-0-paris keeps mirrorc's label: the controller never writes it.
    assert.ok(!writes.some((w) => w.kind === 'Service' && w.obj.metadata.name === 'db-0-paris'));
    // A missing per-pod Service is created, with the ClusterIP the API server assigns.
    const missing = { ...world, source: { ...source, services: source.services.filter((s) => s.metadata.name !== 'db-0-paris') }, allocateClusterIP: () => '10.96.0.99' };
    const created = headlessEndpointsUpdate(missing, target.endpoints[1]!);
    assert.deepEqual(summary(created), ['create Service db-0-paris', 'create Endpoints db-0-paris', 'delete Service db-1-paris', 'update Endpoints db-paris']);
    assert.equal((created[0]!.obj as ServiceJson).metadata.labels?.[HEADLESS_MIRROR_SVC_NAME_LABEL], 'db-paris');
  });
});
