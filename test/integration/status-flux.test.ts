/**
 * `mirrorc status`, the Flux side, with the real kustomize-controller applying london's folder from a
 * real git clone's commits: up to date (0); the lock committed past the revision Flux applied (12);
 * Flux refusing the next revision, Ready=False with its error (12); and the reader identity without
 * `list kustomizations` (the one verb the status adds) cannot see the Flux side, and says so (14).
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { parse } from 'yaml';
import { FLUX_KUSTOMIZATION_NAME, FLUX_UNITS_KUSTOMIZATION_NAME } from '../../src/delivery/flux-kustomization.js';
import { ExitCode } from '../../src/errors/exit-codes.js';
import { renderLockFile } from '../../src/observe/lock-file.js';
import { FLUX_STATUS_RULE, observationRules } from '../../src/observe/observation-rbac.js';
import { emptySnapshot } from '../../src/snapshot/snapshot.js';
import type { StatusDocument } from '../../src/status/status-report.js';
import { fluxControllerForTests, type FluxController } from '../harness/flux-controller.js';
import { kubeFleetForTests, READER_CLUSTER_ROLE, type KubeFleet } from '../harness/kube-fleet.js';
import { MIRRORC_INDEX_URL, SafetyRepo } from '../safety/support.js';
import { applyService, applySlice, ensureNamespace, installGateway } from './support.js';

const EXPORTED = { 'mirror.linkerd.io/exported': 'true' };

describe('mirrorc status: the Flux side (real kustomize-controller, real git commits)', () => {
  let fleet: KubeFleet | undefined;
  let flux: FluxController | undefined;
  let repo: SafetyRepo;
  let kubeconfig: string;

  const git = (...args: string[]): string => {
    const run = spawnSync('git', args, { cwd: repo.dir, encoding: 'utf8' });
    assert.equal(run.status, 0, run.stderr);
    return run.stdout.trim();
  };
  /** Commits everything; returns the commit. */
  const commit = (message: string): string => {
    git('add', '-A');
    git('-c', 'user.name=ci', '-c', 'user.email=ci@example.invalid', 'commit', '-q', '-m', message);
    return git('rev-parse', 'HEAD');
  };

  before(async (t) => {
    fleet = await kubeFleetForTests(t as never, ['london', 'paris'], { readerRules: observationRules({ source: true, target: true, fluxSource: true }) });
    repo = new SafetyRepo();
    repo.writeFile('clusters/fleet.ts', `import { Cluster, GitOpsDelivery, Link, type Fleet } from ${JSON.stringify(MIRRORC_INDEX_URL)};
export default function defineFleet(fleet: Fleet): void {
  new Link(fleet, 'london-from-paris', { source: new Cluster(fleet, 'london'), target: new Cluster(fleet, 'paris') });
  new GitOpsDelivery(fleet, 'delivery', { repoUrl: 'https://git.invalid/fleet.git', revision: 'main', flux: {} });
}
`);
    repo.writeLock(renderLockFile(emptySnapshot()));
    git('init', '-q', '-b', 'main');
    if (!fleet) return;
    kubeconfig = fleet.kubeconfig('reader');
    await installGateway(fleet, 'paris', '192.0.2.30');
    await applyService(fleet, 'paris', 'shop', 'cart', { app: 'cart', ...EXPORTED });
    await applySlice(fleet, 'paris', 'shop', 'cart', [true]);
    await ensureNamespace(fleet, 'london', 'shop');
    flux = await fluxControllerForTests(t as never, fleet, 'london');
  });
  after(async () => {
    await flux?.stop();
    await fleet?.stop();
    repo?.remove();
  });

  const synth = async (): Promise<void> => {
    const run = await repo.run(['synth', '--kubeconfig', kubeconfig], { report: false });
    assert.equal(run.code, ExitCode.OK, run.stderr);
  };
  const status = async (): Promise<{ code: number | null; doc: StatusDocument }> => {
    const run = await repo.run(['status', '--kubeconfig', kubeconfig, '--output', 'json'], { report: false });
    return { code: run.code, doc: JSON.parse(run.stdout) as StatusDocument };
  };
  const unitNames = (): string[] => readdirSync(join(repo.dir, 'delivery/flux/london/units')).filter((f) => f !== 'kustomization.yaml')
    .map((f) => (parse(readFileSync(join(repo.dir, 'delivery/flux/london/units', f), 'utf8')) as { metadata: { name: string } }).metadata.name);

  test('up to date, behind the lock, failing, and not visible without list kustomizations', async (t) => {
    if (!fleet || !flux) return t.skip('no kube-apiserver or Flux controller');
    // GIVEN commit C1 holding the lock and dist/, applied by Flux in london
    await synth();
    const c1 = commit('synth 1');
    await fleet.kubectl('london', ['apply', '--server-side', '--field-manager=flux-bootstrap', '-f', join(repo.dir, 'delivery/flux/london/kustomization-mirrorc.yaml')]);
    const r1 = await flux.publish(repo.dir, ['dist', 'delivery'], { revision: `main@sha1:${c1}` });
    for (const name of [FLUX_KUSTOMIZATION_NAME, FLUX_UNITS_KUSTOMIZATION_NAME, ...unitNames()]) await flux.waitForReady(name, r1);

    await t.test('Flux applied the commit holding the lock: exit 0', async () => {
      const { code, doc } = await status();
      assert.equal(code, ExitCode.OK, JSON.stringify(doc.problems));
      const gitops = doc.sources[0]!.gitops!;
      assert.equal(gitops.lockCommit, c1);
      assert.deepEqual(gitops.kustomizations.map((k) => k.name), [FLUX_KUSTOMIZATION_NAME, ...[FLUX_UNITS_KUSTOMIZATION_NAME, ...unitNames()].sort()].sort());
      for (const k of gitops.kustomizations) assert.deepEqual({ ready: k.ready, rev: k.lastAppliedRevision, err: k.lastError }, { ready: 'True', rev: r1, err: null }, k.name);
    });

    await t.test('the lock committed past what Flux applied (a label change: no data-plane field differs): exit 12', async () => {
      await fleet!.kubectl('paris', ['label', 'service', 'cart', '-n', 'shop', 'team=checkout']);
      await synth();
      const c2 = commit('synth 2');
      const { code, doc } = await status();
      assert.equal(code, ExitCode.STATUS_GITOPS_BEHIND, JSON.stringify(doc.problems));
      assert.equal(doc.sources[0]!.gitops!.lockCommit, c2);
      assert.ok(doc.problems.length > 0 && doc.problems.every((p) => p.class === 'gitops-behind'), JSON.stringify(doc.problems));
      assert.match(doc.problems[0]!.message, new RegExp(`applied ${c1}, before the lock's last change ${c2}: Flux is behind`));
    });

    await t.test('Flux refuses the next revision: not Ready with its error, exit 12', async () => {
      const c2 = git('rev-parse', 'HEAD');
      await flux!.publish(repo.dir, ['dist', 'delivery'], { revision: `main@sha1:${c2}`, digest: `sha256:${'0'.repeat(64)}` });
      await flux!.waitFor(FLUX_UNITS_KUSTOMIZATION_NAME, 'refuse the artifact', (k) => k.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'False') === true);
      const { code, doc } = await status();
      assert.equal(code, ExitCode.STATUS_GITOPS_BEHIND, JSON.stringify(doc.problems));
      const units = doc.sources[0]!.gitops!.kustomizations.find((k) => k.name === FLUX_UNITS_KUSTOMIZATION_NAME)!;
      assert.equal(units.ready, 'False');
      assert.match(units.lastError ?? '', /digest/);
      assert.ok(doc.problems.some((p) => p.message.startsWith(`Kustomization ${FLUX_UNITS_KUSTOMIZATION_NAME} in "london" is not Ready (False): `)), JSON.stringify(doc.problems));
    });

    await t.test('without list kustomizations (the verb status adds), the Flux side is not visible, and said so: exit 14', async () => {
      const role = JSON.parse(await fleet!.kubectl('london', ['get', 'clusterrole', READER_CLUSTER_ROLE, '-o', 'json']));
      const without = { ...role, rules: (role.rules as { apiGroups: string[] }[]).filter((r) => !r.apiGroups.includes(FLUX_STATUS_RULE.apiGroups[0]!)) };
      assert.equal(without.rules.length, role.rules.length - 1);
      await fleet!.kubectl('london', ['replace', '-f', '-'], JSON.stringify(without));
      try {
        const { code, doc } = await status();
        assert.equal(code, ExitCode.STATUS_NOT_VISIBLE, JSON.stringify(doc.problems));
        const gitops = doc.sources[0]!.gitops!;
        assert.equal(gitops.visible, false);
        assert.match(gitops.error ?? '', /cannot list resource "kustomizations"/);
        assert.deepEqual(doc.problems.map((p) => p.class), ['not-visible']);
        // AND the mirrors are still read: only the Flux side is unseen
        assert.equal(doc.sources[0]!.visible, true);
      } finally {
        const { metadata: _m, ...rest } = role;
        await fleet!.kubectl('london', ['apply', '--server-side', '--force-conflicts', '-f', '-'], JSON.stringify({ ...rest, metadata: { name: READER_CLUSTER_ROLE } }));
      }
    });
  });
});
