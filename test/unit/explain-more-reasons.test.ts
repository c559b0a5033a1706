/**
 * `mirrorc explain`: the reasons test/unit/explain.test.ts's fleet does not reach — an explicit
 * export the target lacks, a link whose selector the lock never observed, a failed gateway probe
 * under probe mode not-ready, pods left out of per-pod mirrors and a pinned-IP range with no free
 * address. (A mirror name Kubernetes would refuse cannot come from a lock: its schema refuses such
 * names.) Real files: a fleet file and a lock in a temp
 * folder, explained offline as the CLI does.
 */
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { after, before, test } from 'node:test';
import { ExplainReason } from '../../src/explain/explain-reason.js';
import type { LinkExplanation } from '../../src/explain/explain-service.js';
import { renderLockFile } from '../../src/observe/lock-file.js';
import { runExplain } from '../../src/pipeline/run-explain.js';
import type { FleetSnapshot } from '../../src/snapshot/snapshot.js';
import { service, source, statefulService, target } from '../fixtures/snapshots.js';

const INDEX = resolve('src/index.ts');

/**
 * src mirrors tgt (following pod readiness); src3 mirrors tiny into a pinned range of four addresses;
 * src2 mirrors tgt's team=c services, a selector the lock was never observed with; tgt's gateway is
 * probed with mode not-ready; an ExplicitExport names tgt/shop/ghost.
 */
const FLEET = `import { Cluster, ExplicitExport, Link } from ${JSON.stringify(INDEX)};
export default function (fleet) {
  const src = new Cluster(fleet, 'src', { pinnedServiceIPRange: '10.96.0.0/24' });
  const src2 = new Cluster(fleet, 'src2');
  const src3 = new Cluster(fleet, 'src3', { pinnedServiceIPRange: '10.97.0.0/30' });
  const tgt = new Cluster(fleet, 'tgt', { gateway: { probe: { mode: 'not-ready' } } });
  const tiny = new Cluster(fleet, 'tiny');
  new Link(fleet, 'src-from-tgt', { source: src, target: tgt, followPodReadiness: true });
  new Link(fleet, 'src3-from-tiny', { source: src3, target: tiny });
  new Link(fleet, 'src2-from-tgt', { source: src2, target: tgt, selector: { matchLabels: { team: 'c' } } });
  new ExplicitExport(fleet, 'ghost', { cluster: tgt, namespace: 'shop', name: 'ghost' });
}
`;

const QUERIES = ['mirror.linkerd.io/exported=remote-discovery', 'mirror.linkerd.io/exported=true', 'mirror.linkerd.io/federated=member'];

function lock(): FleetSnapshot {
  return {
    format: 1,
    targets: {
      tgt: target(
        [
          statefulService('db', 'zk', ['zk-0', 'zk-1'], { notReadyHostnames: ['zk-1'] }),
          service('shop', 'web'),
        ],
        { selectors: QUERIES, missingExplicitExports: ['shop/ghost'], gatewayProbe: { alive: false } },
      ),
      tiny: target([statefulService('db', 'kafka', ['kafka-0', 'kafka-1', 'kafka-2', 'kafka-3', 'kafka-4', 'kafka-5'])], { selectors: QUERIES }),
    },
    sources: {
      src: { ...source(['db', 'shop']), pinnedRangeServices: [] },
      src2: source(['shop']),
      src3: { ...source(['db']), pinnedRangeServices: [] },
    },
  };
}

let dir: string;

before(() => {
  dir = mkdtempSync(join(tmpdir(), 'mirrorc-explain-more-'));
  writeFileSync(join(dir, 'fleet.ts'), FLEET);
  writeFileSync(join(dir, 'fleet.lock.json'), renderLockFile(lock()));
  mkdirSync(join(dir, 'dist'));
});
after(() => rmSync(dir, { recursive: true, force: true }));

async function viaLink(ref: string, sourceCluster = 'src'): Promise<LinkExplanation> {
  const outcome = await runExplain({ ref, fleetFile: join(dir, 'fleet.ts'), lockFile: join(dir, 'fleet.lock.json'), outDir: join(dir, 'dist') });
  assert.ok(outcome.ok, outcome.ok ? '' : outcome.error);
  const link = outcome.explanation.links.find((l) => l.source === sourceCluster);
  assert.ok(link, `no link from ${sourceCluster}`);
  return link;
}

const reasonsOf = (l: LinkExplanation): string[] => l.reasons.map((r) => r.reason);

test('an ExplicitExport names a service the target does not have', async () => {
  const l = await viaLink('tgt/shop/ghost');
  assert.equal(l.mirrored, false);
  assert.deepEqual(reasonsOf(l), [ExplainReason.EXPLICIT_EXPORT_MISSING]);
  assert.match(l.reasons[0]!.message, /an ExplicitExport names tgt\/shop\/ghost, but "tgt" has no such Service/);
});

test('a link whose selector the lock was never observed with: explain says so instead of "not exported"', async () => {
  const l = await viaLink('tgt/shop/newcomer', 'src2');
  assert.deepEqual(reasonsOf(l), [ExplainReason.SELECTOR_NOT_OBSERVED]);
  assert.match(l.reasons[0]!.message, /no observation of "tgt" with "team=c"/);
  // the other link's selectors were observed: there the service is simply not exported
  assert.deepEqual(reasonsOf(await viaLink('tgt/shop/newcomer')), [ExplainReason.NOT_EXPORTED]);
});

test('a gateway that failed its probe under mode not-ready: mirrored, with its endpoints written not ready', async () => {
  const l = await viaLink('tgt/shop/web');
  assert.equal(l.mirrored, true);
  assert.ok(reasonsOf(l).includes(ExplainReason.GATEWAY_PROBE_FAILED), JSON.stringify(l.reasons));
});

test('a per-pod mirror following pod readiness: the pods not ready are named', async () => {
  const l = await viaLink('tgt/db/zk');
  assert.equal(l.mirrored, true);
  const pods = l.reasons.find((r) => r.reason === ExplainReason.PODS_NOT_READY);
  assert.ok(pods, JSON.stringify(l.reasons));
  assert.match(pods.message, /zk-1/);
  assert.doesNotMatch(pods.message, /zk-0/);
});

test('a pinned-IP range with no free address left: the per-pod mirror is not compiled, and explain names the range', async () => {
  const l = await viaLink('tiny/db/kafka', 'src3');
  assert.equal(l.mirrored, false);
  assert.deepEqual(reasonsOf(l), [ExplainReason.PINNED_IP_UNAVAILABLE]);
  assert.match(l.reasons[0]!.message, /pinnedServiceIPRange 10\.97\.0\.0\/30 has no free address/);
});
