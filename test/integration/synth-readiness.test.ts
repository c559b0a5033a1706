/**
 * Readiness parity with Linkerd (issue 11) end to end, against real kube-apiservers: paris's
 * services' EndpointSlices (written by hand: the harness runs no controller-manager) drive empty
 * mirrors; a local HTTP server on 127.0.0.1 plays paris's gateway probe endpoint; not-ready
 * StatefulSet pods are followed by berlin's link and not by london's. Every form is server-side
 * applied to its source and must read back without drift.
 */
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { ExitCode } from '../../src/errors/exit-codes.js';
import type { FleetDefinition } from '../../src/load/load-fleet.js';
import { Cluster, Link } from '../../src/model/index.js';
import { observationRules } from '../../src/observe/observation-rbac.js';
import { kubeFleetForTests, type KubeFleet } from '../harness/kube-fleet.js';
import { applyService, applySlice, applyStatefulService, applyWithoutDrift, ensureNamespace, installGateway, Workspace } from './support.js';

const EXPORTED = { 'mirror.linkerd.io/exported': 'true' };
const PINNED_RANGE = '10.96.0.0/24';

/** A stand-in for the gateway's probe endpoint: answers `status` on /ready. */
class ProbeEndpoint {
  public status = 200;
  public readonly requests: string[] = [];
  private readonly server: Server = createServer((req, res) => {
    this.requests.push(req.url ?? '');
    res.statusCode = req.url === '/ready' ? this.status : 404;
    res.end();
  });

