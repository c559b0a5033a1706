/**
 * The pure parts of readiness observation: what counts as a ready service, and how the gateway probe
 * is planned from the gateway Service (Linkerd's `mc-probe` port and probe annotations).
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type * as k8s from '@kubernetes/client-node';
import { buildFleet } from '../../src/load/load-fleet.js';
import { Cluster, Link } from '../../src/model/index.js';
import { parsePeriod, probePlan } from '../../src/observe/probe-gateway.js';
import { readiness } from '../../src/observe/to-plain.js';

const slice = (ready: (boolean | undefined)[]): k8s.V1EndpointSlice => ({
  addressType: 'IPv4',
  endpoints: ready.map((r, i) => ({ addresses: [`10.0.0.${i + 1}`], ...(r === undefined ? {} : { conditions: { ready: r } }) })),
});

describe('service readiness from EndpointSlices', () => {
  test('one ready endpoint in any slice is enough; an unknown condition counts as ready', () => {
    assert.deepEqual(readiness([slice([false]), slice([false, true])]), {});
    assert.deepEqual(readiness([slice([undefined])]), {});
  });

  test('slices without a ready endpoint (an empty placeholder, or only not-ready endpoints) give hasReadyEndpoints: false', () => {
    assert.deepEqual(readiness([slice([])]), { hasReadyEndpoints: false });
    assert.deepEqual(readiness([{ addressType: 'IPv4' } as k8s.V1EndpointSlice, slice([false, false])]), { hasReadyEndpoints: false });
  });

  test('no slice at all counts as ready (nothing is known)', () => {
    assert.deepEqual(readiness([]), {});
  });
});

describe('gateway probe plan', () => {
  const gatewayService = (annotations: Record<string, string>, type = 'LoadBalancer'): k8s.V1Service => ({
    metadata: { name: 'linkerd-gateway', namespace: 'linkerd-multicluster', annotations },
    spec: { type, ports: [{ name: 'mc-gateway', port: 4143, nodePort: 30143 }, { name: 'mc-probe', port: 4191, nodePort: 30191 }] },
  });
  const annotated = { 'mirror.linkerd.io/probe-path': '/ready', 'mirror.linkerd.io/probe-period': '3' };

  const ready = { path: '/ready' };

  test('probes each gateway address at the mc-probe port and the fleet\'s path, every annotated period', () => {
    assert.deepEqual(probePlan(gatewayService(annotated), ['203.0.113.10', '2001:db8::1'], ready), {
      urls: ['http://203.0.113.10:4191/ready', 'http://[2001:db8::1]:4191/ready'],
      periodMs: 3000,
    });
  });

  test('a NodePort gateway is probed at the nodePort, as Linkerd reads it', () => {
    const plan = probePlan(gatewayService(annotated, 'NodePort'), ['192.0.2.1'], ready);
    assert.deepEqual('urls' in plan && plan.urls, ['http://192.0.2.1:30191/ready']);
  });

  test('a probe address replaces the addresses and port, not the path', () => {
    const plan = probePlan(gatewayService(annotated), ['203.0.113.10'], { address: '127.0.0.1:8080', path: '/ready' });
    assert.deepEqual('urls' in plan && plan.urls, ['http://127.0.0.1:8080/ready']);
  });

  test('issue 33 item 5: the target\'s probe-path annotation is not used: the path is the fleet\'s, also without the annotation', () => {
    const hostile = { 'mirror.linkerd.io/probe-path': '/latest/meta-data/iam/security-credentials/', 'mirror.linkerd.io/probe-period': '3' };
    assert.deepEqual(probePlan(gatewayService(hostile), ['203.0.113.10'], ready), { urls: ['http://203.0.113.10:4191/ready'], periodMs: 3000 });
    assert.deepEqual(probePlan(gatewayService({}), ['203.0.113.10'], { path: '/healthz' }), { urls: ['http://203.0.113.10:4191/healthz'], periodMs: 3000 });
  });

  test('with a bad period or without the mc-probe port, there is no plan and the reason is named', () => {
    assert.match((probePlan(gatewayService({ ...annotated, 'mirror.linkerd.io/probe-period': 'often' }), ['203.0.113.10'], ready) as { problem: string }).problem, /"often" that is neither whole seconds nor a duration/);
    const noProbePort: k8s.V1Service = { metadata: { annotations: annotated }, spec: { ports: [{ name: 'mc-gateway', port: 4143 }] } };
    assert.match((probePlan(noProbePort, ['203.0.113.10'], ready) as { problem: string }).problem, /no port named "mc-probe"/);
  });

  test('periods: whole seconds (the chart default "3") or Go durations', () => {
    assert.equal(parsePeriod('3'), 3000);
    assert.equal(parsePeriod('1m30s'), 90_000);
    assert.equal(parsePeriod('500ms'), 500);
    assert.equal(parsePeriod('3 s'), undefined);
    assert.equal(parsePeriod(''), undefined);
  });
});

describe('readiness options in the model', () => {
  test('defaults leave the specs as they were; options appear only when set', () => {
    const { fleet } = buildFleet((f) => {
      const a = new Cluster(f, 'a');
      const b = new Cluster(f, 'b', { gateway: { probe: {} } });
      const c = new Cluster(f, 'c', { gateway: { probe: { mode: 'not-ready', address: '10.0.0.7:4191' } } });
      new Link(f, 'a-b', { source: a, target: b });
      new Link(f, 'a-c', { source: a, target: c, followServiceReadiness: false, followPodReadiness: true });
    });
    const spec = fleet.toSpec();
    assert.equal(spec.clusters.find((x) => x.name === 'a')!.gateway.probe, undefined);
    assert.deepEqual(spec.clusters.find((x) => x.name === 'b')!.gateway.probe, { mode: 'warn', path: '/ready' });
    assert.deepEqual(spec.clusters.find((x) => x.name === 'c')!.gateway.probe, { mode: 'not-ready', address: '10.0.0.7:4191', path: '/ready' });
    const ab = spec.links.find((l) => l.target === 'b')!;
    assert.equal('followServiceReadiness' in ab || 'followPodReadiness' in ab, false);
    const ac = spec.links.find((l) => l.target === 'c')!;
    assert.equal(ac.followServiceReadiness, false);
    assert.equal(ac.followPodReadiness, true);
  });

  test('a bad probe mode, address, path or allowed range is a fleet problem naming the cluster', () => {
    const { fleet } = buildFleet((f) => {
      const a = new Cluster(f, 'a');
      const b = new Cluster(f, 'b', { gateway: { probe: { mode: 'never' as never, address: 'gateway', path: 'ready\r\n::error::x', allowedCidrs: ['10.20.0.1/16'] } } });
      new Link(f, 'a-b', { source: a, target: b });
    });
    assert.throws(
      () => fleet.toSpec(),
      (e: Error) =>
        /gateway\.probe\.mode "never" is not "warn" or "not-ready"/.test(e.message) &&
        /gateway\.probe\.address "gateway" is not host:port/.test(e.message) &&
        /gateway\.probe\.path "ready\\r\\n::error::x" is not a URL path/.test(e.message) &&
        /gateway\.probe\.allowedCidrs entry "10\.20\.0\.1\/16": 10\.20\.0\.1 is not the first address/.test(e.message),
      'every problem named',
    );
  });

  test('a fleet-named path and allowed ranges reach the spec', () => {
    const { fleet } = buildFleet((f) => {
      new Link(f, 'a-b', { source: new Cluster(f, 'a'), target: new Cluster(f, 'b', { gateway: { probe: { path: '/healthz', allowedCidrs: ['10.20.0.0/16'] } } }) });
    });
    assert.deepEqual(fleet.toSpec().clusters.find((x) => x.name === 'b')!.gateway.probe, { mode: 'warn', path: '/healthz', allowedCidrs: ['10.20.0.0/16'] });
  });
});
