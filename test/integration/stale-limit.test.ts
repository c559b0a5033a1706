/**
 * The staleness limit against real kube-apiservers, through the CLI: a target that has been down
 * since long ago (its lock says so) makes `synth --max-stale 24h` exit 9, after writing the
 * stale-but-safe output (that target's mirrors unchanged), with a GitHub job summary naming it.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { ExitCode } from '../../src/errors/exit-codes.js';
import { readTree } from '../../src/emit/read-tree.js';
import { observationRules } from '../../src/observe/observation-rbac.js';
import { renderLockFile, readLockFile } from '../../src/observe/lock-file.js';
import { emptySnapshot } from '../../src/snapshot/snapshot.js';
import { kubeFleetForTests, kubeFleetSkipReason, type KubeFleet } from '../harness/kube-fleet.js';
import { SafetyRepo } from '../safety/support.js';
import { applyService, ensureNamespace, installGateway } from './support.js';

describe('--max-stale (real kube-apiservers)', () => {
  let fleet: KubeFleet | undefined;
  let repo: SafetyRepo;
  let scratch: string;
  before(async () => {
    fleet = await kubeFleetForTests(undefined, ['london', 'paris'], { readerRules: observationRules({ source: true, target: true }) });
    repo = new SafetyRepo();
    scratch = mkdtempSync(join(tmpdir(), 'mirrorc-stale-limit-'));
    repo.writeFleet(`const london = new Cluster(fleet, 'london');
const paris = new Cluster(fleet, 'paris');
new Link(fleet, 'london-from-paris', { source: london, target: paris });`);
    repo.writeLock(renderLockFile(emptySnapshot()));
    if (!fleet) return;
    await installGateway(fleet, 'paris', '192.0.2.30');
    await applyService(fleet, 'paris', 'shop', 'cart', { app: 'cart', 'mirror.linkerd.io/exported': 'true' });
    await ensureNamespace(fleet, 'london', 'shop');
  });
  after(async () => {
    await fleet?.stop();
    repo?.remove();
    rmSync(scratch, { recursive: true, force: true });
  });

  test('a target down since three days: exit 9, its mirrors unchanged, the lock keeps its time, the job summary names it', async (t) => {
    if (!fleet) return t.skip(kubeFleetSkipReason);
    const kubeconfig = fleet.kubeconfig('reader');
    // GIVEN a healthy first run that mirrors paris's cart into london
    const first = await repo.run(['synth', '--kubeconfig', kubeconfig, '--max-stale', '24h']);
    assert.equal(first.code, ExitCode.OK, first.stderr);
    const london = readTree(join(repo.outDir, 'london'));
    assert.ok(london.has('from-paris/shop/service-cart-paris.yaml'));
    // AND paris went down three days ago: it is stopped, and the lock records its stale time then
    await fleet.clusters.paris!.stop();
    const since = new Date(Date.now() - 3 * 86_400_000).toISOString().replace(/\.\d{3}Z$/, 'Z');
    writeFileSync(repo.lockFile, renderLockFile({ ...readLockFile(repo.lockFile), staleSince: { targets: { paris: since } } }));
    const summary = join(scratch, 'step-summary.md');

    // WHEN synth runs with a 24h limit in a GitHub job
    const run = await repo.run(['synth', '--kubeconfig', kubeconfig, '--max-stale', '24h'], { env: { GITHUB_STEP_SUMMARY: summary } });

    // THEN it fails with exit 9, naming paris and since when
    assert.equal(run.code, ExitCode.STALE_LIMIT, run.stderr);
    assert.match(run.stderr, new RegExp(`target paris: not observed since ${since} \\(3d`));
    assert.match(run.stderr, /dist\/ and the lock were written/);
    assert.equal(run.report.exitCode, ExitCode.STALE_LIMIT);
    // AND the output was written stale-but-safe: london's mirror of paris is unchanged, the old time is kept
    assert.deepEqual(readTree(join(repo.outDir, 'london')), london);
    assert.deepEqual(readLockFile(repo.lockFile).staleSince, { targets: { paris: since } });
    // AND the job summary says what is stale since when
    const md = readFileSync(summary, 'utf8');
    assert.match(md, /### mirrorc synth: exit 9/);
    assert.match(md, new RegExp(`\\| paris \\| target \\| ${since} \\| \` cluster "paris": `));

    // WHEN the limit is longer than the outage, the same state passes
    const longer = await repo.run(['synth', '--kubeconfig', kubeconfig, '--max-stale', '4d']);
    assert.equal(longer.code, ExitCode.OK, longer.stderr);
  });
});
