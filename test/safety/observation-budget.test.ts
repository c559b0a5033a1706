/**
 * Bounded observation (issue 16): one target's API server that never ends a list, grows its pages,
 * sends one huge page, trickles or stalls, or serves a huge trust bundle can neither hang, crash nor
 * stop the fleet. Each case runs the real CLI against stand-in API servers (test/harness/
 * stand-in-apiserver.ts: misbehaviour a real one cannot produce) and asserts dist/ and the lock (the
 * misbehaving target's mirrors kept, the other target's change written), the exit code, the
 * message naming cluster and budget, and the report. No case depends on timing: count budgets
 * (pages, items, bytes) end the endless cases; only the stalled and trickling servers meet the
 * deadline, and they never answer, so the deadline is the only way out whatever the machine's speed.
 */
import assert from 'node:assert/strict';
import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { ExitCode } from '../../src/errors/exit-codes.js';
import { startStandInFleet, type Misbehaviour, type StandInCluster, type WorstAnswer } from '../harness/stand-in-apiserver.js';
import { REPO_ROOT, SafetyRepo, assertNoStackTrace, assertOneOf, startProcess, type CliRun } from './support.js';

const EXPORTED = { 'mirror.linkerd.io/exported': 'true' };

function service(namespace: string, name: string): unknown {
  return { metadata: { namespace, name, labels: EXPORTED, annotations: {} }, spec: { type: 'ClusterIP', clusterIP: '10.0.0.1', ports: [{ name: 'http', protocol: 'TCP', port: 80 }] } };
}

const gateway: unknown = {
  metadata: { namespace: 'linkerd-multicluster', name: 'linkerd-gateway', labels: {}, annotations: { 'mirror.linkerd.io/gateway-identity': 'gw.example' } },
  spec: { type: 'LoadBalancer', clusterIP: '10.0.0.2', ports: [{ name: 'mc-gateway', protocol: 'TCP', port: 4143 }] },
  status: { loadBalancer: { ingress: [{ ip: '203.0.113.7' }] } },
};

/** Source a mirrors targets b (the one that misbehaves) and c (healthy, and changing). */
function fleetText(budgetB: string, budgetA = ''): string {
  return `const a = new Cluster(fleet, 'a'${budgetA ? `, { observationBudget: ${budgetA} }` : ''});
const b = new Cluster(fleet, 'b'${budgetB ? `, { observationBudget: ${budgetB} }` : ''});
const c = new Cluster(fleet, 'c');
new Link(fleet, 'a-from-b', { source: a, target: b });
new Link(fleet, 'a-from-c', { source: a, target: c });`;
}

const healthy = (extraC: readonly unknown[] = []): StandInCluster[] => [
  { name: 'a', services: [], namespaces: ['default'] },
  { name: 'b', services: [service('default', 'web'), gateway], namespaces: ['default'] },
  { name: 'c', services: [service('default', 'api'), ...extraC, gateway], namespaces: ['default'] },
];

function distFiles(repo: SafetyRepo): string[] {
  const out: string[] = [];
  const walk = (rel: string): void => {
    for (const name of readdirSync(join(repo.outDir, rel))) {
      const p = rel ? `${rel}/${name}` : name;
      if (statSync(join(repo.outDir, p)).isDirectory()) walk(p);
      else out.push(p);
    }
  };
  if (existsSync(repo.outDir)) walk('');
  return out;
}

/** The observed section of the lock (format 2). */
const lock = (repo: SafetyRepo): any => JSON.parse(readFileSync(repo.lockFile, 'utf8')).observed;

/** A committed state with b's `web` and c's `api` mirrored, written from healthy stand-ins. */
async function baseline(repo: SafetyRepo, fleet: string): Promise<void> {
  repo.writeFleet(fleet);
  const good = await startStandInFleet(repo.dir, healthy());
  try {
    const run = await repo.run(['synth', '--new-fleet', '--kubeconfig', good.kubeconfig]);
    assert.equal(run.code, ExitCode.OK, run.stderr);
  } finally {
    await good.close();
  }
  const files = distFiles(repo);
  assert.ok(files.includes('a/from-b/default/service-web-b.yaml') && files.includes('a/from-c/default/service-api-c.yaml'), files.join('\n'));
}

/**
 * GIVEN the baseline, WHEN b misbehaves as `misbehave` and c exports a new service, THEN exit 0,
 * b is stale with `message` (naming cluster b and the budget) in stderr and the report, b's mirror
 * and lock entry are kept, and c's new mirror is written.
 */
