/** The safety suite's own tools: a CLI run in a scratch repository, state hashes. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { SafetyRepo, assertNoStackTrace } from './support.js';

test('GIVEN a scratch fleet repository WHEN synth runs offline twice THEN the second run leaves dist/ and the lock byte-identical', async () => {
  const repo = new SafetyRepo();
  try {
    repo.writeFleet(`const a = new Cluster(fleet, 'a'); const b = new Cluster(fleet, 'b'); new Link(fleet, 'a-from-b', { source: a, target: b });`);
    repo.writeLock({ format: 1, targets: { b: { selectors: ['mirror.linkerd.io/exported=remote-discovery', 'mirror.linkerd.io/exported=true'], services: [
      { namespace: 'default', name: 'web', labels: { 'mirror.linkerd.io/exported': 'true' }, annotations: {}, type: 'ClusterIP', headless: false, ports: [{ name: 'http', protocol: 'TCP', port: 80 }] },
    ], missingExplicitExports: [], gateway: { addresses: ['203.0.113.7'], port: 4143, identity: 'gw.example' } } }, sources: { a: { namespaces: ['default'], foreignServices: [] } } });
    const first = await repo.run(['synth', '--offline']);
    assert.equal(first.code, 0, first.stderr);
    assertNoStackTrace(first.stderr);
    assert.equal(first.report.exitCode, 0);
    const after = repo.hash();
    const second = await repo.run(['synth', '--offline']);
    assert.equal(second.code, 0, second.stderr);
    assert.equal(repo.hash(), after);
  } finally {
    repo.remove();
  }
});
