/** The safety suite's own tools: a CLI run in a scratch repository, state hashes. */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import YAML from 'yaml';
import { SafetyRepo, assertNoStackTrace, readFiles } from './support.js';

test('GIVEN a scratch fleet repository WHEN synth runs offline twice THEN the first writes the mirror of the exported service and the second leaves dist/ and the lock byte-identical', async () => {
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
    // THEN dist/a/ holds the gateway-mode mirror of b's web (contract: <service>-<target>), listed by
    // its kustomization, pointing at b's gateway: an empty or partial dist/ cannot pass
    // (dist/ also holds each cluster's reader RBAC; this test is about the mirror)
    const files = [...readFiles(repo.outDir).keys()];
    const mirror = ['default/endpoints-web-b.yaml', 'default/endpointslice-web-b-ipv4.yaml', 'default/service-web-b.yaml'];
    const read = (rel: string): any => YAML.parse(readFileSync(join(repo.outDir, rel), 'utf8'));
    // (its delivery unit is from-b: the mirrors of target b)
    assert.deepEqual(mirror.filter((f) => !files.includes(`a/from-b/${f}`)), [], `missing from dist/a/from-b/: ${files.join(', ')}`);
    assert.deepEqual(files.filter((f) => f.includes('web')).sort(), mirror.map((f) => `a/from-b/${f}`), 'no mirror elsewhere');
    assert.deepEqual(mirror.filter((f) => !read('a/from-b/kustomization.yaml').resources.includes(f)), [], 'listed by dist/a/from-b/kustomization.yaml');
    assert.ok(read('a/kustomization.yaml').resources.includes('from-b'), 'the unit is listed by dist/a/kustomization.yaml');
    const svc = read('a/from-b/default/service-web-b.yaml');
    assert.deepEqual([svc.kind, svc.metadata.namespace, svc.metadata.name], ['Service', 'default', 'web-b']);
    assert.deepEqual(svc.spec.ports.map((p: any) => [p.name, p.port]), [['http', 80]]);
    const endpoints = read('a/from-b/default/endpoints-web-b.yaml');
    assert.deepEqual(endpoints.subsets.flatMap((s: any) => s.addresses.map((a: any) => a.ip)), ['203.0.113.7']);
    assert.deepEqual(endpoints.subsets.flatMap((s: any) => s.ports.map((p: any) => p.port)), [4143]);
    const after = repo.hash();
    const second = await repo.run(['synth', '--offline']);
    assert.equal(second.code, 0, second.stderr);
    assert.equal(repo.hash(), after);
  } finally {
    repo.remove();
  }
});