async function assertStaleButSafe(misbehave: Misbehaviour, budgetB: string, message: RegExp, env: Record<string, string> = {}): Promise<{ run: CliRun; repo: SafetyRepo }> {
  const repo = new SafetyRepo();
  await baseline(repo, fleetText(budgetB));
  const before = lock(repo);
  const stand = await startStandInFleet(repo.dir, healthy([service('default', 'api2')]).map((c) => (c.name === 'b' ? { ...c, misbehave } : c)));
  let run: CliRun;
  try {
    run = await repo.run(['synth', '--kubeconfig', stand.kubeconfig], { env });
  } finally {
    await stand.close();
  }
  // THEN exit 0, no stack trace, the message names cluster b and the budget
  assert.equal(run.code, ExitCode.OK, run.stderr);
  assertNoStackTrace(run.stderr);
  assert.match(run.stderr, message);
  // AND the report says so: b stale with the same error, c reached, no run error
  assert.equal(run.report.exitCode, ExitCode.OK);
  assert.equal(run.report.error, null);
  const b = run.report.targets.find((t: any) => t.cluster === 'b');
  const c = run.report.targets.find((t: any) => t.cluster === 'c');
  assert.equal(b.stale, true);
  assert.equal(b.reachable, false);
  assert.match(b.error, message);
  assert.equal(c.stale, false);
  // AND b's mirror and lock entry are kept, c's new service is mirrored
  const files = distFiles(repo);
  assert.ok(files.includes('a/from-b/default/service-web-b.yaml'), `b's mirror kept:\n${files.join('\n')}`);
  assert.ok(files.includes('a/from-c/default/service-api2-c.yaml'), `c's change written:\n${files.join('\n')}`);
  const after = lock(repo);
  assert.deepEqual(after.targets.b.services, before.targets.b.services);
  assert.deepEqual(after.targets.c.services.map((s: any) => s.name), ['api', 'api2']);
  return { run, repo };
}

