/**
 * Gateway-mode synth end to end, against real kube-apiservers: london mirrors paris and rome.
 * Observation runs with the least-privilege reader identity unless a test says otherwise.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, describe, test } from 'node:test';
import { ExitCode } from '../../src/errors/exit-codes.js';
import type { FleetDefinition } from '../../src/load/load-fleet.js';
import { Cluster, Link } from '../../src/model/index.js';
import { observationRules } from '../../src/observe/observation-rbac.js';
import { kubeFleetForTests, type KubeFleet } from '../harness/kube-fleet.js';
import { applyService, assertSubset, ensureNamespace, installGateway, unitFree, Workspace } from './support.js';

const EXPORTED = { 'mirror.linkerd.io/exported': 'true' };

const defineFleet: FleetDefinition = (fleet) => {
  const london = new Cluster(fleet, 'london');
  const paris = new Cluster(fleet, 'paris');
  const rome = new Cluster(fleet, 'rome');
  new Link(fleet, 'london-from-paris', { source: london, target: paris });
  new Link(fleet, 'london-from-rome', { source: london, target: rome });
};

describe('gateway-mode synth against real API servers', () => {
  let fleet: KubeFleet | undefined;

  before(async (t) => {
    fleet = await kubeFleetForTests(t as never, ['london', 'paris', 'rome'], { readerRules: observationRules({ source: true, target: true }) });
    if (!fleet) return;
    await installGateway(fleet, 'paris', '203.0.113.10');
    await installGateway(fleet, 'rome', '198.51.100.30');
    for (const ns of ['lifecycle', 'ssa', 'stale', 'errors', 'det']) await ensureNamespace(fleet, 'london', ns);
  });

  after(async () => {
    await fleet?.stop();
  });

  const workspace = (identity: 'reader' | 'nobody' | 'admin' = 'reader', define: FleetDefinition = defineFleet): Workspace =>
    new Workspace(define, fleet!.kubeconfig(identity));

  test('exporting a service mirrors it; unexporting or deleting it removes the mirror', async (t) => {
    if (!fleet) return t.skip('no kube-apiserver');
    const ws = workspace();
    try {
      // GIVEN paris exports lifecycle/cart and not lifecycle/internal
      await applyService(fleet, 'paris', 'lifecycle', 'cart', { app: 'cart', ...EXPORTED });
      await applyService(fleet, 'paris', 'lifecycle', 'internal', { app: 'internal' });
      // WHEN synth runs
      const first = await ws.synth();
      // THEN london gets the Service, Endpoints and EndpointSlice of cart-paris, and nothing for internal
      assert.equal(first.exitCode, ExitCode.OK, ws.logs.join('\n'));
      const files = ws.paths('london');
      for (const f of ['lifecycle/service-cart-paris.yaml', 'lifecycle/endpoints-cart-paris.yaml', 'lifecycle/endpointslice-cart-paris-ipv4.yaml']) {
        assert.ok(files.includes(f), `${f} in ${files.join(', ')}`);
      }
      assert.ok(!files.some((f) => f.includes('internal')));
      assert.match(ws.files().get('london/lifecycle/endpoints-cart-paris.yaml')!, /ip: 203\.0\.113\.10/);

      // WHEN the export label is removed
      await fleet.kubectl('paris', ['label', 'service', 'cart', '-n', 'lifecycle', 'mirror.linkerd.io/exported-']);
      const unexported = await ws.synth();
      // THEN the mirror's objects and its file are gone and the run reports that one file removed
      assert.equal(unexported.exitCode, ExitCode.OK);
      assert.ok(!ws.paths('london').some((f) => f.includes('cart-paris')));
      assert.ok(![...ws.outputFiles().keys()].some((f) => f.includes('cart-paris')));
      const london = unexported.changes.find((c) => c.cluster === 'london');
      assert.deepEqual(unitFree(london?.removed ?? []).filter((f) => f.includes('cart')), ['lifecycle/service-cart-paris.yaml']);

      // WHEN it is exported again and then deleted
      await fleet.kubectl('paris', ['label', 'service', 'cart', '-n', 'lifecycle', 'mirror.linkerd.io/exported=true']);
      await ws.synth();
      assert.ok(ws.paths('london').includes('lifecycle/service-cart-paris.yaml'));
      await fleet.kubectl('paris', ['delete', 'service', 'cart', '-n', 'lifecycle']);
      await ws.synth();
      // THEN the mirror is gone again
      assert.ok(!ws.paths('london').some((f) => f.includes('cart-paris')));
    } finally {
      ws.remove();
    }
  });

  test('server-side apply of dist/london is accepted, reads back without drift, and a second apply changes nothing', async (t) => {
    if (!fleet) return t.skip('no kube-apiserver');
    const ws = workspace();
    try {
      // GIVEN two exported services, one multi-port with a named targetPort and an opaque-ports annotation
      await applyService(fleet, 'paris', 'ssa', 'web', { app: 'web', ...EXPORTED }, {
        annotations: { 'config.linkerd.io/opaque-ports': '9000' },
        spec: { ports: [{ name: 'http', port: 80, targetPort: 'http' }, { name: 'grpc', port: 9000, targetPort: 9000 }] },
      });
      await applyService(fleet, 'rome', 'ssa', 'api', { app: 'api', ...EXPORTED });
      const result = await ws.synth();
      assert.equal(result.exitCode, ExitCode.OK, ws.logs.join('\n'));
      // WHEN dist/london is applied server-side
      await fleet.kubectl('london', ['apply', '--server-side', '--field-manager=mirrorc', '-k', `${ws.outDir}/london`]);
      // THEN every object reads back with every field we set unchanged
      const tree = ws.files();
      const objects = [...tree.entries()].filter(([p]) => p.startsWith('london/') && !p.endsWith('kustomization.yaml'));
      assert.ok(objects.length >= 6, `objects: ${objects.map(([p]) => p).join(', ')}`);
      const { parse } = await import('yaml');
      const versions = new Map<string, string>();
      for (const [path, text] of objects) {
        const want = parse(text);
        const live = JSON.parse(await fleet.kubectl('london', ['get', want.kind, want.metadata.name, '-n', want.metadata.namespace, '-o', 'json']));
        assertSubset(live, want, path);
        versions.set(path, live.metadata.resourceVersion);
      }
      // AND applying again changes nothing
      await fleet.kubectl('london', ['apply', '--server-side', '--field-manager=mirrorc', '-k', `${ws.outDir}/london`]);
      for (const [path, text] of objects) {
        const want = parse(text);
        const live = JSON.parse(await fleet.kubectl('london', ['get', want.kind, want.metadata.name, '-n', want.metadata.namespace, '-o', 'json']));
        assert.equal(live.metadata.resourceVersion, versions.get(path), `${path} changed on re-apply`);
      }
    } finally {
      ws.remove();
    }
  });

  test('synth is byte-identical across runs, page sizes and offline compiles', async (t) => {
    if (!fleet) return t.skip('no kube-apiserver');
    const ws = workspace();
    try {
      // GIVEN several exported services, created out of name order
      for (const name of ['zeta', 'alpha', 'mid']) await applyService(fleet, 'paris', 'det', name, { app: name, ...EXPORTED });
      // WHEN synth runs twice, then with one item per page (every list paginated), then offline
      const first = await ws.synth();
      assert.equal(first.exitCode, ExitCode.OK, ws.logs.join('\n'));
      const files1 = ws.outputFiles();
      const second = await ws.synth();
      const files2 = ws.outputFiles();
      await ws.synth({ pageSize: 1 });
      const files3 = ws.outputFiles();
      await ws.synth({ offline: true });
      const files4 = ws.outputFiles();
      // THEN every file, the lock included, is byte-identical and later runs report no change
      assert.deepEqual(files2, files1);
      assert.deepEqual(files3, files1);
      assert.deepEqual(files4, files1);
      assert.deepEqual(second.changes, []);
      assert.ok(files1.get('london/det/service-alpha-paris.yaml'));
    } finally {
      ws.remove();
    }
  });

  test('an identity without rights gets a clear error naming the cluster and permission, and mirrors are kept', async (t) => {
    if (!fleet) return t.skip('no kube-apiserver');
    const define = defineFleet;
    const ws = workspace('reader', define);
    try {
      await applyService(fleet, 'paris', 'stale', 'kept', { app: 'kept', ...EXPORTED });
      assert.equal((await ws.synth()).exitCode, ExitCode.OK, ws.logs.join('\n'));
      const before = ws.files();
      assert.ok(before.has('london/stale/service-kept-paris.yaml'));
      // WHEN synth runs as an identity that may not list anything
      const denied = await new Workspace(define, fleet.kubeconfig('nobody')).synth({ lockFile: ws.lockFile, outDir: ws.outDir, log: (l) => ws.logs.push(l), now: () => new Date('2025-03-01T10:00:00Z') });
      // THEN every cluster is reported stale with the permission it lacks, and nothing changed on disk
      // but the lock's record of when each went stale
      assert.equal(denied.exitCode, ExitCode.OK);
      const paris = denied.stale.find((s) => s.cluster === 'paris' && s.role === 'target');
      assert.ok(paris, 'paris reported stale');
      assert.equal(paris.error.failure, 'forbidden');
      assert.match(paris.error.message, /cluster "paris": list services .*permission denied: .*cannot list resource "services"/);
      assert.ok(ws.logs.some((l) => l.includes('WARNING') && l.includes('kept')), ws.logs.join('\n'));
      const after = ws.files();
      // staleSince is the only change, in the observed section of the lock
      const lockAfter = JSON.parse(after.get('LOCK') ?? '{}');
      const { staleSince, ...observedWithoutStaleSince } = lockAfter.observed ?? {};
      const lockWithoutStaleSince = { ...lockAfter, observed: observedWithoutStaleSince };
      assert.deepEqual(staleSince, { sources: { london: '2025-03-01T10:00:00Z' }, targets: { paris: '2025-03-01T10:00:00Z', rome: '2025-03-01T10:00:00Z' } });
      assert.deepEqual(lockWithoutStaleSince, JSON.parse(before.get('LOCK') ?? '{}'));
      after.delete('LOCK');
      before.delete('LOCK');
      assert.deepEqual(after, before);
    } finally {
      ws.remove();
    }
  });

  test('a target that is down keeps its mirrors from the lock while other targets update; --strict writes nothing', async (t) => {
    if (!fleet) return t.skip('no kube-apiserver');
    const ws = workspace();
    try {
      // GIVEN a synth with both targets up
      await applyService(fleet, 'paris', 'stale', 'orders', { app: 'orders', ...EXPORTED });
      assert.equal((await ws.synth()).exitCode, ExitCode.OK);
      assert.ok(ws.paths('london').includes('stale/service-orders-paris.yaml'));
      // WHEN paris goes down and rome exports something new
      await fleet.clusters.paris!.stop();
      await applyService(fleet, 'rome', 'stale', 'fresh', { app: 'fresh', ...EXPORTED });
      const beforeStrict = ws.files();
      const strict = await ws.synth({ strict: true });
      // THEN --strict fails and writes nothing
      assert.equal(strict.exitCode, ExitCode.STALE);
      assert.deepEqual(ws.files(), beforeStrict);
      // AND a normal run keeps paris's mirrors, adds rome's and warns about paris
      const result = await ws.synth();
      assert.equal(result.exitCode, ExitCode.OK);
      const paths = ws.paths('london');
      assert.ok(paths.includes('stale/service-orders-paris.yaml'), 'paris mirror kept');
      assert.ok(paths.includes('stale/service-fresh-rome.yaml'), 'rome mirror added');
      assert.ok(result.stale.some((s) => s.cluster === 'paris' && s.error.failure === 'unreachable'));
      assert.ok(ws.logs.some((l) => l.includes('WARNING')) && ws.logs.some((l) => l.includes('cluster "paris"')), ws.logs.join('\n'));
      assert.ok(!result.stale.some((s) => s.cluster === 'rome'));
    } finally {
      await fleet.clusters.paris!.start();
      ws.remove();
    }
  });

  test('with --strict, over-long names and collisions fail; invalid fleets fail with the documented message and write nothing; missing namespaces warn', async (t) => {
    if (!fleet) return t.skip('no kube-apiserver');
    const ws = workspace();
    try {
      assert.equal((await ws.synth()).exitCode, ExitCode.OK, ws.logs.join('\n'));
      const before = ws.files();

      // Over-long mirror name, with --strict (without it, only that service is skipped: test/safety/hostile-input.test.ts)
      const long = 'x'.repeat(58);
      await applyService(fleet, 'paris', 'errors', long, { app: 'long', ...EXPORTED });
      let result = await ws.synth({ strict: true });
      assert.equal(result.exitCode, ExitCode.COMPILE_ERROR);
      assert.match(result.error ?? '', new RegExp(`london: .*paris/errors/${long}.*\\(64 characters\\).*at most 63`));
      assert.deepEqual(ws.files(), before);
      await fleet.kubectl('paris', ['delete', 'service', long, '-n', 'errors']);

      // Collision with a Service in london that mirrorc did not write
      await applyService(fleet, 'london', 'errors', 'web-paris', { app: 'mine' });
      await applyService(fleet, 'paris', 'errors', 'web', { app: 'web', ...EXPORTED });
      result = await ws.synth({ strict: true });
      assert.equal(result.exitCode, ExitCode.COMPILE_ERROR);
      assert.match(result.error ?? '', /london: the mirror of paris\/errors\/web would be Service errors\/web-paris, which already exists/);
      assert.deepEqual(ws.files(), before);
      await fleet.kubectl('london', ['delete', 'service', 'web-paris', '-n', 'errors']);
      await fleet.kubectl('paris', ['delete', 'service', 'web', '-n', 'errors']);

      // Namespace missing in london: a warning, and no mirror for it
      await applyService(fleet, 'paris', 'nowhere', 'lost', { app: 'lost', ...EXPORTED });
      result = await ws.synth();
      assert.equal(result.exitCode, ExitCode.OK);
      assert.ok(result.warnings.some((w) => w.includes('namespace "nowhere" does not exist')), result.warnings.join('\n'));
      assert.ok(!ws.paths('london').some((p) => p.startsWith('nowhere/')));
      await fleet.kubectl('paris', ['delete', 'namespace', 'nowhere', '--wait=false']);
      await fleet.kubectl('paris', ['delete', 'service', 'lost', '-n', 'nowhere']).catch(() => undefined);

      // Invalid fleet definition: fails before contacting any cluster
      const afterWarn = ws.files();
      const selfLink: FleetDefinition = (f) => {
        const a = new Cluster(f, 'london');
        new Link(f, 'loop', { source: a, target: a });
      };
      // (an identity that can read nothing: the run must fail on the definition before any request)
      const invalid = await new Workspace(selfLink, fleet.kubeconfig('nobody')).synth({ lockFile: ws.lockFile, outDir: ws.outDir });
      assert.equal(invalid.exitCode, ExitCode.INVALID_INPUT);
      assert.match(invalid.error ?? '', /link fleet\/loop: a cluster cannot link to itself \("london"\)/);
      assert.deepEqual(ws.files(), afterWarn);
    } finally {
      ws.remove();
    }
  });

  test('no credential from the kubeconfigs appears in dist/, the lock or the log', async (t) => {
    if (!fleet) return t.skip('no kube-apiserver');
    const ws = workspace('admin');
    try {
      await applyService(fleet, 'paris', 'lifecycle', 'scan', { app: 'scan', ...EXPORTED });
      assert.equal((await ws.synth()).exitCode, ExitCode.OK);
      const { parse } = await import('yaml');
      const secrets: string[] = [];
      for (const identity of ['admin', 'reader', 'nobody'] as const) {
        const kc = parse(readFileSync(fleet.kubeconfig(identity), 'utf8'));
        for (const u of kc.users ?? []) {
          for (const key of ['client-key-data', 'client-certificate-data', 'token']) {
            const v = u.user?.[key];
            if (typeof v === 'string') {
              secrets.push(v.slice(0, 40));
              const decoded = Buffer.from(v, 'base64').toString('utf8');
              const body = decoded.split('\n').filter((l) => l && !l.startsWith('-----'));
              if (body[0]) secrets.push(body[0]);
            }
          }
        }
      }
      assert.ok(secrets.length >= 6, 'found the credentials to look for');
      const haystack = [...ws.files().values(), ...ws.logs].join('\n');
      for (const s of secrets) assert.ok(!haystack.includes(s), 'a credential fragment leaked');
      assert.ok(!/BEGIN [A-Z ]*PRIVATE KEY|client-key-data|certificate-authority-data/.test(haystack));
    } finally {
      ws.remove();
    }
  });
});
