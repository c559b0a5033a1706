/**
 * Hostile and malformed input at the boundary (issue 8): locks that are wrong, hand-edited or
 * crafted; target gateways pointing into the source; one team's Service that could freeze the
 * fleet. Every case runs the real CLI and asserts dist/ + lock (old or new tree, by hash), the exit
 * code, the message, and the --report file. Target cases run against real kube-apiservers.
 */
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { ExitCode } from '../../src/cli/exit-codes.js';
import { observationRules } from '../../src/observe/observation-rbac.js';
import { SERVICE_CIDR, kubeFleetForTests, type KubeFleet } from '../harness/kube-fleet.js';
import { GATEWAY_IDENTITY, applyService, ensureNamespace, installGateway } from '../integration/support.js';
import { SafetyRepo, assertNoStackTrace, assertOneOf, type CliRun } from './support.js';

const EXPORTED = { 'mirror.linkerd.io/exported': 'true' };

/** Asserts exit code, message (stderr) and report of a run, and that no stack trace was printed. */
function assertOutcome(run: CliRun, code: number, message: RegExp, context: string): void {
  assert.equal(run.code, code, `${context}: exit code\n${run.stderr}`);
  assertNoStackTrace(run.stderr);
  assert.match(run.stderr, message, `${context}: message`);
  assert.ok(run.report, `${context}: a report file was written`);
  assert.equal(run.report.exitCode, code, `${context}: report exit code`);
  if (code === ExitCode.OK) assert.equal(run.report.error, null);
  else assert.match(run.report.error ?? '', message, `${context}: report error`);
}

// ---------------------------------------------------------------------------------------------
// Hostile locks: offline runs, so every case is about the lock alone.

const LOCK_FLEET = `const a = new Cluster(fleet, 'a'); const b = new Cluster(fleet, 'b'); new Link(fleet, 'a-from-b', { source: a, target: b });`;

function goodLock(): any {
  return {
    format: 1,
    targets: {
      b: {
        selectors: ['mirror.linkerd.io/exported=remote-discovery', 'mirror.linkerd.io/exported=true', 'mirror.linkerd.io/federated=member'],
        services: [
          { namespace: 'default', name: 'web', labels: { 'mirror.linkerd.io/exported': 'true' }, annotations: {}, type: 'ClusterIP', headless: false, ports: [{ name: 'http', protocol: 'TCP', port: 80 }] },
        ],
        missingExplicitExports: [],
        gateway: { addresses: ['203.0.113.7'], port: 4143, identity: 'gw.example' },
      },
    },
    sources: { a: { namespaces: ['default', 'x'], foreignServices: [] } },
  };
}

const lockCases: [string, (lock: any) => void, RegExp][] = [
  ['targets is a list', (l) => (l.targets = []), /\$\.targets: \[\] is not a record/],
  ['ports is a string', (l) => (l.targets.b.services[0].ports = 'http'), /\$\.targets\.b\.services\[0\]\.ports: "http" is not an array/],
  ['headless is a string', (l) => (l.targets.b.services[0].headless = 'false'), /\$\.targets\.b\.services\[0\]\.headless: "false" is not a boolean/],
  ['gateway port is a string', (l) => (l.targets.b.gateway.port = '4143'), /\$\.targets\.b\.gateway\.port: "4143" is not a port number/],
  ['a label value is a number', (l) => (l.targets.b.services[0].labels.team = 7), /\$\.targets\.b\.services\[0\]\.labels\.team: 7 is not a valid label value/],
  ['namespaces is null', (l) => (l.sources.a.namespaces = null), /\$\.sources\.a\.namespaces: null is not an array/],
  ['traversal namespace ../../x', (l) => (l.targets.b.services[0].namespace = '../../x'), /\$\.targets\.b\.services\[0\]\.namespace: "\.\.\/\.\.\/x" is not a valid namespace name \(a DNS-1123 label/],
  ['newline in a service name', (l) => (l.targets.b.services[0].name = 'web\nkind: Secret'), /\$\.targets\.b\.services\[0\]\.name: "web\\nkind: Secret" is not a valid Service name/],
  ['port 0', (l) => (l.targets.b.services[0].ports[0].port = 0), /\$\.targets\.b\.services\[0\]\.ports\[0\]\.port: 0 is not a port number/],
  ['port 70000', (l) => (l.targets.b.services[0].ports[0].port = 70000), /ports\[0\]\.port: 70000 is not a port number/],
  ['port "80"', (l) => (l.targets.b.services[0].ports[0].port = '80'), /ports\[0\]\.port: "80" is not a port number/],
  ['gateway address is a host name', (l) => (l.targets.b.gateway.addresses = ['gw.example.com']), /\$\.targets\.b\.gateway\.addresses\[0\]: "gw\.example\.com" is not an IP address/],
  ['gateway address is the metadata endpoint', (l) => (l.targets.b.gateway.addresses = ['169.254.169.254']), /\$\.targets\.b\.gateway: address 169\.254\.169\.254 is a link-local address/],
  ['unknown format', (l) => (l.format = 2), /has format 2, but this version reads format 1/],
  ['unknown field', (l) => (l.targets.b.services[0].clusterIP = '10.0.0.1'), /\$\.targets\.b\.services\[0\]: unknown field "clusterIP"/],
  ['traversal cluster key', (l) => (l.targets['../../b'] = l.targets.b), /\$\.targets\["\.\.\/\.\.\/b"\]: key "\.\.\/\.\.\/b" is not a valid cluster name/],
];

describe('hostile and malformed locks', () => {
  for (const [name, edit, message] of lockCases) {
    test(`GIVEN a committed good state and a lock with ${name} WHEN synth runs THEN exit 2 names the JSON path, and dist/ and the lock are untouched`, async () => {
      const repo = new SafetyRepo();
      try {
        // GIVEN a good state from a good lock
        repo.writeFleet(LOCK_FLEET);
        repo.writeLock(goodLock());
        assert.equal((await repo.run(['synth', '--offline'])).code, ExitCode.OK);
        assert.ok(existsSync(join(repo.outDir, 'a', 'default', 'service-web-b.yaml')));
        // AND the lock replaced by a bad one (a bad merge, a hand edit, a hostile commit)
        const lock = goodLock();
        edit(lock);
        repo.writeLock(lock);
        const old = repo.hash();
        // WHEN synth runs
        const run = await repo.run(['synth', '--offline']);
        // THEN it fails with exit 2, the JSON path and what to do, and a report
        assertOutcome(run, ExitCode.INVALID_INPUT, message, name);
        assert.match(run.stderr, /restore it from git, or delete it/);
        // AND nothing was written: not dist/, not the lock, not outside dist/
        assertOneOf(repo.hash(), { old }, name);
        assert.ok(!existsSync(join(repo.dir, 'x')) && !existsSync(join(repo.dir, '..', 'x', 'service-web-b.yaml')), 'nothing outside dist/');
      } finally {
        repo.remove();
      }
    });
  }

  test('GIVEN a lock that is not JSON WHEN plan runs THEN exit 2, nothing written', async () => {
    const repo = new SafetyRepo();
    try {
      repo.writeFleet(LOCK_FLEET);
      repo.writeLock('{"format": 1, "targets": {');
      const old = repo.hash();
      const run = await repo.run(['plan', '--offline']);
      assertOutcome(run, ExitCode.INVALID_INPUT, /is not valid JSON/, 'truncated lock');
      assertOneOf(repo.hash(), { old }, 'truncated lock');
    } finally {
      repo.remove();
    }
  });
});
