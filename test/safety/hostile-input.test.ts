/**
 * Hostile and malformed input at the boundary (issue 8): locks that are wrong, hand-edited or
 * crafted; target gateways pointing into the source; one team's Service that could freeze the
 * fleet. Every case runs the real CLI and asserts dist/ + lock (old or new tree, by hash), the exit
 * code, the message, and the --report file. Target cases run against real kube-apiservers.
 */
import assert from 'node:assert/strict';
import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { ExitCode } from '../../src/errors/exit-codes.js';
import { observationRules } from '../../src/observe/observation-rbac.js';
import { SERVICE_CIDR, kubeFleetForTests, type KubeFleet } from '../harness/kube-fleet.js';
import { GATEWAY_IDENTITY, applyService, applyStatefulService, ensureNamespace, installGateway, unitFree } from '../integration/support.js';
import { startStubFleet } from './hostile-apiserver.js';
import { SafetyRepo, assertNoStackTrace, assertOneOf, distObjects, type CliRun } from './support.js';

const EXPORTED = { 'mirror.linkerd.io/exported': 'true' };

/** Asserts exit code, message (stderr, or stdout for plan and check) and report of a run, and that no stack trace was printed. */
function assertOutcome(run: CliRun, code: number, message: RegExp, context: string): void {
  assert.equal(run.code, code, `${context}: exit code\n${run.stderr}`);
  assertNoStackTrace(run.stderr);
  assert.match(`${run.stderr}\n${run.stdout}`, message, `${context}: message`);
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

// The fourth element is what stderr tells the user to do; a lock from a later mirrorc must not be deleted
// (it holds the pinned service IPs), every other bad lock may be restored from git or deleted.
const RESTORE_OR_DELETE = /restore it from git, or delete it/;
const lockCases: [string, (lock: any) => void, RegExp, RegExp?][] = [
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
  ['unknown format', (l) => (l.format = 6), /has format 6, written by a later mirrorc: this one \(.+\) reads formats 1, 2, 3, 4 and 5/, /install the mirrorc that wrote it.*do not delete the lock/],
  ['unknown field', (l) => (l.targets.b.services[0].clusterIP = '10.0.0.1'), /\$\.targets\.b\.services\[0\]: unknown field "clusterIP"/],
  ['traversal cluster key', (l) => (l.targets['../../b'] = l.targets.b), /\$\.targets\["\.\.\/\.\.\/b"\]: key "\.\.\/\.\.\/b" is not a valid cluster name/],
];

describe('hostile and malformed locks', () => {
  for (const [name, edit, message, todo = RESTORE_OR_DELETE] of lockCases) {
    test(`GIVEN a committed good state and a lock with ${name} WHEN synth runs THEN exit 2 names the JSON path, and dist/ and the lock are untouched`, async () => {
      const repo = new SafetyRepo();
      try {
        // GIVEN a good state from a good lock
        repo.writeFleet(LOCK_FLEET);
        repo.writeLock(goodLock());
        assert.equal((await repo.run(['synth', '--offline'])).code, ExitCode.OK);
        assert.ok(existsSync(join(repo.outDir, 'a', 'from-b', 'default', 'service-web-b.yaml')));
        // AND the lock replaced by a bad one (a bad merge, a hand edit, a hostile commit)
        const lock = goodLock();
        edit(lock);
        repo.writeLock(lock);
        const old = repo.hash();
        // WHEN synth runs
        const run = await repo.run(['synth', '--offline']);
        // THEN it fails with exit 2, the JSON path and what to do, and a report
        assertOutcome(run, ExitCode.INVALID_INPUT, message, name);
        assert.match(run.stderr, todo);
        if (todo !== RESTORE_OR_DELETE) assert.doesNotMatch(run.stderr, RESTORE_OR_DELETE);
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

// ---------------------------------------------------------------------------------------------
// Against real kube-apiservers: london mirrors paris and east-paris; east-paris mirrors paris.
// "web" of east-paris and "web-east" of paris both become "web-east-paris" in london.

const NAMESPACES = ['gw', 'long', 'clash', 'owner', 'foreign', 'pinned'];

const LIVE_FLEET = `
  const london = new Cluster(fleet, 'london', { serviceCidrs: [${JSON.stringify(SERVICE_CIDR)}], pinnedServiceIPRange: '10.96.0.0/24' });
  const paris = new Cluster(fleet, 'paris');
  const eastParis = new Cluster(fleet, 'east-paris');
  new Link(fleet, 'london-from-paris', { source: london, target: paris });
  new Link(fleet, 'london-from-east-paris', { source: london, target: eastParis });
  new Link(fleet, 'east-paris-from-paris', { source: eastParis, target: paris });
`;

describe('hostile targets against real API servers', () => {
  let fleet: KubeFleet | undefined;

  before(async (t) => {
    fleet = await kubeFleetForTests(t as never, ['london', 'paris', 'east-paris'], { readerRules: observationRules({ source: true, target: true }) });
    if (!fleet) return;
    await installGateway(fleet, 'paris', '203.0.113.10');
    await installGateway(fleet, 'east-paris', '198.51.100.30');
    for (const cluster of ['london', 'paris', 'east-paris']) for (const ns of NAMESPACES) await ensureNamespace(fleet, cluster, ns);
  });

  after(async () => {
    await fleet?.stop();
  });

  /** A scratch repository for the live fleet, and the CLI args that reach it. */
  const liveRepo = (): { repo: SafetyRepo; synth: (...extra: string[]) => Promise<CliRun> } => {
    const repo = new SafetyRepo();
    repo.writeFleet(LIVE_FLEET);
    const kubeconfig = fleet!.kubeconfig('reader');
    return { repo, synth: (...extra) => repo.run([...(extra[0] === 'check' || extra[0] === 'plan' ? [extra.shift()!] : ['synth']), '--kubeconfig', kubeconfig, ...extra]) };
  };

  const deleteService = (cluster: string, namespace: string, name: string): Promise<unknown> =>
    fleet!.kubectl(cluster, ['delete', 'service', name, '-n', namespace, '--ignore-not-found']);

  // An object of the output by its own `<kind>-<name>.yaml` path without the delivery unit folder (`london/gw/endpoints-web-paris.yaml`,
  // wherever its unit puts it, in whichever mirror's file holds it): see distObjects.
  const file = (repo: SafetyRepo, rel: string): string | undefined => distObjects(repo.outDir).get(rel);

  const gatewayCases: [string, () => Promise<void>, RegExp][] = [
    ['ingress 127.0.0.1', () => installGateway(fleet!, 'paris', '127.0.0.1'), /cluster "paris": REJECTED its gateway 127\.0\.0\.1:4143 .*is a loopback address.*keeping the last known gateway 203\.0\.113\.10:4143/],
    ['ingress 169.254.169.254', () => installGateway(fleet!, 'paris', '169.254.169.254'), /cluster "paris": REJECTED its gateway 169\.254\.169\.254:4143 .*link-local address \(169\.254\.169\.254 is the cloud metadata endpoint\).*keeping the last known gateway/],
    ['ingress 10.96.0.1 (the source\'s kubernetes Service, inside its declared serviceCidrs)', () => installGateway(fleet!, 'paris', '10.96.0.1'), /cluster "paris": REJECTED its gateway 10\.96\.0\.1:4143 .*lies inside the Service range 10\.96\.0\.0\/16 of source cluster "london"/],
    ['its identity annotation removed', () => fleet!.kubectl('paris', ['annotate', 'service', 'linkerd-gateway', '-n', 'linkerd-multicluster', 'mirror.linkerd.io/gateway-identity-']) as Promise<unknown> as Promise<void>, new RegExp(`cluster "paris": REJECTED its gateway 203\\.0\\.113\\.10:4143 \\(no identity\\): it lost its identity ${GATEWAY_IDENTITY.replace(/\./g, '\\.')}`)],
  ];
  for (const [name, change, message] of gatewayCases) {
    test(`GIVEN a target gateway with ${name} WHEN synth runs THEN the last known gateway is kept: exit 0, a loud warning, dist/ and the lock unchanged`, async (t) => {
      if (!fleet) return t.skip('no kube-apiserver');
      const { repo, synth } = liveRepo();
      try {
        // GIVEN paris exports gw/web, synthesised with its good gateway
        await applyService(fleet, 'paris', 'gw', 'web', { app: 'web', ...EXPORTED });
        const first = await synth();
        assertOutcome(first, ExitCode.OK, /london/, 'baseline');
        assert.match(file(repo, 'london/gw/endpoints-web-paris.yaml') ?? '', /ip: 203\.0\.113\.10/);
        const old = repo.hash();
        // WHEN the paris team points its gateway somewhere it must not go, and synth runs
        await change();
        const run = await synth();
        // THEN exit 0, the warning names target, address and reason, in stderr and in the report
        assertOutcome(run, ExitCode.OK, message, name);
        assert.ok(run.report.warnings.some((w: string) => message.test(w)), run.report.warnings.join('\n'));
        // AND dist/ and the lock are exactly the old tree: the mirrors still point at the good gateway
        assertOneOf(repo.hash(), { old }, name);
      } finally {
        await installGateway(fleet, 'paris', '203.0.113.10');
        await fleet.kubectl('paris', ['annotate', 'service', 'linkerd-gateway', '-n', 'linkerd-multicluster', '--overwrite', `mirror.linkerd.io/gateway-identity=${GATEWAY_IDENTITY}`]);
        await deleteService('paris', 'gw', 'web');
        repo.remove();
      }
    });
  }

  test('GIVEN a target gateway whose port changes WHEN synth runs THEN the new port is taken with a warning, and the new tree is complete', async (t) => {
    if (!fleet) return t.skip('no kube-apiserver');
    const { repo, synth } = liveRepo();
    try {
      await applyService(fleet, 'paris', 'gw', 'web', { app: 'web', ...EXPORTED });
      assertOutcome(await synth(), ExitCode.OK, /london/, 'baseline');
      const old = repo.hash();
      // WHEN the gateway moves to port 4144
      await installGateway(fleet, 'paris', '203.0.113.10', 4144);
      const plan = await synth('plan');
      // THEN plan shows the warning and the change, and writes nothing
      assertOutcome(plan, ExitCode.OK, /cluster "paris": its gateway port changed from 4143 to 4144/, 'plan');
      assertOneOf(repo.hash(), { old }, 'plan');
      const run = await synth();
      assertOutcome(run, ExitCode.OK, /cluster "paris": its gateway port changed from 4143 to 4144/, 'port change');
      const now = assertOneOf(repo.hash(), { old, new: repo.hash() }, 'port change');
      assert.equal(now, 'new');
      assert.match(file(repo, 'london/gw/endpoints-web-paris.yaml') ?? '', /port: 4144/);
      // AND the written tree is exactly what synth writes: check passes
      assertOutcome(await synth('check'), ExitCode.OK, /up to date/, 'check after');
    } finally {
      await installGateway(fleet, 'paris', '203.0.113.10');
      await deleteService('paris', 'gw', 'web');
      repo.remove();
    }
  });

  test('GIVEN one target Service with a 60-character name WHEN synth runs THEN only it is skipped; --strict fails with exit 3 and writes nothing', async (t) => {
    if (!fleet) return t.skip('no kube-apiserver');
    const { repo, synth } = liveRepo();
    const long = `l${'o'.repeat(58)}g`;
    try {
      await applyService(fleet, 'paris', 'long', 'before', { app: 'before', ...EXPORTED });
      assertOutcome(await synth(), ExitCode.OK, /london/, 'baseline');
      const old = repo.hash();
      // GIVEN paris adds a 60-character service, and paris and east-paris add ordinary ones
      await applyService(fleet, 'paris', 'long', long, { app: 'long', ...EXPORTED });
      await applyService(fleet, 'paris', 'long', 'fresh', { app: 'fresh', ...EXPORTED });
      await applyService(fleet, 'east-paris', 'long', 'other', { app: 'other', ...EXPORTED });
      // WHEN synth runs with --strict THEN exit 3 names the service, and nothing is written
      const strict = await synth('--strict');
      assertOutcome(strict, ExitCode.COMPILE_ERROR, new RegExp(`london: the gateway-mode mirror of paris/long/${long} would be named "${long}-paris" \\(66 characters\\)`), 'strict');
      assertOneOf(repo.hash(), { old }, 'strict');
      // WHEN synth runs without --strict
      const run = await synth();
      // THEN exit 0 with a warning naming the service and what to do
      assertOutcome(run, ExitCode.OK, new RegExp(`paris/long/${long} would be named .*\\(66 characters\\).*shorten the service or cluster name.*is skipped, the other mirrors are updated`), 'isolated');
      // AND every other mirror of every source cluster is updated
      for (const rel of ['london/long/service-fresh-paris.yaml', 'london/long/service-other-east-paris.yaml', 'east-paris/long/service-fresh-paris.yaml', 'london/long/service-before-paris.yaml']) {
        assert.ok(file(repo, rel), `${rel} written`);
      }
      assert.ok(![...readFiles(repo), ...distObjects(repo.outDir).keys()].some((p) => p.includes(long)), 'no file, and no object in another file, for the long service');
      assert.deepEqual(unitFree(run.report.sources.find((s: any) => s.cluster === 'london').added).filter((f: string) => f.startsWith('long/service-')), ['long/service-fresh-paris.yaml', 'long/service-other-east-paris.yaml']);
      assertOneOf(repo.hash(), { old, new: repo.hash() }, 'isolated');
      assertOutcome(await synth('check'), ExitCode.OK, /up to date/, 'check after');
    } finally {
      for (const name of [long, 'fresh', 'before']) await deleteService('paris', 'long', name);
      await deleteService('east-paris', 'long', 'other');
      repo.remove();
    }
  });

  test('GIVEN two new target services whose mirrors clash WHEN synth runs THEN both are skipped, the rest of the fleet updates; --strict exits 3', async (t) => {
    if (!fleet) return t.skip('no kube-apiserver');
    const { repo, synth } = liveRepo();
    try {
      assertOutcome(await synth(), ExitCode.OK, /london/, 'baseline');
      const old = repo.hash();
      // GIVEN paris/clash/web-east and east-paris/clash/web (both "web-east-paris" in london), and an ordinary newcomer
      await applyService(fleet, 'paris', 'clash', 'web-east', { app: 'a', ...EXPORTED });
      await applyService(fleet, 'east-paris', 'clash', 'web', { app: 'b', ...EXPORTED });
      await applyService(fleet, 'paris', 'clash', 'fresh', { app: 'fresh', ...EXPORTED });
      const strict = await synth('--strict');
      assertOutcome(strict, ExitCode.COMPILE_ERROR, /london: .*would both be mirrored as Service clash\/web-east-paris/, 'strict');
      assertOneOf(repo.hash(), { old }, 'strict');
      // WHEN synth runs
      const run = await synth();
      // THEN neither takes the name, with a warning naming both; the newcomer is mirrored everywhere
      assertOutcome(run, ExitCode.OK, /london: east-paris\/clash\/web and paris\/clash\/web-east would all be mirrored as Service clash\/web-east-paris.*none of them has that mirror yet, so all are skipped/, 'clash');
      assert.equal(file(repo, 'london/clash/service-web-east-paris.yaml'), undefined);
      assert.ok(file(repo, 'london/clash/service-fresh-paris.yaml'));
      assert.ok(file(repo, 'east-paris/clash/service-fresh-paris.yaml'));
      assert.ok(file(repo, 'east-paris/clash/service-web-east-paris.yaml'), 'no clash in east-paris: mirrored there');
      assertOneOf(repo.hash(), { old, new: repo.hash() }, 'clash');
    } finally {
      await deleteService('paris', 'clash', 'web-east');
      await deleteService('paris', 'clash', 'fresh');
      await deleteService('east-paris', 'clash', 'web');
      repo.remove();
    }
  });

  test('GIVEN a mirror in dist/ WHEN another target team creates a service clashing with it THEN the existing owner keeps the name and the newcomer is skipped', async (t) => {
    if (!fleet) return t.skip('no kube-apiserver');
    const { repo, synth } = liveRepo();
    try {
      // GIVEN paris/owner/api-east mirrored in london as api-east-paris
      await applyService(fleet, 'paris', 'owner', 'api-east', { app: 'api', ...EXPORTED });
      assertOutcome(await synth(), ExitCode.OK, /london/, 'baseline');
      const mirror = file(repo, 'london/owner/service-api-east-paris.yaml');
      assert.match(mirror ?? '', /mirror\.linkerd\.io\/remote-svc-fq-name: api-east\.owner\.svc\.cluster\.local/);
      const old = repo.hash();
      // WHEN east-paris creates owner/api (also "api-east-paris" in london) and synth runs
      await applyService(fleet, 'east-paris', 'owner', 'api', { app: 'hijack', ...EXPORTED });
      const run = await synth();
      // THEN exit 0; the existing mirror is byte-identical and the newcomer is named as skipped
      assertOutcome(run, ExitCode.OK, /london: .*would all be mirrored as Service owner\/api-east-paris.*paris\/owner\/api-east has that mirror already and keeps it, so east-paris\/owner\/api is skipped/, 'owner');
      assert.equal(file(repo, 'london/owner/service-api-east-paris.yaml'), mirror);
      assert.deepEqual(run.report.sources.find((s: any) => s.cluster === 'london').removed, []);
      // AND only the lock changed (it records the new service); dist/ is the complete new tree
      assertOneOf(repo.hash(), { old, new: repo.hash() }, 'owner');
      assertOutcome(await synth('check'), ExitCode.OK, /up to date/, 'check after');
    } finally {
      await deleteService('paris', 'owner', 'api-east');
      await deleteService('east-paris', 'owner', 'api');
      repo.remove();
    }
  });

  test('GIVEN a source Service, not written by mirrorc, holding a mirror name WHEN synth runs THEN only that mirror is skipped in that source', async (t) => {
    if (!fleet) return t.skip('no kube-apiserver');
    const { repo, synth } = liveRepo();
    try {
      assertOutcome(await synth(), ExitCode.OK, /london/, 'baseline');
      const old = repo.hash();
      await applyService(fleet, 'london', 'foreign', 'svc-paris', { app: 'mine' });
      await applyService(fleet, 'paris', 'foreign', 'svc', { app: 'svc', ...EXPORTED });
      await applyService(fleet, 'paris', 'foreign', 'fresh', { app: 'fresh', ...EXPORTED });
      const run = await synth();
      assertOutcome(run, ExitCode.OK, /london: the mirror of paris\/foreign\/svc would be Service foreign\/svc-paris, which already exists in "london" and was not written by mirrorc.*paris\/foreign\/svc is skipped/, 'foreign');
      assert.equal(file(repo, 'london/foreign/service-svc-paris.yaml'), undefined);
      assert.ok(file(repo, 'london/foreign/service-fresh-paris.yaml'));
      assert.ok(file(repo, 'east-paris/foreign/service-svc-paris.yaml'), 'east-paris has no such Service: mirrored there');
      assertOneOf(repo.hash(), { old, new: repo.hash() }, 'foreign');
    } finally {
      await deleteService('london', 'foreign', 'svc-paris');
      await deleteService('paris', 'foreign', 'svc');
      await deleteService('paris', 'foreign', 'fresh');
      repo.remove();
    }
  });

  test('GIVEN a pinned per-pod IP taken by a Service mirrorc did not write WHEN synth runs THEN only that StatefulSet is skipped and its IP stays in the lock; --strict exits 3', async (t) => {
    if (!fleet) return t.skip('no kube-apiserver');
    const { repo, synth } = liveRepo();
    try {
      // GIVEN zk (1 pod) in paris, synthesised once: zk-0-paris is pinned in london but not yet synced there
      await applyStatefulService(fleet, 'paris', 'pinned', 'zk', 1, { app: 'zk', ...EXPORTED }, 2181);
      assertOutcome(await synth(), ExitCode.OK, /london/, 'baseline');
      const ip = JSON.parse(readFileSync(repo.lockFile, 'utf8')).compiled.pinnedServiceIPs.london['pinned/zk-0-paris'] as string;
      assert.ok(file(repo, 'london/pinned/service-zk-0-paris.yaml'));
      // AND someone creates a Service in london with exactly that ClusterIP, and paris adds a service
      await applyService(fleet, 'london', 'pinned', 'squatter', { app: 'squatter' }, { spec: { clusterIP: ip } });
      await applyService(fleet, 'paris', 'pinned', 'fresh', { app: 'fresh', ...EXPORTED });
      const old = repo.hash();
      const held = new RegExp(`london: ClusterIP ${ip.replace(/\./g, '\\.')}, pinned for per-pod mirror pinned/zk-0-paris .* is held by Service pinned/squatter, which mirrorc did not write`);
      // WHEN synth runs with --strict THEN exit 3, nothing written
      assertOutcome(await synth('--strict'), ExitCode.COMPILE_ERROR, held, 'strict');
      assertOneOf(repo.hash(), { old }, 'strict');
      // WHEN synth runs without it THEN exit 0: zk is skipped with that message, fresh is mirrored
      const run = await synth();
      assertOutcome(run, ExitCode.OK, held, 'isolated');
      assert.match(run.stderr, /paris\/pinned\/zk is skipped, the other mirrors are updated/);
      assert.equal(file(repo, 'london/pinned/service-zk-0-paris.yaml'), undefined);
      assert.ok(file(repo, 'london/pinned/service-fresh-paris.yaml'));
      // AND the lock still remembers zk-0-paris's IP, so it gets it back once the squatter is gone
      assert.equal(JSON.parse(readFileSync(repo.lockFile, 'utf8')).compiled.pinnedServiceIPs.london['pinned/zk-0-paris'], ip);
      assertOneOf(repo.hash(), { old, new: repo.hash() }, 'isolated');
    } finally {
      await deleteService('london', 'pinned', 'squatter');
      await deleteService('paris', 'pinned', 'fresh');
      await deleteService('paris', 'pinned', 'zk');
      await fleet.kubectl('paris', ['delete', 'endpointslice', 'zk-abcde', '-n', 'pinned', '--ignore-not-found']);
      repo.remove();
    }
  });
});

/** Every file path under the repository's dist/. */
function readFiles(repo: SafetyRepo): string[] {
  const out: string[] = [];
  const walk = (rel: string): void => {
    for (const entry of readdirSync(join(repo.outDir, rel))) {
      const path = rel ? `${rel}/${entry}` : entry;
      if (statSync(join(repo.outDir, path)).isDirectory()) walk(path);
      else out.push(path);
    }
  };
  if (existsSync(repo.outDir)) walk('');
  return out;
}

// ---------------------------------------------------------------------------------------------
// A broken or hostile apiserver: real ones reject these names, so a stub answers instead.

/** A Service object as an apiserver would return it. */
function stubService(namespace: string, name: string, extra: { labels?: Record<string, string>; annotations?: Record<string, string>; port?: number; type?: string; ingress?: string } = {}): unknown {
  return {
    metadata: { namespace, name, labels: extra.labels ?? EXPORTED, annotations: extra.annotations ?? {} },
    spec: { type: extra.type ?? 'ClusterIP', clusterIP: '10.0.0.1', ports: [{ name: extra.type === 'LoadBalancer' ? 'mc-gateway' : 'http', protocol: 'TCP', port: extra.port ?? 80 }] },
    ...(extra.ingress ? { status: { loadBalancer: { ingress: [{ ip: extra.ingress }] } } } : {}),
  };
}

const STUB_FLEET = `const a = new Cluster(fleet, 'a'); const b = new Cluster(fleet, 'b'); new Link(fleet, 'a-from-b', { source: a, target: b });`;
const stubGateway = (port: number, identity: string): unknown =>
  stubService('linkerd-multicluster', 'linkerd-gateway', { labels: {}, annotations: { 'mirror.linkerd.io/gateway-identity': identity }, port, type: 'LoadBalancer', ingress: '203.0.113.7' });

describe('a hostile apiserver', () => {
  test('GIVEN a target apiserver returning Services with a traversal namespace, a newline name and a bad port WHEN synth runs THEN each is skipped with a warning, the good one is mirrored, nothing lands outside dist/', async () => {
    const repo = new SafetyRepo();
    const stubs = await startStubFleet(repo.dir, [
      { name: 'a', services: [], namespaces: ['default', '../../etc'] },
      {
        name: 'b',
        namespaces: ['default'],
        services: [
          stubService('../../x', 'web'),
          stubService('default', 'web\nkind: Secret'),
          stubService('default', 'bad-port', { port: 70000 }),
          stubService('default', 'bad-label', { labels: { ...EXPORTED, team: 'a\nb' } }),
          stubService('default', 'good'),
          stubGateway(4143, 'gw.example'),
        ],
      },
    ]);
    try {
      repo.writeFleet(STUB_FLEET);
      const old = repo.hash();
      const run = await repo.run(['synth', '--kubeconfig', stubs.kubeconfig]);
      assertOutcome(run, ExitCode.OK, /cluster "b": Service "\.\.\/\.\.\/x"\/"web" is skipped, because .*is not a valid namespace name/, 'hostile services');
      for (const needle of [/"web\\nkind: Secret" is not a valid Service name/, /"bad-port" is skipped, because .*70000 is not a port number/, /"bad-label" is skipped, because .*is not a valid label value/, /cluster "a": a namespace is skipped, because "\.\.\/\.\.\/etc" is not a valid namespace name/]) {
        assert.ok(run.report.warnings.some((w: string) => needle.test(w)), `${needle}\n${run.report.warnings.join('\n')}`);
      }
      // THEN only the good service is mirrored, and nothing was written outside dist/
      const files = readFiles(repo);
      assert.ok(files.includes('a/from-b/default/service-good-b.yaml'), files.join('\n'));
      assert.ok(![...files, ...distObjects(repo.outDir).keys()].some((f) => f.includes('web') || f.includes('bad-')), files.join('\n'));
      assert.ok(!existsSync(join(repo.dir, 'x')) && !existsSync(join(repo.dir, '..', 'x')), 'nothing outside dist/');
      const now = assertOneOf(repo.hash(), { old, new: repo.hash() }, 'hostile services');
      assert.equal(now, 'new');
      // AND the lock written from this observation reads back: an offline run is byte-identical
      assertOutcome(await repo.run(['synth', '--offline']), ExitCode.OK, /up to date/, 'offline after');
      assertOneOf(repo.hash(), { new: repo.hash() }, 'offline after');
    } finally {
      await stubs.close();
      repo.remove();
    }
  });

  for (const [name, gateway, message] of [
    ['port 0', stubGateway(0, 'gw.example'), /cluster "b": REJECTED its gateway 203\.0\.113\.7:0 .*port 0 is not a port number.*keeping the last known gateway 203\.0\.113\.7:4143/],
    ['an identity with a newline', stubGateway(4143, 'gw.example\nx'), /cluster "b": REJECTED its gateway .*identity "gw\.example\\nx" is not a valid gateway identity.*keeping the last known gateway/],
  ] as const) {
    test(`GIVEN a target apiserver whose gateway has ${name} WHEN synth runs THEN the last known gateway is kept: exit 0, warning, dist/ and lock unchanged`, async () => {
      const repo = new SafetyRepo();
      const good = await startStubFleet(repo.dir, [{ name: 'a', services: [], namespaces: ['default'] }, { name: 'b', namespaces: ['default'], services: [stubService('default', 'good'), stubGateway(4143, 'gw.example')] }]);
      try {
        repo.writeFleet(STUB_FLEET);
        assertOutcome(await repo.run(['synth', '--kubeconfig', good.kubeconfig]), ExitCode.OK, /a\//, 'baseline');
      } finally {
        await good.close();
      }
      const old = repo.hash();
      const hostile = await startStubFleet(repo.dir, [{ name: 'a', services: [], namespaces: ['default'] }, { name: 'b', namespaces: ['default'], services: [stubService('default', 'good'), gateway] }]);
      try {
        const run = await repo.run(['synth', '--kubeconfig', hostile.kubeconfig]);
        assertOutcome(run, ExitCode.OK, message, name);
        assertOneOf(repo.hash(), { old }, name);
      } finally {
        await hostile.close();
        repo.remove();
      }
    });
  }
});
