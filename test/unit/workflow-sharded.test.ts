/**
 * The sharded example workflow, run locally job by job (test/unit/support/workflow-runner.ts): for a
 * fleet with target-only clusters (whose dist/ folders hold only their reader RBAC) and a delivery,
 * the assembled dist/ passes the publish job's `check --offline`. (The workflow before this change
 * rebuilt dist/ from the source shards alone, so the target-only folders were missing and check
 * failed with exit 5.)
 */
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { pathToFileURL } from 'node:url';
import { renderLockFile } from '../../src/observe/lock-file.js';
import { emptySnapshot } from '../../src/snapshot/snapshot.js';
import { WorkflowRunner } from './support/workflow-runner.js';

const INDEX = pathToFileURL(join(import.meta.dirname, '..', '..', 'src', 'index.ts')).href;

test('sharded workflow: a fleet with target-only clusters assembles to what check --offline expects', { timeout: 600_000 }, () => {
  const repo = mkdtempSync(join(tmpdir(), 'mirrorc-sharded-repo-'));
  const runner = new WorkflowRunner(readFileSync('examples/github-actions/mirrorc-sharded.yml', 'utf8'), repo);
  try {
    // GIVEN the example's matrix sources (london, east, west), paris and oslo as target-only clusters, and Argo CD delivery
    mkdirSync(join(repo, 'clusters'));
    writeFileSync(join(repo, 'clusters', 'fleet.ts'), `import { Cluster, GitOpsDelivery, Link, type Fleet } from ${JSON.stringify(INDEX)};
export default function defineFleet(fleet: Fleet): void {
  const london = new Cluster(fleet, 'london');
  const east = new Cluster(fleet, 'east');
  const west = new Cluster(fleet, 'west');
  const paris = new Cluster(fleet, 'paris');
  const oslo = new Cluster(fleet, 'oslo');
  new Link(fleet, 'london-from-paris', { source: london, target: paris });
  new Link(fleet, 'london-from-oslo', { source: london, target: oslo });
  new Link(fleet, 'east-from-west', { source: east, target: west });
  new Link(fleet, 'west-from-east', { source: west, target: east });
  new GitOpsDelivery(fleet, 'delivery', { repoUrl: 'https://git.example.com/fleet.git', argoCd: {} });
}
`);
    writeFileSync(join(repo, 'clusters', 'fleet.lock.json'), renderLockFile(emptySnapshot()));
    assert.deepEqual(runner.matrix('compile', 'source'), ['london', 'east', 'west']);
    // (the observe job, which needs clusters, is replaced by its artifact: the lock)
    runner.seedArtifact('lock', join(repo, 'clusters'), ['fleet.lock.json']);

    // WHEN each compile shard runs, then the publish job up to its publish step
    for (const source of runner.matrix('compile', 'source')) {
      const shard = runner.runJob('compile', { matrix: { source } });
      assert.ok(shard.steps.every((s) => s.code === 0), `compile ${source}: ${JSON.stringify(shard.steps.at(-1))}`);
    }
    const publish = runner.runJob('publish', { until: 'Publish (pull request, or push)' });

    // THEN every step passed, check --offline included
    const failed = publish.steps.find((s) => s.code !== 0);
    assert.equal(failed, undefined, `publish: ${failed?.step} failed:\n${failed?.output}`);
    assert.ok(publish.steps.some((s) => s.step.startsWith('Verify')), 'the verify step ran');
    // AND the target-only clusters' folders (their reader RBAC) and delivery/ are in the assembled output
    for (const cluster of ['paris', 'oslo', 'london', 'east', 'west']) {
      assert.ok(existsSync(join(publish.workspace, 'dist', cluster, 'base', 'clusterrole-mirrorc-observer.yaml')), `dist/${cluster}/`);
    }
    assert.ok(existsSync(join(publish.workspace, 'delivery', 'argocd', 'applicationset-mirrorc.yaml')), 'delivery/');
  } finally {
    runner.remove();
    rmSync(repo, { recursive: true, force: true });
  }
});
