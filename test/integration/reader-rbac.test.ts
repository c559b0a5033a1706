/**
 * The reader identity that synth writes into dist/<cluster>/ is enough for observation, and every
 * rule of it is needed: applied to real kube-apiservers, a token minted for its ServiceAccount
 * observes the fleet; without a rule, or without the binding, the cluster is reported stale with
 * the permission it lacks. The token lives only in a temp kubeconfig and is never written or logged.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import YAML from 'yaml';
import { ExitCode } from '../../src/errors/exit-codes.js';
import type { FleetDefinition } from '../../src/load/load-fleet.js';
import { OBSERVER_NAME, OBSERVER_NAMESPACE } from '../../src/contract/mirrorc.js';
import { Cluster, Link } from '../../src/model/index.js';
import { observationRules } from '../../src/observe/observation-rbac.js';
import { kubeFleetForTests, type KubeFleet } from '../harness/kube-fleet.js';
import { applyService, applyStatefulService, installGateway, Workspace } from './support.js';

const CLUSTERS = ['london', 'paris'] as const;

const defineFleet: FleetDefinition = (fleet) => {
  new Link(fleet, 'london-from-paris', { source: new Cluster(fleet, 'london', { pinnedServiceIPRange: '10.96.0.0/24' }), target: new Cluster(fleet, 'paris') });
};

interface PolicyRule { apiGroups: string[]; resources: string[]; verbs: string[] }

describe('reader RBAC written by synth, on real API servers', () => {
  let fleet: KubeFleet | undefined;
  let scratch: string;
  let tokenKubeconfig: string;
  const tokens: string[] = [];
  let dist: Workspace;

  before(async (t) => {
    // The harness's own reader gets nothing here: the identity under test is the generated one.
    fleet = await kubeFleetForTests(t as never, [...CLUSTERS], { readerRules: [] });
    if (!fleet) return;
    scratch = mkdtempSync(join(tmpdir(), 'mirrorc-rbac-'));
    await installGateway(fleet, 'paris', '203.0.113.20');
    await applyService(fleet, 'paris', 'default', 'orders', { app: 'orders', 'mirror.linkerd.io/exported': 'true' });
    // A StatefulSet in each role, so that observation reads EndpointSlices in the target and in the source.
    await applyStatefulService(fleet, 'paris', 'default', 'zk', 1, { app: 'zk', 'mirror.linkerd.io/exported': 'true' });
    await applyStatefulService(fleet, 'london', 'default', 'db', 1, { app: 'db', 'mirrorc.io/global': 'true' });

    // GIVEN dist/ compiled by a first synth (as admin, as a bootstrap would) and applied to every cluster
    dist = new Workspace(defineFleet, fleet.kubeconfig('admin'));
    const first = await dist.synth();
    assert.equal(first.exitCode, ExitCode.OK, dist.logs.join('\n'));
    for (const cluster of CLUSTERS) await fleet.kubectl(cluster, ['apply', '--server-side', '--field-manager=gitops', '-k', join(dist.outDir, cluster)]);

    // AND a kubeconfig whose users are tokens minted for the generated ServiceAccount (TokenRequest)
    const admin = YAML.parse(readFileSync(fleet.kubeconfig('admin'), 'utf8'));
    const users = [];
    for (const cluster of CLUSTERS) {
      const token = (await fleet.kubectl(cluster, ['create', 'token', OBSERVER_NAME, '-n', OBSERVER_NAMESPACE, '--duration=1h'])).trim();
      tokens.push(token);
      users.push({ name: `${cluster}-observer`, user: { token } });
    }
    const kubeconfig = {
      ...admin,
      users,
      contexts: CLUSTERS.map((c) => ({ name: c, context: { cluster: c, user: `${c}-observer` } })),
    };
    tokenKubeconfig = join(scratch, 'observer.kubeconfig');
    writeFileSync(tokenKubeconfig, YAML.stringify(kubeconfig), { mode: 0o600 });
  });

  after(async () => {
    await fleet?.stop();
    if (scratch) rmSync(scratch, { recursive: true, force: true });
    dist?.remove();
  });

  /** The generated ClusterRole of a cluster, as written into its dist/ folder. */
  const generatedRole = (cluster: string): { metadata: { name: string }; rules: PolicyRule[] } =>
    YAML.parse(readFileSync(join(dist.outDir, cluster, 'base', 'clusterrole-mirrorc-observer.yaml'), 'utf8'));

  const restoreRoles = async (): Promise<void> => {
    for (const cluster of CLUSTERS) await fleet!.kubectl(cluster, ['apply', '--server-side', '--field-manager=gitops', '-k', join(dist.outDir, cluster)]);
  };

  test('the generated role holds exactly the observation rules of each cluster\'s roles', (t) => {
    if (!fleet) return t.skip('no kube-apiserver');
    assert.deepEqual(generatedRole('london').rules, observationRules({ source: true, target: false }));
    assert.deepEqual(generatedRole('paris').rules, observationRules({ source: false, target: true }));
  });

  test('observation with a token of the generated ServiceAccount succeeds and writes the mirrors', async (t) => {
    if (!fleet) return t.skip('no kube-apiserver');
    const ws = new Workspace(defineFleet, tokenKubeconfig);
    try {
      // WHEN synth runs with only the generated identity
      const result = await ws.synth();
      // THEN no cluster is stale and the mirror is written
      assert.equal(result.exitCode, ExitCode.OK, ws.logs.join('\n'));
      assert.deepEqual(result.stale.map((s) => `${s.role} ${s.cluster}: ${s.error.message}`), []);
      assert.ok(ws.paths('london').includes('default/service-orders-paris.yaml'), ws.paths('london').join(', '));
      // AND the token is nowhere in dist/, the lock or the log
      const haystack = [...ws.files().values(), ...ws.logs].join('\n');
      for (const token of tokens) assert.ok(!haystack.includes(token.slice(-40)), 'a token leaked into the output or log');
    } finally {
      ws.remove();
    }
  });

  test('every verb is needed: without any one of them its cluster is stale with "permission denied … cannot <verb>"', async (t) => {
    if (!fleet) return t.skip('no kube-apiserver');
    try {
      for (const cluster of CLUSTERS) {
        const role = generatedRole(cluster);
        for (const [index, rule] of role.rules.entries()) {
          for (const verb of rule.verbs) {
            // GIVEN the cluster's role without this one verb on this one resource
            const rules = role.rules
              .map((r, i) => (i === index ? { ...r, verbs: r.verbs.filter((v) => v !== verb) } : r))
              .filter((r) => r.verbs.length > 0);
            await fleet.kubectl(cluster, ['apply', '--server-side', '--field-manager=gitops', '-f', '-'], JSON.stringify({ ...role, rules }));
            // WHEN synth runs with the generated identity
            const ws = new Workspace(defineFleet, tokenKubeconfig);
            try {
              const result = await ws.synth();
              // THEN it still writes (stale-but-safe) and names the cluster and the missing permission
              const what = `${cluster} without ${verb} ${rule.resources[0]}`;
              assert.equal(result.exitCode, ExitCode.OK, ws.logs.join('\n'));
              const stale = result.stale.find((s) => s.cluster === cluster);
              assert.ok(stale, `${what}: not reported stale`);
              assert.equal(stale.error.failure, 'forbidden', what);
              assert.match(stale.error.message, new RegExp(`cluster "${cluster}": .*permission denied: .*cannot ${verb} resource "${rule.resources[0]}"`), what);
            } finally {
              ws.remove();
            }
            await restoreRoles();
          }
        }
      }
    } finally {
      await restoreRoles();
    }
  });

  test('the trust roots are readable by name only: no other ConfigMap, no list', async (t) => {
    if (!fleet) return t.skip('no kube-apiserver');
    const as = `--as=system:serviceaccount:${OBSERVER_NAMESPACE}:${OBSERVER_NAME}`;
    // kubectl auth can-i prints "yes" (exit 0) or exits 1 for "no".
    const canI = async (cluster: string, ...args: string[]): Promise<string> =>
      (await fleet!.kubectl(cluster, ['auth', 'can-i', ...args, as]).catch((e: Error) => (/: exit 1\s*$/.test(e.message) ? 'no' : Promise.reject(e)))).trim();
    for (const cluster of CLUSTERS) {
      assert.match(await canI(cluster, 'get', 'configmaps/linkerd-identity-trust-roots', '-n', 'linkerd'), /^yes/, cluster);
      assert.equal(await canI(cluster, 'get', 'configmaps/kube-root-ca.crt', '-n', 'linkerd'), 'no', cluster);
      assert.equal(await canI(cluster, 'list', 'configmaps', '-n', 'linkerd'), 'no', cluster);
      assert.equal(await canI(cluster, 'get', 'secrets', '-A'), 'no', cluster);
    }
  });

  test('without the binding the cluster is stale with a clear message and its mirrors are kept', async (t) => {
    if (!fleet) return t.skip('no kube-apiserver');
    const ws = new Workspace(defineFleet, tokenKubeconfig);
    try {
      // GIVEN a synth that observed both clusters and wrote the mirror
      const first = await ws.synth();
      assert.equal(first.exitCode, ExitCode.OK, ws.logs.join('\n'));
      assert.deepEqual(first.stale, []);
      assert.ok(ws.paths('london').includes('default/service-orders-paris.yaml'));
      const before = ws.files();
      // WHEN the binding is removed from paris
      await fleet.kubectl('paris', ['delete', 'clusterrolebinding', OBSERVER_NAME]);
      const result = await ws.synth();
      // THEN paris is reported stale with the service account and the permission it lacks
      assert.equal(result.exitCode, ExitCode.OK);
      const paris = result.stale.find((s) => s.cluster === 'paris');
      assert.ok(paris, 'paris reported stale');
      assert.equal(paris.error.failure, 'forbidden');
      assert.match(paris.error.message,
        new RegExp(`cluster "paris": list services .*permission denied: .*"system:serviceaccount:${OBSERVER_NAMESPACE}:${OBSERVER_NAME}" cannot list resource "services"`));
      assert.ok(ws.logs.some((l) => l.startsWith('WARNING: 1 cluster observation failed')), ws.logs.join('\n'));
      assert.ok(ws.logs.some((l) => l.includes('target cluster "paris"') && l.includes('permission denied')), ws.logs.join('\n'));
      // AND london is still observed, and nothing on disk changed but the lock's record of when paris became stale
      assert.ok(!result.stale.some((s) => s.cluster === 'london'));
      const after = ws.files();
      // staleSince is the only change, in the observed section of the lock
      const lockAfter = JSON.parse(after.get('LOCK') ?? '{}');
      const { staleSince, ...observedWithoutStaleSince } = lockAfter.observed ?? {};
      const lockWithoutStaleSince = { ...lockAfter, observed: observedWithoutStaleSince };
      assert.deepEqual(Object.keys(staleSince.targets ?? {}), ['paris']);
      assert.deepEqual(lockWithoutStaleSince, JSON.parse(before.get('LOCK') ?? '{}'));
      after.delete('LOCK');
      before.delete('LOCK');
      assert.deepEqual(after, before);
    } finally {
      await restoreRoles();
      ws.remove();
    }
  });

  test('the readiness of exported services alone needs "list endpointslices" in a target; a link that opts out does not', async (t) => {
    if (!fleet) return t.skip('no kube-apiserver');
    // GIVEN paris exports no StatefulSet any more (only orders, an ordinary service), and its role lacks list endpointslices
    await fleet.kubectl('paris', ['label', 'service', 'zk', '-n', 'default', 'mirror.linkerd.io/exported-']);
    const role = generatedRole('paris');
    const rules = role.rules.filter((r) => !r.resources.includes('endpointslices'));
    assert.equal(rules.length, role.rules.length - 1);
    try {
      await fleet.kubectl('paris', ['apply', '--server-side', '--field-manager=gitops', '-f', '-'], JSON.stringify({ ...role, rules }));
      // WHEN synth runs with the generated identity
      const ws = new Workspace(defineFleet, tokenKubeconfig);
      try {
        const result = await ws.synth();
        // THEN paris is stale: reading orders' EndpointSlices (its readiness) is denied
        const paris = result.stale.find((s) => s.cluster === 'paris');
        assert.ok(paris, `paris not stale: ${ws.logs.join('\n')}`);
        assert.match(paris.error.message, /cluster "paris": list endpointslices of service default\/orders: permission denied: .*cannot list resource "endpointslices"/);
      } finally {
        ws.remove();
      }
      // AND with followServiceReadiness: false the same role observes paris
      const optOut: FleetDefinition = (f) => {
        new Link(f, 'london-from-paris', { source: new Cluster(f, 'london', { pinnedServiceIPRange: '10.96.0.0/24' }), target: new Cluster(f, 'paris'), followServiceReadiness: false });
      };
      const ws2 = new Workspace(optOut, tokenKubeconfig);
      try {
        const result = await ws2.synth();
        assert.deepEqual(result.stale.map((s) => `${s.role} ${s.cluster}: ${s.error.message}`), []);
        assert.ok(ws2.paths('london').includes('default/service-orders-paris.yaml'));
      } finally {
        ws2.remove();
      }
    } finally {
      await restoreRoles();
      await fleet.kubectl('paris', ['label', 'service', 'zk', '-n', 'default', 'mirror.linkerd.io/exported=true']);
    }
  });

  test('the target of an MCS link, and only it, needs "list serviceexports"', async (t) => {
    if (!fleet) return t.skip('no kube-apiserver');
    // GIVEN paris with the MCS API's ServiceExport CRD, and a fleet whose link from paris is an MCS link
    await fleet.kubectl('paris', ['apply', '--server-side', '-f', 'test/fixtures/crds/mcs/mcs-serviceexports-crd.yaml']);
    await fleet.kubectl('paris', ['wait', '--for=condition=Established', 'crd/serviceexports.multicluster.x-k8s.io', '--timeout=60s']);
    const mcsFleet: FleetDefinition = (f) => {
      new Link(f, 'london-from-paris', { source: new Cluster(f, 'london', { pinnedServiceIPRange: '10.96.0.0/24' }), target: new Cluster(f, 'paris'), mcs: true });
    };
    const mcsDist = new Workspace(mcsFleet, fleet.kubeconfig('admin'));
    try {
      assert.equal((await mcsDist.synth()).exitCode, ExitCode.OK, mcsDist.logs.join('\n'));
      const role = YAML.parse(readFileSync(join(mcsDist.outDir, 'paris', 'base', 'clusterrole-mirrorc-observer.yaml'), 'utf8'));
      // THEN paris's generated role gains exactly that rule; london's and the non-MCS paris role have none
      const listServiceExports = { apiGroups: ['multicluster.x-k8s.io'], resources: ['serviceexports'], verbs: ['list'] };
      assert.deepEqual(role.rules, [...observationRules({ source: false, target: true }), listServiceExports]);
      assert.deepEqual(role.rules, observationRules({ source: false, target: true, mcsTarget: true }));
      for (const cluster of CLUSTERS) assert.ok(!JSON.stringify(generatedRole(cluster).rules).includes('serviceexports'), cluster);
      const londonRole = YAML.parse(readFileSync(join(mcsDist.outDir, 'london', 'base', 'clusterrole-mirrorc-observer.yaml'), 'utf8'));
      assert.ok(!JSON.stringify(londonRole.rules).includes('serviceexports'));
      // AND london, the MCS link's source, lists ServiceImports (one another controller owns is never taken over)
      assert.deepEqual(londonRole.rules, observationRules({ source: true, target: false, mcsSource: true }));
      assert.ok(JSON.stringify(londonRole.rules).includes('serviceimports'));
      await fleet.kubectl('london', ['apply', '--server-side', '--field-manager=gitops', '-f', '-'], JSON.stringify(londonRole));

      // WHEN paris's role is the MCS one, observation with the generated identity succeeds
      await fleet.kubectl('paris', ['apply', '--server-side', '--field-manager=gitops', '-f', '-'], JSON.stringify(role));
      const ok = new Workspace(mcsFleet, tokenKubeconfig);
      try {
        const result = await ok.synth();
        assert.equal(result.exitCode, ExitCode.OK, ok.logs.join('\n'));
        assert.deepEqual(result.stale.map((s) => `${s.role} ${s.cluster}: ${s.error.message}`), []);
      } finally {
        ok.remove();
      }
      // WHEN it lacks "list serviceexports"
      const without = role.rules.filter((r: PolicyRule) => !r.resources.includes('serviceexports'));
      assert.equal(without.length, role.rules.length - 1);
      await fleet.kubectl('paris', ['apply', '--server-side', '--field-manager=gitops', '-f', '-'], JSON.stringify({ ...role, rules: without }));
      const denied = new Workspace(mcsFleet, tokenKubeconfig);
      try {
        const result = await denied.synth();
        // THEN paris is stale, naming the permission
        assert.equal(result.exitCode, ExitCode.OK, denied.logs.join('\n'));
        const paris = result.stale.find((s) => s.cluster === 'paris');
        assert.ok(paris, `paris not stale: ${denied.logs.join('\n')}`);
        assert.equal(paris.error.failure, 'forbidden');
        assert.match(paris.error.message, /cluster "paris": list serviceexports\.multicluster\.x-k8s\.io in all namespaces: permission denied: .*cannot list resource "serviceexports"/);
      } finally {
        denied.remove();
      }
    } finally {
      await restoreRoles();
      mcsDist.remove();
    }
  });
});
