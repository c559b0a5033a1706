/**
 * Observation budgets (issue 16): the fleet model's per-cluster overrides and their validation, the
 * cluster client's byte budget and deadline against local sockets that misbehave at the HTTP level
 * (the socket itself must close, not just the promise settle), the trust bundle's block cap, the
 * size check of copied metadata, and no spread of an array into a call anywhere in src/.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { App } from 'cdk8s';
import ts from 'typescript';
import { Cluster, Fleet, FleetDefinitionError, Link } from '../../src/model/index.js';
import { DEFAULT_OBSERVATION_BUDGET, type ObservationBudgetSpec } from '../../src/model/observation-budget.js';
import { ClusterClient, continueToken } from '../../src/observe/cluster-client.js';
import { ObservationError } from '../../src/observe/observation-error.js';
import { MAX_TRUST_BUNDLE_BLOCKS, trustRootsOfBundle } from '../../src/observe/observe-trust-roots.js';
import { validServices } from '../../src/observe/observed-checks.js';
import { probeGateway } from '../../src/observe/probe-gateway.js';
import { startStandInFleet } from '../harness/stand-in-apiserver.js';

const SRC = resolve(import.meta.dirname, '..', '..', 'src');

describe('observation budget in the fleet model', () => {
  test('a cluster without observationBudget gets the documented defaults; a partial one overrides only its fields', () => {
    const fleet = new Fleet(new App({ outdir: 'unused' }), 'fleet');
    const a = new Cluster(fleet, 'a');
    const b = new Cluster(fleet, 'b', { observationBudget: { deadlineSeconds: 5, listPageSize: 100 } });
    new Link(fleet, 'a-from-b', { source: a, target: b });
    const spec = fleet.toSpec();
    assert.deepEqual(spec.clusters.find((c) => c.name === 'a')!.observationBudget, {
      deadlineSeconds: 120, maxRequests: 10_000, listPageSize: 500, maxPagesPerList: 1_000, maxItemsPerList: 50_000, maxBytesPerList: 67_108_864,
      maxValuesPerList: 4_000_000, maxNestingDepth: 64, maxStringBytes: 2_097_152, maxProbeAddresses: 8, maxProbeSeconds: 30,
    });
    assert.deepEqual(spec.clusters.find((c) => c.name === 'b')!.observationBudget, { ...DEFAULT_OBSERVATION_BUDGET, deadlineSeconds: 5, listPageSize: 100 });
  });

  test('a budget of 0, a fraction of pages, or an unknown field is a fleet definition error naming the cluster and the field', () => {
    const fleet = new Fleet(new App({ outdir: 'unused' }), 'fleet');
    const a = new Cluster(fleet, 'a');
    const b = new Cluster(fleet, 'b', { observationBudget: { maxPagesPerList: 0, maxItemsPerList: 2.5, deadlineSeconds: 0.5, maxPages: 3 } as never });
    new Link(fleet, 'a-from-b', { source: a, target: b });
    const error = (() => { try { fleet.toSpec(); return undefined; } catch (e) { return e; } })();
    assert.ok(error instanceof FleetDefinitionError, String(error));
    assert.match(error.message, /cluster fleet\/b: observationBudget\.maxPagesPerList 0 is not a positive whole number/s);
    assert.match(error.message, /observationBudget\.maxItemsPerList 2\.5 is not a positive whole number/);
    assert.match(error.message, /observationBudget\.maxPages is not a budget field/);
    assert.doesNotMatch(error.message, /observationBudget\.deadlineSeconds/, 'half a second is a valid deadline');
  });
});

describe('the cluster client keeps to its budget on a misbehaving socket', () => {
  let server: Server;
  let port = 0;
  const sockets = new Set<Socket>();
  let mode: 'huge' | 'stall' = 'huge';
  const dir = mkdtempSync(join(tmpdir(), 'mirrorc-budget-'));

  before(async () => {
    server = createServer((_req, res) => {
      if (mode === 'stall') return; // accepted, never answered
      // A list whose one page never ends: 1 MiB chunks until the client lets go.
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write('{"kind":"ServiceList","metadata":{},"items":[');
      const chunk = `${JSON.stringify({ metadata: { name: 'x', namespace: 'y' } })},`.repeat(20_000);
      const pump = (): void => {
        while (!res.destroyed && res.write(chunk));
        if (!res.destroyed) res.once('drain', pump);
      };
      pump();
    });
    server.on('connection', (s) => {
      sockets.add(s);
      s.on('close', () => sockets.delete(s));
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    port = (server.address() as { port: number }).port;
    writeFileSync(join(dir, 'kubeconfig'), JSON.stringify({
      apiVersion: 'v1', kind: 'Config',
      clusters: [{ name: 'c', cluster: { server: `http://127.0.0.1:${port}`, 'insecure-skip-tls-verify': true } }],
      users: [{ name: 'u', user: { token: 'not-a-real-token' } }],
      contexts: [{ name: 'rome', context: { cluster: 'c', user: 'u' } }],
    }));
  });

  after(() => {
    for (const s of sockets) s.destroy();
    server.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const client = (budget: Partial<ObservationBudgetSpec>): ClusterClient =>
    ClusterClient.fromAccess('rome', { kubeconfig: join(dir, 'kubeconfig'), context: 'rome' }, { requestTimeoutMs: 600_000, attempts: 3, backoffMs: 1, budget: { ...DEFAULT_OBSERVATION_BUDGET, ...budget } });

  async function untilNoConnection(): Promise<void> {
    for (let i = 0; sockets.size > 0; i++) {
      assert.ok(i < 600, `the client still holds ${sockets.size} connection(s)`);
      await new Promise((r) => setTimeout(r, 100));
    }
  }

  test('an answer that never ends is cut at maxBytesPerList: over-budget error naming the cluster and the budget, not retried, and the socket is closed', async () => {
    mode = 'huge';
    const error = await client({ maxBytesPerList: 4 * 1024 * 1024, maxItemsPerList: 1_000_000, maxValuesPerList: 10_000_000 }).listServices().then(() => undefined, (e: unknown) => e);
    assert.ok(error instanceof ObservationError, String(error));
    assert.equal(error.failure, 'over-budget');
    assert.match(error.message, /^cluster "rome": list services in all namespaces: over its observation budget maxBytesPerList \(4194304\): the answer passed 4194304 bytes/);
    await untilNoConnection();
  });

  test('an answer that never ends is cut at maxItemsPerList while it arrives (some 40 KB in), not at the byte budget after a parse, and the socket is closed', async () => {
    mode = 'huge';
    const error = await client({ maxItemsPerList: 1_000 }).listServices().then(() => undefined, (e: unknown) => e);
    assert.ok(error instanceof ObservationError, String(error));
    assert.equal(error.failure, 'over-budget');
    assert.match(error.message, /^cluster "rome": list services in all namespaces: over its observation budget maxItemsPerList \(1000\): the list holds more than 1000 items/);
    await untilNoConnection();
  });

  test('a server that never answers is cut at deadlineSeconds, though the request timeout is ten minutes, and the socket is closed', async () => {
    mode = 'stall';
    const error = await client({ deadlineSeconds: 1 }).listServices().then(() => undefined, (e: unknown) => e);
    assert.ok(error instanceof ObservationError, String(error));
    assert.equal(error.failure, 'over-budget');
    assert.match(error.message, /^cluster "rome": list services in all namespaces: over its observation budget deadlineSeconds \(1 s\)/);
    await untilNoConnection();
  });

  test('withinDeadline ends work that is not an API request (a DNS lookup, a probe) when the deadline passes', async () => {
    const c = client({ deadlineSeconds: 0.2 });
    const error = await c.withinDeadline(new Promise(() => {})).then(() => undefined, (e: unknown) => e);
    assert.ok(error instanceof ObservationError && error.failure === 'over-budget' && /deadlineSeconds \(0\.2 s\)/.test(error.message), String(error));
  });
});

describe('bounded parsing of what a target returns', () => {
  test('the continue token is read from typed pages (_continue) and raw custom-object pages (continue)', () => {
    assert.equal(continueToken({ metadata: { _continue: 'a' } }), 'a');
    assert.equal(continueToken({ metadata: { continue: 'b' } }), 'b');
    assert.equal(continueToken({ metadata: { continue: '' } }), undefined);
    assert.equal(continueToken({ metadata: { continue: 7 } }), undefined);
    assert.equal(continueToken(undefined), undefined);
  });

  test(`a trust bundle of more than ${MAX_TRUST_BUNDLE_BLOCKS} blocks is one problem, not one per block; unparseable blocks are named up to 10, then counted`, () => {
    const garbage = '-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n';
    const huge = trustRootsOfBundle('cluster "x": ConfigMap linkerd/linkerd-identity-trust-roots', garbage.repeat(150_000));
    assert.equal(huge.roots, undefined);
    assert.deepEqual(huge.problems, [`cluster "x": ConfigMap linkerd/linkerd-identity-trust-roots holds more than ${MAX_TRUST_BUNDLE_BLOCKS} blocks under "ca-bundle.crt", more than any real trust bundle, so it is not read and the trust-anchor check of this cluster's links is skipped; fix the ConfigMap`]);
    const some = trustRootsOfBundle('w', garbage.repeat(25));
    assert.equal(some.problems.filter((p) => /certificate \d+ of "ca-bundle.crt" cannot be parsed/.test(p)).length, 10);
    assert.ok(some.problems.includes('w: 15 more certificates of "ca-bundle.crt" cannot be parsed and are left out of the trust-anchor check'), some.problems.join('\n'));
  });

  test('an observed Service whose labels and annotations exceed what a mirror can carry (256 KiB less 8 KiB) is skipped by name; one at the limit is kept', () => {
    const base = { namespace: 'shop', labels: { app: 'x' }, type: 'ClusterIP', headless: false, ports: [{ name: 'http', protocol: 'TCP', port: 80 }] };
    const limit = 256 * 1024 - 8 * 1024;
    const fits = { ...base, name: 'fits', annotations: { 'example.com/a': 'x'.repeat(limit - 'example.com/a'.length - 'app'.length - 1) } };
    const over = { ...base, name: 'over', annotations: { 'example.com/a': 'x'.repeat(limit) } };
    const warnings: string[] = [];
    assert.deepEqual(validServices('paris', [fits, over], warnings).map((s) => s.name), ['fits']);
    assert.equal(warnings.length, 1);
    assert.match(warnings[0]!, /^cluster "paris": Service "shop"\/"over" is skipped, because annotations: labels and annotations together hold 253969 bytes, more than the 253952 a mirror can carry/);
  });

  test('no spread of an array into a call anywhere in src/ (a page of 200,000 items overflows the stack that way)', () => {
    const found: string[] = [];
    const walk = (dir: string): void => {
      for (const name of readdirSync(dir)) {
        const path = join(dir, name);
        if (statSync(path).isDirectory()) walk(path);
        else if (path.endsWith('.ts')) {
          const file = ts.createSourceFile(path, readFileSync(path, 'utf8'), ts.ScriptTarget.Latest, true);
          const visit = (node: ts.Node): void => {
            if (ts.isSpreadElement(node) && (ts.isCallExpression(node.parent) || ts.isNewExpression(node.parent))) {
              found.push(`${path.slice(SRC.length + 1)}:${file.getLineAndCharacterOfPosition(node.getStart()).line + 1}: ${node.parent.getText().slice(0, 80)}`);
            }
            ts.forEachChild(node, visit);
          };
          visit(file);
        }
      }
    };
    walk(SRC);
    assert.deepEqual(found, [], 'use appendAll (src/util/append-all.ts) or a loop');
  });
});

describe('the gateway probe keeps to its budget', () => {
  test('only maxProbeAddresses addresses are probed, and a probe that runs out of time fails naming maxProbeSeconds, its connections closed', async () => {
    // GIVEN three local listeners that accept and never answer, counting connections
    const counts = [0, 0, 0];
    const open = new Set<Socket>();
    const servers = await Promise.all(counts.map(async (_, i) => {
      const s = createServer(() => {});
      s.on('connection', (socket) => {
        counts[i]!++;
        open.add(socket);
        socket.on('close', () => open.delete(socket));
      });
      await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
      return s;
    }));
    try {
      const urls = servers.map((s) => `http://127.0.0.1:${(s.address() as { port: number }).port}/ready`);
      // WHEN probed with room for one address and a probe time that has already run out once the first request waits
      const controller = new AbortController();
      const probing = probeGateway({ urls, periodMs: 60_000 }, { maxAddresses: 1, signal: controller.signal, outOfTime: 'the probe ran out of time (observationBudget.maxProbeSeconds 1 s)' });
      for (let i = 0; counts[0] === 0; i++) {
        assert.ok(i < 600, 'the first address was probed');
        await new Promise((r) => setTimeout(r, 100));
      }
      controller.abort();
      const outcome = await probing;
      // THEN it failed for lack of time, only the first listener saw a connection, and it was closed
      assert.deepEqual(outcome, { alive: false, failures: ['the probe ran out of time (observationBudget.maxProbeSeconds 1 s)'], answered: false });
      assert.deepEqual(counts.slice(1), [0, 0]);
      for (let i = 0; open.size > 0; i++) {
        assert.ok(i < 600, 'the probe connection was closed');
        await new Promise((r) => setTimeout(r, 100));
      }
    } finally {
      for (const s of open) s.destroy();
      for (const s of servers) s.close();
    }
  });
});

describe('an answer over its budget is not asked for again', () => {
  test('GIVEN a stand-in API server whose Services list is one page over the byte budget, or over the item budget WHEN listed with 3 attempts THEN one request each: an over-budget error, never a retry', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'mirrorc-over-budget-retry-'));
    // One page of 40,000 small Services: some 2.6 MB of JSON, and 40,000 items.
    const fleet = await startStandInFleet(dir, [
      { name: 'bytes', services: [], namespaces: [], misbehave: { kind: 'huge-page', items: 40_000, list: 'services' } },
      { name: 'items', services: [], namespaces: [], misbehave: { kind: 'huge-page', items: 40_000, list: 'services' } },
    ]);
    try {
      const list = (cluster: string, budget: Partial<ObservationBudgetSpec>): Promise<unknown> =>
        ClusterClient.fromAccess(cluster, { kubeconfig: fleet.kubeconfig, context: cluster }, { attempts: 3, backoffMs: 1, budget: { ...DEFAULT_OBSERVATION_BUDGET, ...budget } })
          .listServices().then(() => undefined, (e: unknown) => e);
      const bytes = await list('bytes', { maxBytesPerList: 1024 * 1024 });
      const items = await list('items', { maxItemsPerList: 1_000 });
      assert.ok(bytes instanceof ObservationError && bytes.failure === 'over-budget' && /maxBytesPerList \(1048576\)/.test(bytes.message), String(bytes));
      assert.ok(items instanceof ObservationError && items.failure === 'over-budget' && /maxItemsPerList \(1000\)/.test(items.message), String(items));
      assert.equal(fleet.server('bytes').requests(), 1, 'the answer over the byte budget was asked for again');
      assert.equal(fleet.server('items').requests(), 1, 'the answer over the item budget was asked for again');
    } finally {
      await fleet.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
