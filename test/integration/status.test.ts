/**
 * `mirrorc status` against real kube-apiservers, through the CLI with the least-privilege reader
 * identity: one source (london) mirroring two targets (paris, rome), its folder applied as a GitOps
 * tool would. Status tells apart, each with its exit code: all good (0); a mirror missing live, an
 * unexpected one and one whose ports differ (10); a mirror with no ready endpoint (11); a target
 * held back by synth (13, it answers now); a target down (13, and not readable now). It writes nothing.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { ExitCode } from '../../src/errors/exit-codes.js';
import { renderLockFile } from '../../src/observe/lock-file.js';
import { observationRules } from '../../src/observe/observation-rbac.js';
import { emptySnapshot } from '../../src/snapshot/snapshot.js';
import { STATUS_FORMAT, type StatusDocument } from '../../src/status/status-report.js';
import { ownVersion } from '../../src/util/own-version.js';
import { kubeFleetForTests, kubeFleetSkipReason, type KubeFleet } from '../harness/kube-fleet.js';
import { SafetyRepo } from '../safety/support.js';
import { applyService, applySlice, ensureNamespace, installGateway } from './support.js';

const EXPORTED = { 'mirror.linkerd.io/exported': 'true' };

describe('mirrorc status (real kube-apiservers, the reader identity)', () => {
  let fleet: KubeFleet | undefined;
  let repo: SafetyRepo;
  let kubeconfig: string;
  // paris's gateway probe endpoint, as the fleet names it (gateway.probe.address): 200 while healthy, else 503.
  let healthy = true;
  let probeServer: Server;

  before(async () => {
    probeServer = createServer((_req, res) => res.writeHead(healthy ? 200 : 503).end());
    await new Promise<void>((resolve) => probeServer.listen(0, '127.0.0.1', resolve));
    const probeAddress = `127.0.0.1:${(probeServer.address() as AddressInfo).port}`;
    fleet = await kubeFleetForTests(undefined, ['london', 'paris', 'rome'], { readerRules: observationRules({ source: true, target: true }) });
    repo = new SafetyRepo();
    repo.writeFleet(`const london = new Cluster(fleet, 'london');
new Link(fleet, 'london-from-paris', { source: london, target: new Cluster(fleet, 'paris', { gateway: { probe: { address: '${probeAddress}' } } }) });
new Link(fleet, 'london-from-rome', { source: london, target: new Cluster(fleet, 'rome') });`);
    repo.writeLock(renderLockFile(emptySnapshot()));
    if (!fleet) return;
    kubeconfig = fleet.kubeconfig('reader');
    await installGateway(fleet, 'paris', '192.0.2.30');
    await installGateway(fleet, 'rome', '198.51.100.40');
    // paris exports two services (so that losing both is suspect and held back), rome one; each has a ready endpoint.
    for (const name of ['cart', 'web']) {
      await applyService(fleet, 'paris', 'shop', name, { app: name, ...EXPORTED });
      await applySlice(fleet, 'paris', 'shop', name, [true]);
    }
    await applyService(fleet, 'rome', 'shop', 'search', { app: 'search', ...EXPORTED });
    await applySlice(fleet, 'rome', 'shop', 'search', [true]);
    await ensureNamespace(fleet, 'london', 'shop');
  });
  after(async () => {
    await fleet?.stop();
    repo?.remove();
    probeServer?.close();
  });

  /** synth with the reader identity, then london's folder applied as the GitOps tool would. */
  const synthAndApply = async (): Promise<void> => {
    const run = await repo.run(['synth', '--kubeconfig', kubeconfig], { report: false });
    assert.equal(run.code, ExitCode.OK, run.stderr);
    await fleet!.kubectl('london', ['apply', '--server-side', '--field-manager=gitops', '--force-conflicts', '-k', join(repo.outDir, 'london')]);
  };

  /** `mirrorc status --output json`; also asserts it wrote nothing and that the table run gives the same exit code. */
  const status = async (): Promise<{ code: number | null; doc: StatusDocument; table: string }> => {
    const before = repo.hash();
    const json = await repo.run(['status', '--kubeconfig', kubeconfig, '--output', 'json'], { report: false });
    const table = await repo.run(['status', '--kubeconfig', kubeconfig], { report: false });
    assert.equal(repo.hash(), before, 'status wrote to dist/ or the lock');
    assert.equal(table.code, json.code, table.stdout + table.stderr);
    return { code: json.code, doc: JSON.parse(json.stdout) as StatusDocument, table: table.stdout };
  };

  const mirror = (doc: StatusDocument, name: string) => doc.sources.find((s) => s.cluster === 'london')!.mirrors.find((m) => m.mirror === name);
  const target = (doc: StatusDocument, name: string) => doc.targets.find((t) => t.cluster === name)!;

  test('all good, then a missing, an unexpected and a differing mirror, no ready endpoint, a held-back and a stale target: each with its exit code', async (t) => {
    if (!fleet) return t.skip(kubeFleetSkipReason);
    // GIVEN london's mirrors compiled by synth and applied
    await synthAndApply();

    await t.test('all good: exit 0, every mirror ok with its ready endpoint, every target current and reachable', async () => {
      const { code, doc, table } = await status();
      assert.equal(code, ExitCode.OK, JSON.stringify(doc.problems));
      assert.equal(doc.statusFormat, STATUS_FORMAT);
      assert.equal(doc.mirrorcVersion, ownVersion());
      assert.deepEqual(doc.sources.find((s) => s.cluster === 'london')!.mirrors, ['shop/cart-paris', 'shop/search-rome', 'shop/web-paris'].map((m) => ({
        mirror: m, origin: `${m.split('-')[1]}/shop/${m.split('/')[1]!.split('-')[0]}`, state: 'ok', differs: [], readyEndpoints: 1,
      })));
      for (const [name, exported] of [['paris', 2], ['rome', 1]] as const) {
        const { gatewayNow, ...rest } = target(doc, name);
        assert.deepEqual(rest, { cluster: name, observed: true, staleSince: null, staleSeconds: null, reachableNow: true, error: null, gatewayAlive: null, exportedServices: exported });
        // paris's gateway is probed from here (the fleet asks for it), rome's is not
        if (name === 'rome') assert.equal(gatewayNow, null);
        else assert.deepEqual({ ...gatewayNow, latencyMs: typeof gatewayNow?.latencyMs }, { alive: true, latencyMs: 'number', why: null });
      }
      assert.match(table, /no problem found \(exit 0\)/);
      // AND no API server address is printed
      for (const c of Object.values(fleet!.clusters)) assert.ok(!table.includes(c!.server.replace('https://', '')), 'an API server address was printed');
    });

    await t.test('a mirror missing live, an unexpected one and one whose ports differ from dist/: exit 10', async () => {
      await fleet!.kubectl('london', ['delete', 'service', 'cart-paris', '-n', 'shop']);
      await fleet!.kubectl('london', ['patch', 'service', 'web-paris', '-n', 'shop', '--type=json', '-p', JSON.stringify([{ op: 'replace', path: '/spec/ports/0/targetPort', value: 9090 }])]);
      await applyService(fleet!, 'london', 'shop', 'old-paris', { 'mirrorc.io/managed': 'true' });
      const { code, doc, table } = await status();
      assert.equal(code, ExitCode.STATUS_MIRRORS_DIFFER, JSON.stringify(doc.problems));
      assert.equal(mirror(doc, 'shop/cart-paris')?.state, 'missing');
      assert.equal(mirror(doc, 'shop/old-paris')?.state, 'unexpected');
      assert.deepEqual(mirror(doc, 'shop/web-paris')?.differs, ['ports']);
      assert.equal(mirror(doc, 'shop/search-rome')?.state, 'ok');
      assert.deepEqual(doc.problems.map((p) => `${p.class} ${p.mirror}`), ['mirrors-differ shop/cart-paris', 'mirrors-differ shop/old-paris', 'mirrors-differ shop/web-paris']);
      assert.match(table, /\[mirrors-differ\] shop\/cart-paris is in the lock but not live in "london"/);
      // cleanup: the hand-made one removed, the folder applied again
      await fleet!.kubectl('london', ['delete', 'service', 'old-paris', '-n', 'shop']);
      await synthAndApply();
      assert.equal((await status()).code, ExitCode.OK);
    });

    await t.test('a target service without a ready endpoint: its mirror has none, exit 11', async () => {
      await applySlice(fleet!, 'paris', 'shop', 'cart', [false]);
      await synthAndApply();
      const { code, doc } = await status();
      assert.equal(code, ExitCode.STATUS_NO_READY_ENDPOINTS, JSON.stringify(doc.problems));
      assert.deepEqual(mirror(doc, 'shop/cart-paris'), { mirror: 'shop/cart-paris', origin: 'paris/shop/cart', state: 'ok', differs: [], readyEndpoints: 0 });
      assert.deepEqual(doc.problems.map((p) => `${p.class} ${p.mirror}`), ['no-ready-endpoints shop/cart-paris']);
      await applySlice(fleet!, 'paris', 'shop', 'cart', [true]);
      await synthAndApply();
      assert.equal((await status()).code, ExitCode.OK);
    });

    await t.test('a gateway that fails its probe from here: exit 15', async () => {
      healthy = false;
      try {
        const { code, doc, table } = await status();
        assert.equal(code, ExitCode.STATUS_GATEWAY_DOWN, JSON.stringify(doc.problems));
        assert.equal(target(doc, 'paris').gatewayNow?.alive, false);
        assert.deepEqual(doc.problems.map((p) => `${p.class} ${p.cluster}`), ['gateway-down paris']);
        assert.match(doc.problems[0]!.message, /failed its probe from here 3 times: .*answered HTTP 503/);
        assert.match(table, /^paris +2 +- +down /m);
      } finally {
        healthy = true;
      }
    });

    await t.test('a target held back by synth (it suddenly exports nothing): stale in the lock, answers now, exit 13', async () => {
      for (const name of ['cart', 'web']) await fleet!.kubectl('paris', ['label', 'service', name, '-n', 'shop', 'mirror.linkerd.io/exported-']);
      await synthAndApply();
      const since = JSON.parse(readFileSync(repo.lockFile, 'utf8')).observed.staleSince?.targets?.paris;
      assert.ok(since, 'synth held paris back');
      const { code, doc } = await status();
      assert.equal(code, ExitCode.STATUS_STALE, JSON.stringify(doc.problems));
      assert.equal(target(doc, 'paris').staleSince, since);
      assert.equal(target(doc, 'paris').reachableNow, true);
      assert.deepEqual(doc.problems.map((p) => `${p.class} ${p.cluster}`), ['stale paris']);
      assert.match(doc.problems[0]!.message, /it answers now: the last synth held it back/);
      // its mirrors are kept, as synth keeps them
      assert.equal(mirror(doc, 'shop/cart-paris')?.state, 'ok');
    });

    await t.test('a target that is down: stale in the lock and not readable now, exit 13', async () => {
      await fleet!.clusters.rome!.stop();
      await synthAndApply();
      const { code, doc } = await status();
      assert.equal(code, ExitCode.STATUS_STALE, JSON.stringify(doc.problems));
      assert.equal(target(doc, 'rome').reachableNow, false);
      assert.ok(target(doc, 'rome').staleSince !== null);
      assert.deepEqual(doc.problems.map((p) => `${p.class} ${p.cluster}`), ['stale paris', 'stale rome', 'not-visible rome']);
      assert.match(doc.problems[1]!.message, /it does not answer now either/);
      // AND the address of rome's API server is not in the document
      assert.ok(!JSON.stringify(doc).includes(fleet!.clusters.rome!.server.replace('https://', '')), JSON.stringify(doc.problems));
    });
  });
});