describe('bounded observation: a misbehaving target API server', () => {
  test('GIVEN a target that always answers with a continue token WHEN synth runs THEN it stops at maxPagesPerList (default 1000): b stale, c updated, exit 0', async () => {
    const { repo } = await assertStaleButSafe({ kind: 'endless-continue' }, '', /cluster "b": list services .*over its observation budget maxPagesPerList \(1000\)/);
    repo.remove();
  });

  test('GIVEN a target whose pages grow without end WHEN synth runs THEN it stops at maxBytesPerList (default 64 MiB), reading no more: b stale, c updated, exit 0', async () => {
    const { repo } = await assertStaleButSafe({ kind: 'growing-pages' }, '', /cluster "b": list services .*over its observation budget maxBytesPerList \(67108864\)/);
    repo.remove();
  });

  test('GIVEN a target answering one page of 200,000 Services WHEN synth runs THEN it stops at maxItemsPerList (default 50000), no stack overflow: b stale, c updated, exit 0', async () => {
    const { repo } = await assertStaleButSafe({ kind: 'huge-page', items: 200_000, list: 'services' }, '', /cluster "b": list services .*over its observation budget maxItemsPerList \(50000\)/);
    repo.remove();
  });

  test('GIVEN a target that accepts the connection and never answers WHEN synth runs with a 3 s deadline for it THEN the deadline ends it: b stale, c updated, exit 0', async () => {
    const { repo } = await assertStaleButSafe({ kind: 'stall' }, '{ deadlineSeconds: 3 }', /cluster "b": .*over its observation budget deadlineSeconds \(3 s\)/);
    repo.remove();
  });

  test('GIVEN a target that trickles its answer one byte at a time forever WHEN synth runs with a 3 s deadline for it THEN the deadline ends it: b stale, c updated, exit 0', async () => {
    const { repo } = await assertStaleButSafe({ kind: 'trickle' }, '{ deadlineSeconds: 3 }', /cluster "b": .*over its observation budget deadlineSeconds \(3 s\)/);
    repo.remove();
  });

  // Issue 33, item 2: every budget counted while the bytes arrive, before a parse. Each answer is some
  // 60 MB (under maxBytesPerList) built to cost the most memory once parsed; the CLI runs with a
  // 256 MB heap, in which parsing any of them whole dies (exit 134, no report, nothing written).
  const worst: readonly [WorstAnswer, string, RegExp][] = [
    ['tiny-items', '20 million {} items', /cluster "b": list services .*over its observation budget maxItemsPerList \(50000\): the list holds more than 50000 items/],
    ['deep-nesting', 'arrays nested 30 million deep', /cluster "b": list services .*over its observation budget maxNestingDepth \(64\)/],
    ['huge-string', 'one 60 MB string', /cluster "b": list services .*over its observation budget maxStringBytes \(2097152\)/],
    ['many-keys', 'one object with 6 million keys', /cluster "b": list services .*over its observation budget maxValuesPerList \(4000000\)/],
  ];
  for (const [shape, what, message] of worst) {
    test(`GIVEN a target answering one page of some 60 MB that holds ${what} WHEN synth runs in a 256 MB heap THEN the answer is refused while it arrives, naming the budget: b stale, c updated, report written, exit 0`, async () => {
      const { repo } = await assertStaleButSafe({ kind: 'worst-answer', shape }, '', message, { NODE_OPTIONS: '--max-old-space-size=256' });
      repo.remove();
    });
  }

  test('GIVEN a target whose trust bundle holds 20,000 garbage blocks (1.4 MB: under maxStringBytes) WHEN synth runs THEN one warning names it, no stack overflow, and both targets are updated', async () => {
    const repo = new SafetyRepo();
    try {
      await baseline(repo, fleetText(''));
      const stand = await startStandInFleet(repo.dir, healthy([service('default', 'api2')]).map((c) => (c.name === 'b' ? { ...c, misbehave: { kind: 'huge-trust-bundle' as const, blocks: 20_000 } } : c)));
      let run: CliRun;
      try {
        run = await repo.run(['synth', '--kubeconfig', stand.kubeconfig]);
      } finally {
        await stand.close();
      }
      assert.equal(run.code, ExitCode.OK, run.stderr);
      assertNoStackTrace(run.stderr);
      const warning = /cluster "b": ConfigMap linkerd\/linkerd-identity-trust-roots holds more than 1000 blocks under "ca-bundle\.crt"/;
      assert.equal(run.report.warnings.filter((w: string) => warning.test(w)).length, 1, run.report.warnings.slice(0, 20).join('\n'));
      assert.ok(run.report.warnings.length < 20, `warnings stay few: ${run.report.warnings.length}`);
      assert.equal(run.report.targets.find((t: any) => t.cluster === 'b').stale, false);
      assert.ok(distFiles(repo).includes('a/from-c/default/service-api2-c.yaml'));
    } finally {
      repo.remove();
    }
  });

  test('GIVEN a source with 200,000 namespaces in one page and a budget that allows them WHEN synth runs THEN it reads them all without a stack overflow: exit 0', async () => {
    const repo = new SafetyRepo();
    try {
      await baseline(repo, fleetText('', '{ maxItemsPerList: 250000 }'));
      const stand = await startStandInFleet(repo.dir, healthy().map((c) => (c.name === 'a' ? { ...c, misbehave: { kind: 'huge-page' as const, items: 200_000, list: 'namespaces' as const } } : c)));
      let run: CliRun;
      try {
        run = await repo.run(['synth', '--kubeconfig', stand.kubeconfig]);
      } finally {
        await stand.close();
      }
      assert.equal(run.code, ExitCode.OK, run.stderr);
      assertNoStackTrace(run.stderr);
      assert.equal(run.report.sources.find((s: any) => s.cluster === 'a').stale, false);
      assert.equal(lock(repo).sources.a.namespaces.length, 200_000);
    } finally {
      repo.remove();
    }
  });

  test('GIVEN a run killed (SIGKILL) while a stalled target holds it mid-observation WHEN the next synth runs THEN it is not blocked by a run lock: exit 0, and the state is the old or the new one', async () => {
    const repo = new SafetyRepo();
    try {
      await baseline(repo, fleetText(''));
      const old = repo.hash();
      const stalled = await startStandInFleet(repo.dir, healthy().map((c) => (c.name === 'b' ? { ...c, misbehave: { kind: 'stall' as const } } : c)));
      try {
        // GIVEN a run waiting on b's stalled list (default 120 s deadline: it is still waiting when killed)
        const run = startProcess([join(REPO_ROOT, 'src', 'cli', 'main.ts'), 'synth', '--kubeconfig', stalled.kubeconfig], repo.dir);
        const deadline = Date.now() + 120_000;
        while (stalled.server('b').openConnections() === 0) {
          assert.ok(Date.now() < deadline, 'the run reached the stalled target');
          await new Promise((r) => setTimeout(r, 100));
        }
        run.child.kill('SIGKILL');
        const ended = await run.done;
        assert.equal(ended.signal, 'SIGKILL');
      } finally {
        await stalled.close();
      }
      assertOneOf(repo.hash(), { old }, 'after the kill');
      // WHEN the next run starts, not waiting for any lock
      const good = await startStandInFleet(repo.dir, healthy([service('default', 'api2')]));
      try {
        const next = await repo.run(['synth', '--wait', '0', '--kubeconfig', good.kubeconfig]);
        // THEN it proceeds and writes
        assert.equal(next.code, ExitCode.OK, next.stderr);
        assert.ok(distFiles(repo).includes('a/from-c/default/service-api2-c.yaml'));
      } finally {
        await good.close();
      }
    } finally {
      repo.remove();
    }
  });
});
