/**
 * Safety: no run mass-deletes mirrors. A mistyped or emptied lock, a target that suddenly lists no
 * exports, a retired link and a large share of removals are stopped or held back; namespaces that
 * mirrorc creates never flap; an unreachable target keeps its mirrors. Against real kube-apiservers
 * where a target is involved; every case checks dist/ + lock by hash, exit code, message and report.
 */
import assert from 'node:assert/strict';
import { existsSync, readFileSync, renameSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { ExitCode } from '../../src/errors/exit-codes.js';
import { observationRules } from '../../src/observe/observation-rbac.js';
import { kubeFleetForTests, type KubeFleet } from '../harness/kube-fleet.js';
import { applyService, ensureNamespace, installGateway, unitFree } from '../integration/support.js';
import { SafetyRepo, assertNoStackTrace, readFiles } from './support.js';

const EXPORTED = { 'mirror.linkerd.io/exported': 'true' };

/** london mirrors paris, rome and madrid; `links` picks which links exist. */
function fleetBody(links: readonly string[] = ['paris', 'rome', 'madrid'], extra = ''): string {
  return [
    `const london = new Cluster(fleet, 'london');`,
    ...links.map((t) => `new Link(fleet, 'london-from-${t}', { source: london, target: new Cluster(fleet, '${t}')${t === 'madrid' ? extra : ''} });`),
  ].join('\n');
}

/** Mirror Service files of one target in london. */
function mirrorsOf(repo: SafetyRepo, target: string): string[] {
  return [...readFiles(join(repo.outDir, 'london')).keys()].filter((p) => new RegExp(`/service-.*-${target}\\.yaml$`).test(p));
}

describe('safety: removals', () => {
  let fleet: KubeFleet | undefined;
  let kubeconfig = '';

  before(async (t) => {
    fleet = await kubeFleetForTests(t as never, ['london', 'paris', 'rome', 'madrid'], { readerRules: observationRules({ source: true, target: true }) });
    if (!fleet) return;
    kubeconfig = fleet.kubeconfig('reader');
    await installGateway(fleet, 'paris', '203.0.113.10');
    await installGateway(fleet, 'rome', '198.51.100.30');
    await installGateway(fleet, 'madrid', '192.0.2.40');
    await ensureNamespace(fleet, 'london', 'shop');
    for (const name of ['cart', 'orders', 'pay']) await applyService(fleet, 'paris', 'shop', name, { app: name, ...EXPORTED });
    for (const name of ['search', 'ads']) await applyService(fleet, 'rome', 'shop', name, { app: name, ...EXPORTED });
    for (const name of ['maps', 'geo', 'tiles']) await applyService(fleet, 'madrid', 'shop', name, { app: name, ...EXPORTED });
  });

  after(async () => {
    await fleet?.stop();
  });

  /** A repo whose first live synth mirrored everything; returns it with the hash of that state. */
  async function mirroredRepo(body = fleetBody()): Promise<{ repo: SafetyRepo; first: string }> {
    const repo = new SafetyRepo();
    repo.writeFleet(body);
    const run = await repo.run(['synth', '--kubeconfig', kubeconfig]);
    assert.equal(run.code, ExitCode.OK, run.stderr);
    return { repo, first: repo.hash() };
  }

  test('GIVEN a mirrored fleet WHEN synth runs offline with a mistyped --lock THEN exit 2 names the path and nothing changes', async (t) => {
    if (!fleet) return t.skip('no kube-apiserver');
    const { repo, first } = await mirroredRepo();
    try {
      const run = await repo.run(['synth', '--offline', '--lock', 'clusters/fleet.lokc.json']);
      assert.equal(run.code, ExitCode.INVALID_INPUT);
      assert.match(run.stderr, /lock file clusters\/fleet\.lokc\.json does not exist, but dist\/ has content[\s\S]*--new-fleet/);
      assertNoStackTrace(run.stderr);
      assert.equal(repo.hash(), first);
      assert.equal(run.report.exitCode, ExitCode.INVALID_INPUT);
      assert.match(run.report.error, /does not exist/);
    } finally {
      repo.remove();
    }
  });

  test('GIVEN a mirrored fleet WHEN the lock is deleted and synth runs offline THEN exit 2; WITH --new-fleet the guard still asks for --confirm-removals', async (t) => {
    if (!fleet) return t.skip('no kube-apiserver');
    const { repo, first } = await mirroredRepo();
    try {
      renameSync(repo.lockFile, `${repo.lockFile}.away`);
      const missing = await repo.run(['synth', '--offline']);
      assert.equal(missing.code, ExitCode.INVALID_INPUT);
      assert.equal(missing.report.exitCode, ExitCode.INVALID_INPUT);
      const withoutLock = repo.hash();
      const fresh = await repo.run(['synth', '--offline', '--new-fleet']);
      assert.equal(fresh.code, ExitCode.REMOVAL_NOT_CONFIRMED, fresh.stderr);
      assert.match(fresh.stderr, /london: all 3 mirror Services of "paris" would be removed/);
      assert.equal(repo.hash(), withoutLock);
      renameSync(`${repo.lockFile}.away`, repo.lockFile);
      assert.equal(repo.hash(), first);
    } finally {
      repo.remove();
    }
  });

  test('GIVEN a mirrored fleet WHEN the lock lists no targets THEN exit 7 lists every emptied target and nothing changes', async (t) => {
    if (!fleet) return t.skip('no kube-apiserver');
    const { repo } = await mirroredRepo();
    try {
      const lock = JSON.parse(readFileSync(repo.lockFile, 'utf8'));
      repo.writeLock({ ...lock, observed: { ...lock.observed, targets: {} } });
      const before = repo.hash();
      const run = await repo.run(['synth', '--offline']);
      assert.equal(run.code, ExitCode.REMOVAL_NOT_CONFIRMED);
      for (const target of ['paris', 'rome', 'madrid']) assert.match(run.stderr, new RegExp(`all \\d mirror Services of "${target}" would be removed`));
      assert.match(run.stderr, /nothing was written/);
      assert.equal(repo.hash(), before);
      assert.equal(run.report.exitCode, ExitCode.REMOVAL_NOT_CONFIRMED);
      assertNoStackTrace(run.stderr);
    } finally {
      repo.remove();
    }
  });

  test('GIVEN a mirrored fleet WHEN the link to rome is deleted from fleet.ts THEN plan shows the stop, synth exits 7; WITH --confirm-removals the mirrors go', async (t) => {
    if (!fleet) return t.skip('no kube-apiserver');
    const { repo, first } = await mirroredRepo();
    try {
      repo.writeFleet(fleetBody(['paris', 'madrid']));
      const plan = await repo.run(['plan', '--offline']);
      assert.equal(plan.code, ExitCode.OK, plan.stderr);
      assert.match(plan.stdout, /synth would stop here[\s\S]*all 2 mirror Services of "rome"/);
      const stopped = await repo.run(['synth', '--kubeconfig', kubeconfig]);
      assert.equal(stopped.code, ExitCode.REMOVAL_NOT_CONFIRMED);
      assert.equal(repo.hash(), first);
      assert.equal(stopped.report.exitCode, ExitCode.REMOVAL_NOT_CONFIRMED);
      const confirmed = await repo.run(['synth', '--kubeconfig', kubeconfig, '--confirm-removals']);
      assert.equal(confirmed.code, ExitCode.OK, confirmed.stderr);
      assert.deepEqual(mirrorsOf(repo, 'rome'), []);
      assert.equal(mirrorsOf(repo, 'paris').length, 3);
      assert.deepEqual(unitFree(confirmed.report.sources.find((s: any) => s.cluster === 'london').removed).filter((f: string) => f.includes('service-')),
        ['shop/service-ads-rome.yaml', 'shop/service-search-rome.yaml']);
    } finally {
      repo.remove();
    }
  });

  test('GIVEN a lock with 20 services of paris WHEN 6 vanish from it THEN exit 7 names the share; WHEN 5 vanish THEN synth proceeds', async (t) => {
    if (!fleet) return t.skip('no kube-apiserver');
    const repo = new SafetyRepo();
    try {
      repo.writeFleet(fleetBody(['paris']));
      const service = (i: number): unknown => ({ namespace: 'shop', name: `s${i}`, labels: EXPORTED, annotations: {}, type: 'ClusterIP', headless: false, ports: [{ name: 'http', protocol: 'TCP', port: 80 }] });
      const lock = (n: number, from = 0): unknown => ({
        format: 1,
        targets: { paris: { selectors: ['mirror.linkerd.io/exported=remote-discovery', 'mirror.linkerd.io/exported=true'], missingExplicitExports: [],
          services: Array.from({ length: n }, (_, i) => service(i + from)).sort((a: any, b: any) => (a.name < b.name ? -1 : 1)), gateway: { addresses: ['203.0.113.10'], port: 4143 } } },
        sources: { london: { namespaces: ['shop'], foreignServices: [] } },
      });
      repo.writeLock(lock(20));
      assert.equal((await repo.run(['synth', '--offline'])).code, ExitCode.OK);
      const twenty = repo.hash();
      repo.writeLock(lock(14, 6));
      const six = await repo.run(['synth', '--offline']);
      assert.equal(six.code, ExitCode.REMOVAL_NOT_CONFIRMED);
      assert.match(six.stderr, /london: 6 of its 20 mirror Services would be removed \(more than 25 %\)/);
      assert.equal(six.report.exitCode, ExitCode.REMOVAL_NOT_CONFIRMED);
      repo.writeLock(lock(15, 5));
      const fiveLock = readFileSync(repo.lockFile, 'utf8');
      const five = await repo.run(['synth', '--offline']);
      assert.equal(five.code, ExitCode.OK, five.stderr);
      assert.notEqual(repo.hash(), twenty);
      assert.equal(mirrorsOf(repo, 'paris').length, 15);
      // (the hand-written format 1 lock is migrated: its observation is the format 2 lock's observed section)
      assert.deepEqual({ format: 1, ...JSON.parse(readFileSync(repo.lockFile, 'utf8')).observed }, JSON.parse(fiveLock), 'the lock holds what was compiled');
    } finally {
      repo.remove();
    }
  });

  test('GIVEN madrid exports 3 services WHEN it suddenly exports none THEN its mirrors are kept and it is held back, stale, never silent (exit 0; --strict exit 4); WITH --confirm-removals they go', async (t) => {
    if (!fleet) return t.skip('no kube-apiserver');
    const { repo, first } = await mirroredRepo();
    try {
      for (const name of ['maps', 'geo', 'tiles']) await fleet.kubectl('madrid', ['label', 'service', name, '-n', 'shop', 'mirror.linkerd.io/exported-']);
      const distBefore = mirrorsOf(repo, 'madrid');
      // WITH --strict: a held-back target is stale like an unreachable one, nothing is written (exit 4)
      const strict = await repo.run(['synth', '--kubeconfig', kubeconfig, '--strict']);
      assert.equal(strict.code, ExitCode.STALE, strict.stderr);
      assert.match(strict.stderr, /"madrid" suddenly lists no exported services and is held back/);
      assert.equal(repo.hash(), first);
      const held = await repo.run(['synth', '--kubeconfig', kubeconfig]);
      assert.equal(held.code, ExitCode.OK, held.stderr);
      assert.match(held.stderr, /cluster "madrid" is HELD BACK: it lists no exported services, but the lock holds 3 [\s\S]*--confirm-removals/);
      // THEN the mirrors stay, and the lock says since when madrid is stale; the report says held back and why
      assert.deepEqual(mirrorsOf(repo, 'madrid'), distBefore);
      const lockNow = JSON.parse(readFileSync(repo.lockFile, 'utf8'));
      assert.match(lockNow.observed.staleSince?.targets?.madrid ?? '', /^\d{4}-\d\d-\d\dT/);
      const madrid = held.report.targets.find((x: { cluster: string }) => x.cluster === 'madrid');
      assert.equal(madrid.stale, true);
      assert.match(madrid.heldBack, /lists no exported services, but the lock holds 3/);
      assert.ok(held.report.warnings.some((w: string) => w.includes('"madrid" is HELD BACK')));
      const confirmed = await repo.run(['synth', '--kubeconfig', kubeconfig, '--confirm-removals']);
      assert.equal(confirmed.code, ExitCode.OK, confirmed.stderr);
      assert.deepEqual(mirrorsOf(repo, 'madrid'), []);
      assert.equal(mirrorsOf(repo, 'paris').length, 3);
      assert.equal(JSON.parse(readFileSync(repo.lockFile, 'utf8')).observed.staleSince?.targets?.madrid, undefined, 'let through: no longer stale');
    } finally {
      for (const name of ['maps', 'geo', 'tiles']) await fleet.kubectl('madrid', ['label', '--overwrite', 'service', name, '-n', 'shop', 'mirror.linkerd.io/exported=true']);
      repo.remove();
    }
  });

  test('GIVEN a link with createMissingNamespaces WHEN synth, apply, synth, apply, synth run THEN the namespace never leaves dist/ and is never pruned', async (t) => {
    if (!fleet) return t.skip('no kube-apiserver');
    await applyService(fleet, 'madrid', 'fresh-ns', 'quake', { app: 'quake', ...EXPORTED });
    const { repo } = await mirroredRepo(fleetBody(['madrid'], ', createMissingNamespaces: true'));
    const nsFile = join(repo.outDir, 'london', 'base', 'namespace-fresh-ns.yaml');
    try {
      assert.ok(existsSync(nsFile), 'run 1 adds the namespace');
      const text = readFileSync(nsFile, 'utf8');
      assert.match(text, /kustomize\.toolkit\.fluxcd\.io\/prune: disabled/);
      assert.match(text, /argocd\.argoproj\.io\/sync-options: Prune=false/);
      for (const round of [2, 3]) {
        await fleet.kubectl('london', ['apply', '--server-side', '--field-manager=mirrorc', '-k', join(repo.outDir, 'london')]);
        const run = await repo.run(['synth', '--kubeconfig', kubeconfig]);
        assert.equal(run.code, ExitCode.OK, run.stderr);
        assert.ok(existsSync(nsFile), `run ${round} keeps the namespace file`);
        assert.equal(readFileSync(nsFile, 'utf8'), text);
        const london = run.report.sources.find((s: any) => s.cluster === 'london');
        assert.deepEqual([...london.added, ...london.changed, ...london.removed], [], `run ${round} changes nothing in dist/london`);
      }
    } finally {
      await fleet.kubectl('madrid', ['delete', 'namespace', 'fresh-ns', '--wait=false']);
      repo.remove();
    }
  });

  test('GIVEN a mirrored fleet WHEN rome cannot be reached THEN its mirrors stay (stale-but-safe), exit 0, loud warning, report says stale', async (t) => {
    if (!fleet) return t.skip('no kube-apiserver');
    const { repo, first } = await mirroredRepo();
    const dist = () => readFiles(repo.outDir);
    const before = dist();
    try {
      await fleet.clusters.rome!.stop();
      const run = await repo.run(['synth', '--kubeconfig', kubeconfig, '--timeout', '30000']);
      assert.equal(run.code, ExitCode.OK, run.stderr);
      assert.match(run.stderr, /WARNING: 1 cluster observation failed[\s\S]*rome/);
      assert.deepEqual(dist(), before, 'dist/ unchanged');
      assert.notEqual(repo.hash(), first, 'the lock records the stale time');
      const rome = run.report.targets.find((x: any) => x.cluster === 'rome');
      assert.equal(rome.stale, true);
      assert.equal(rome.reachable, false);
      const strict = await repo.run(['synth', '--kubeconfig', kubeconfig, '--timeout', '30000', '--strict']);
      assert.equal(strict.code, ExitCode.STALE);
      assert.equal(strict.report.exitCode, ExitCode.STALE);
    } finally {
      await fleet.clusters.rome!.start();
      repo.remove();
    }
  });
});