  public async start(): Promise<string> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    return `127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  public stop(): Promise<void> {
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}


/** Marks pod `index` of a StatefulSet slice (written by applyStatefulService) ready or not. */
async function setPodReady(fleet: KubeFleet, cluster: string, namespace: string, name: string, index: number, ready: boolean): Promise<void> {
  await fleet.kubectl(cluster, ['patch', 'endpointslice', `${name}-abcde`, '-n', namespace, '--type=json', '-p',
    JSON.stringify([{ op: 'replace', path: `/endpoints/${index}/conditions/ready`, value: ready }])]);
}

describe('readiness parity with Linkerd against real API servers', () => {
  let fleet: KubeFleet | undefined;
  const probe = new ProbeEndpoint();
  let probeAddress = '';
  let closedAddress = '';

  before(async (t) => {
    probeAddress = await probe.start();
    // A port nothing listens on: taken, then released.
    const closed = new ProbeEndpoint();
    closedAddress = await closed.start();
    await closed.stop();
    fleet = await kubeFleetForTests(t as never, ['london', 'berlin', 'paris', 'rome'], { readerRules: observationRules({ source: true, target: true }) });
    if (!fleet) return;
    await installGateway(fleet, 'paris', '203.0.113.10');
    await installGateway(fleet, 'rome', '198.51.100.30');
    for (const cluster of ['paris', 'rome']) {
      await fleet.kubectl(cluster, ['annotate', '--overwrite', 'service', 'linkerd-gateway', '-n', 'linkerd-multicluster', 'mirror.linkerd.io/probe-path=/ready', 'mirror.linkerd.io/probe-period=1']);
    }
    for (const source of ['london', 'berlin']) for (const ns of ['ready', 'flap', 'probe', 'data']) await ensureNamespace(fleet, source, ns);
  });

  after(async () => {
    await fleet?.stop();
    await probe.stop();
  });

  /** london (default options) and berlin (following pod readiness) mirror paris; london also mirrors rome. */
  const defineFleet: FleetDefinition = (f) => {
    const london = new Cluster(f, 'london', { pinnedServiceIPRange: PINNED_RANGE });
    const berlin = new Cluster(f, 'berlin', { pinnedServiceIPRange: PINNED_RANGE });
    const paris = new Cluster(f, 'paris', { gateway: { probe: { mode: 'not-ready', address: probeAddress } } });
    const rome = new Cluster(f, 'rome', { gateway: { probe: { address: closedAddress } } });
    new Link(f, 'london-from-paris', { source: london, target: paris, globalServices: true });
    new Link(f, 'london-from-rome', { source: london, target: rome });
    new Link(f, 'berlin-from-paris', { source: berlin, target: paris, globalServices: true, followPodReadiness: true });
  };
  const workspace = (): Workspace => new Workspace(defineFleet, fleet!.kubeconfig('reader'));
  const read = async (ws: Workspace, path: string): Promise<any> => (await import('yaml')).parse(ws.files().get(path) ?? 'null');

  test('a service scaled to zero ready endpoints gets empty mirror endpoints, and its gateway back once one is ready', async (t) => {
    if (!fleet) return t.skip('no kube-apiserver');
    const ws = workspace();
    try {
      // GIVEN cart exported from paris with one ready endpoint
      await applyService(fleet, 'paris', 'ready', 'cart', { app: 'cart', ...EXPORTED });
      await applySlice(fleet, 'paris', 'ready', 'cart', [true]);
      const first = await ws.synth();
      assert.equal(first.exitCode, ExitCode.OK, ws.logs.join('\n'));
      assert.deepEqual((await read(ws, 'london/ready/endpoints-cart-paris.yaml')).subsets[0].addresses, [{ ip: '203.0.113.10' }]);
      // WHEN it is scaled to zero (the endpoint controller keeps an empty placeholder slice)
      await applySlice(fleet, 'paris', 'ready', 'cart', []);
      const empty = await ws.synth();
      // THEN the mirror Service stays, its Endpoints have no subsets and its slice no endpoints
      assert.equal(empty.exitCode, ExitCode.OK, ws.logs.join('\n'));
      assert.ok(ws.files().has('london/ready/service-cart-paris.yaml'));
      assert.equal((await read(ws, 'london/ready/endpoints-cart-paris.yaml')).subsets, undefined);
      assert.deepEqual((await read(ws, 'london/ready/endpointslice-cart-paris-ipv4.yaml')).endpoints, []);
      assert.equal(JSON.parse(ws.files().get('LOCK')!).observed.targets.paris.services.find((s: any) => s.name === 'cart').hasReadyEndpoints, false);
      // AND reading every EndpointSlice of paris in one list (what a target with many services gets) gives the same files
      const perService = ws.files();
      const oneList = await ws.synth({ perServiceSliceLists: 0 });
      assert.equal(oneList.exitCode, ExitCode.OK, ws.logs.join('\n'));
      assert.deepEqual(ws.files(), perService);
      // AND the empty form is accepted by the source apiserver without drift
      await applyWithoutDrift(fleet, ws, 'london');
      // WHEN one endpoint is not ready yet, then ready
      await applySlice(fleet, 'paris', 'ready', 'cart', [false]);
      await ws.synth();
      assert.equal((await read(ws, 'london/ready/endpoints-cart-paris.yaml')).subsets, undefined);
      await applySlice(fleet, 'paris', 'ready', 'cart', [false, true]);
      await ws.synth();
      // THEN the gateway address is back, and the lock no longer carries the field
      assert.deepEqual((await read(ws, 'london/ready/endpoints-cart-paris.yaml')).subsets[0].addresses, [{ ip: '203.0.113.10' }]);
      assert.equal('hasReadyEndpoints' in JSON.parse(ws.files().get('LOCK')!).observed.targets.paris.services.find((s: any) => s.name === 'cart'), false);
      await applyWithoutDrift(fleet, ws, 'london');
    } finally {
      ws.remove();
    }
  });

  test('flapping readiness of one of many endpoints changes nothing in dist/ or the lock', async (t) => {
    if (!fleet) return t.skip('no kube-apiserver');
    const ws = workspace();
    try {
      // GIVEN web with three ready endpoints
      await applyService(fleet, 'paris', 'flap', 'web', { app: 'web', ...EXPORTED });
      await applySlice(fleet, 'paris', 'flap', 'web', [true, true, true]);
      assert.equal((await ws.synth()).exitCode, ExitCode.OK, ws.logs.join('\n'));
      const before = ws.files();
      // WHEN one endpoint goes not ready, comes back, and another goes not ready
      for (const states of [[true, false, true], [true, true, true], [false, true, true]]) {
        await applySlice(fleet, 'paris', 'flap', 'web', states);
        const run = await ws.synth();
        // THEN every run reports no change and every file is byte-identical
        assert.deepEqual(run.changes, [], JSON.stringify(states));
        assert.deepEqual(ws.files(), before, JSON.stringify(states));
      }
    } finally {
      ws.remove();
    }
  });

  test('gateway probe: under not-ready a failing probe writes paris\'s mirrors not ready and a passing one ready again; under warn an unreachable probe only warns', async (t) => {
    if (!fleet) return t.skip('no kube-apiserver');
    const ws = workspace();
    try {
      // GIVEN api exported from paris (probe mode not-ready) and from rome (probe mode warn, probe address closed)
      for (const cluster of ['paris', 'rome']) {
        await applyService(fleet, cluster, 'probe', 'api', { app: 'api', ...EXPORTED });
        await applySlice(fleet, cluster, 'probe', 'api', [true]);
      }
      // WHEN the probe endpoint answers 200
      probe.status = 200;
      const alive = await ws.synth();
      // THEN paris's mirror is ready and synth probed /ready at the given address
      assert.equal(alive.exitCode, ExitCode.OK, ws.logs.join('\n'));
      assert.ok(probe.requests.includes('/ready'));
      assert.deepEqual((await read(ws, 'london/probe/endpointslice-api-paris-ipv4.yaml')).endpoints, [{ addresses: ['203.0.113.10'], conditions: { ready: true } }]);
      // AND rome, whose probe gets no answer, only warns, naming what to do, and its mirror stays ready
      assert.ok(ws.logs.some((l) => /cluster "rome".*failed its probe 3 times.*stay ready.*no probe got an HTTP answer.*gateway\.probe\.address/.test(l)), ws.logs.join('\n'));
      assert.deepEqual((await read(ws, 'london/probe/endpointslice-api-rome-ipv4.yaml')).endpoints, [{ addresses: ['198.51.100.30'], conditions: { ready: true } }]);

      // WHEN the probe endpoint answers 503
      probe.status = 503;
      const dead = await ws.synth();
      // THEN paris's mirrors (london's and berlin's) list the gateway as not ready, with a warning
      assert.equal(dead.exitCode, ExitCode.OK, ws.logs.join('\n'));
      assert.ok(ws.logs.some((l) => /cluster "paris".*failed its probe 3 times.*HTTP 503.*NOT READY/.test(l)), ws.logs.join('\n'));
      for (const source of ['london', 'berlin']) {
        assert.deepEqual((await read(ws, `${source}/probe/endpointslice-api-paris-ipv4.yaml`)).endpoints, [{ addresses: ['203.0.113.10'], conditions: { ready: false } }]);
        assert.deepEqual((await read(ws, `${source}/probe/endpoints-api-paris.yaml`)).subsets[0].notReadyAddresses, [{ ip: '203.0.113.10' }]);
      }
      assert.deepEqual(JSON.parse(ws.files().get('LOCK')!).observed.targets.paris.gatewayProbe, { alive: false });
      // AND the not-ready form is accepted without drift
      await applyWithoutDrift(fleet, ws, 'london');

      // WHEN the probe passes again
      probe.status = 200;
      await ws.synth();
      // THEN the mirrors are ready again and the lock forgets the verdict
      assert.deepEqual((await read(ws, 'london/probe/endpointslice-api-paris-ipv4.yaml')).endpoints, [{ addresses: ['203.0.113.10'], conditions: { ready: true } }]);
      assert.equal(JSON.parse(ws.files().get('LOCK')!).observed.targets.paris.gatewayProbe, undefined);
    } finally {
      ws.remove();
    }
  });

  test('a not-ready StatefulSet pod: london keeps it (default), berlin (followPodReadiness) drops it, both apply without drift', async (t) => {
    if (!fleet) return t.skip('no kube-apiserver');
    const ws = workspace();
    try {
      // GIVEN kafka with 3 ready pods in paris
      await applyStatefulService(fleet, 'paris', 'data', 'kafka', 3, { app: 'kafka', ...EXPORTED });
      assert.equal((await ws.synth()).exitCode, ExitCode.OK, ws.logs.join('\n'));
      const hostnames = async (path: string): Promise<string[]> => ((await read(ws, path)).endpoints ?? []).map((e: any) => e.hostname);
      assert.deepEqual(await hostnames('berlin/data/endpointslice-kafka-paris-ipv4.yaml'), ['kafka-0', 'kafka-1', 'kafka-2']);
      const londonBefore = [...ws.files().entries()].filter(([p]) => p.startsWith('london/'));
      // WHEN kafka-1 goes not ready
      await setPodReady(fleet, 'paris', 'data', 'kafka', 1, false);
      await ws.synth();
      // THEN london's output is unchanged: kafka-1 keeps its per-pod mirror and its place in kafka-global
      assert.deepEqual([...ws.files().entries()].filter(([p]) => p.startsWith('london/')), londonBefore);
      // AND berlin drops kafka-1's per-pod mirror and leaves it out of the headless mirror and kafka-global
      assert.ok(!ws.files().has('berlin/data/service-kafka-1-paris.yaml'));
      assert.deepEqual(await hostnames('berlin/data/endpointslice-kafka-paris-ipv4.yaml'), ['kafka-0', 'kafka-2']);
      assert.deepEqual(await hostnames('berlin/data/endpointslice-kafka-global-paris.yaml'), ['kafka-0-paris', 'kafka-2-paris']);
      await applyWithoutDrift(fleet, ws, 'london');
      await applyWithoutDrift(fleet, ws, 'berlin');
      // WHEN every pod is not ready
      for (const i of [0, 2]) await setPodReady(fleet, 'paris', 'data', 'kafka', i, false);
      await ws.synth();
      // THEN berlin keeps the headless mirror, with no subsets and no slices, and it applies without drift
      assert.ok(ws.files().has('berlin/data/service-kafka-paris.yaml'));
      assert.equal((await read(ws, 'berlin/data/endpoints-kafka-paris.yaml')).subsets, undefined);
      assert.ok(!ws.files().has('berlin/data/endpointslice-kafka-paris-ipv4.yaml'));
      await applyWithoutDrift(fleet, ws, 'berlin');
      // WHEN they are ready again
      for (const i of [0, 1, 2]) await setPodReady(fleet, 'paris', 'data', 'kafka', i, true);
      await ws.synth();
      // THEN berlin has all three pods back
      assert.deepEqual(await hostnames('berlin/data/endpointslice-kafka-paris-ipv4.yaml'), ['kafka-0', 'kafka-1', 'kafka-2']);
    } finally {
      ws.remove();
    }
  });
});
