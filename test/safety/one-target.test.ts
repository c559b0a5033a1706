/**
 * One target's change stays that target's (issue 16, findings 2, 6, 7, 8, 10), against real
 * kube-apiservers: the gateway probe never connects where the gateway checks say no; a target
 * rotating to a trust root its source does not share is held back while the rest of the fleet
 * updates; an established mirror keeps its generic gateway port; a ServiceImport another
 * controller owns is never written over; system namespaces are not mirrored by default. Every case
 * runs the real CLI and asserts dist/ + lock (by hash or by file), the exit code, the message and
 * the --report file.
 */
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { networkInterfaces } from 'node:os';
import { after, before, describe, test } from 'node:test';
import { ExitCode } from '../../src/errors/exit-codes.js';
import { observationRules } from '../../src/observe/observation-rbac.js';
import { gatewayAddressProblem } from '../../src/observe/gateway-checks.js';
import { nonPublicAddress } from '../../src/observe/probe-policy.js';
import { canonicalJson } from '../../src/util/canonical-json.js';
import { SERVICE_CIDR, kubeFleetForTests, type KubeFleet } from '../harness/kube-fleet.js';
import { applyService, ensureNamespace, installGateway } from '../integration/support.js';
import { SafetyRepo, assertNoStackTrace, assertOneOf, distObjects, type CliRun } from './support.js';

const EXPORTED = { 'mirror.linkerd.io/exported': 'true' };
const ROOT_A = readFileSync('test/fixtures/trust-roots/root-a.crt', 'utf8');
const ROOT_B = readFileSync('test/fixtures/trust-roots/root-b.crt', 'utf8');

/** Asserts exit code, message (stderr/stdout, and among the report's warnings when exit 0) and report, and that no stack trace was printed. */
function assertOutcome(run: CliRun, code: number, message: RegExp, context: string): void {
  assert.equal(run.code, code, `${context}: exit code\n${run.stderr}`);
  assertNoStackTrace(run.stderr);
  assert.match(`${run.stderr}\n${run.stdout}`, message, `${context}: message`);
  assert.ok(run.report, `${context}: a report file was written`);
  assert.equal(run.report.exitCode, code, `${context}: report exit code`);
  if (code === ExitCode.OK) {
    assert.equal(run.report.error, null);
    assert.ok(run.report.warnings.some((w: string) => message.test(w)), `${context}: report warnings\n${run.report.warnings.join('\n')}`);
  } else assert.match(run.report.error ?? '', message, `${context}: report error`);
}

/** Asserts a run succeeded, with a report saying so. */
function assertOk(run: CliRun, context: string): void {
  assert.equal(run.code, ExitCode.OK, `${context}: exit code\n${run.stderr}`);
  assert.equal(run.report?.exitCode, ExitCode.OK, `${context}: report`);
}

/** An HTTP server (on 127.0.0.1 unless told) that counts every TCP connection and every request path, answering `status` with `body`. */
class CountingListener {
  public connections = 0;
  public readonly requests: string[] = [];
  public status = 200;
  public body = 'ok';
  private readonly server: Server = createServer((req, res) => {
    this.requests.push(req.url ?? '');
    res.writeHead(this.status, { 'content-type': 'text/plain' }).end(this.body);
  });

  public constructor(private readonly host = '127.0.0.1') {}

  public async start(): Promise<number> {
    this.server.on('connection', () => this.connections++);
    await new Promise<void>((resolve) => this.server.listen(0, this.host, resolve));
    return (this.server.address() as AddressInfo).port;
  }

  public stop(): Promise<void> {
    this.server.closeAllConnections();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}

/**
 * An address of one of this machine's interfaces that is not public and that the gateway checks
 * accept (192.0.2.2 here, a 10.x or 172.x address on most runners): a listener there is reached by
 * a probe to it, so counting its connections proves the probe policy refused it.
 */
function localNonPublicAddress(): string {
  const candidates = Object.values(networkInterfaces()).flatMap((list) => list ?? []).filter((a) => !a.internal).map((a) => a.address)
    .filter((a) => nonPublicAddress(a) !== undefined && gatewayAddressProblem(a) === undefined);
  const ip = candidates.find((a) => !a.includes(':')) ?? candidates[0];
  assert.ok(ip, `this test needs an address on a network interface of this machine that is not public and not loopback or link-local; found ${JSON.stringify(networkInterfaces())}`);
  return ip;
}

describe('one target\'s change stays that target\'s (real API servers)', () => {
  let fleet: KubeFleet | undefined;
  let kubeconfig = '';

  before(async (t) => {
    fleet = await kubeFleetForTests(t as never, ['london', 'paris', 'rome'], { readerRules: observationRules({ source: true, target: true, mcsTarget: true, mcsSource: true }) });
    if (!fleet) return;
    kubeconfig = fleet.kubeconfig('reader');
    await installGateway(fleet, 'paris', '203.0.113.10');
    await installGateway(fleet, 'rome', '198.51.100.30');
    for (const crd of ['mcs-serviceimports-crd.yaml', 'mcs-serviceexports-crd.yaml']) await fleet.kubectl('london', ['apply', '--server-side', '-f', `test/fixtures/crds/mcs/${crd}`]);
    await fleet.kubectl('london', ['wait', '--for=condition=Established', 'crd/serviceimports.multicluster.x-k8s.io', '--timeout=60s']);
    for (const cluster of ['london', 'paris', 'rome']) for (const ns of ['shop', 'probe', 'ports', 'mcs', 'sys']) await ensureNamespace(fleet, cluster, ns);
  });

  after(async () => {
    await fleet?.stop();
  });

  const newRepo = (body: string): { repo: SafetyRepo; synth: (...extra: string[]) => Promise<CliRun> } => {
    const repo = new SafetyRepo();
    repo.writeFleet(body);
    return { repo, synth: (...extra) => repo.run([...(extra[0] === 'check' || extra[0] === 'plan' ? [extra.shift()!] : ['synth']), '--kubeconfig', kubeconfig, ...extra]) };
  };
  // An object of the output by its own `<kind>-<name>.yaml` path without the delivery unit folder (`london/shop/endpoints-web-paris.yaml`,
  // wherever its unit puts it, in whichever mirror's file holds it): see distObjects.
  const file = (repo: SafetyRepo, rel: string): string | undefined => distObjects(repo.outDir).get(rel);
  const deleteService = (cluster: string, namespace: string, name: string): Promise<unknown> =>
    fleet!.kubectl(cluster, ['delete', 'service', name, '-n', namespace, '--ignore-not-found']);
  const annotateGateway = (cluster: string, ...annotations: string[]): Promise<unknown> =>
    fleet!.kubectl(cluster, ['annotate', '--overwrite', 'service', 'linkerd-gateway', '-n', 'linkerd-multicluster', ...annotations]);
  const setTrustRoots = async (cluster: string, pems: string[]): Promise<void> => {
    await ensureNamespace(fleet!, cluster, 'linkerd');
    const configMap = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'linkerd-identity-trust-roots', namespace: 'linkerd' }, data: { 'ca-bundle.crt': pems.join('') } };
    await fleet!.kubectl(cluster, ['apply', '--server-side', '--force-conflicts', '--field-manager=test', '-f', '-'], JSON.stringify(configMap));
  };

  test('finding 2: GIVEN a probed gateway that moves to 127.0.0.1, then 169.254.169.254, with a target-chosen probe port and path WHEN synth runs THEN no connection reaches it, the gateway is rejected and not probed; the fleet-named probe address is probed', async (t) => {
    if (!fleet) return t.skip('no kube-apiserver');
    const rejected = new CountingListener();
    const named = new CountingListener();
    const rejectedPort = await rejected.start();
    const namedPort = await named.start();
    const { repo, synth } = newRepo(`
      const london = new Cluster(fleet, 'london', { serviceCidrs: [${JSON.stringify(SERVICE_CIDR)}] });
      new Link(fleet, 'london-from-paris', { source: london, target: new Cluster(fleet, 'paris', { gateway: { probe: { mode: 'not-ready' } } }) });
      new Link(fleet, 'london-from-rome', { source: london, target: new Cluster(fleet, 'rome', { gateway: { probe: { address: '127.0.0.1:${namedPort}' } } }) });
    `);
    try {
      // GIVEN paris exports probe/api, its gateway at 203.0.113.10 (not public, and no range allowed: not probed); rome's gateway probe-annotated, probed at the fleet-named address
      await applyService(fleet, 'paris', 'probe', 'api', { app: 'api', ...EXPORTED });
      await applyService(fleet, 'rome', 'probe', 'web', { app: 'web', ...EXPORTED });
      await annotateGateway('rome', 'mirror.linkerd.io/probe-path=/ready', 'mirror.linkerd.io/probe-period=1');
      assertOutcome(await synth(), ExitCode.OK, /cluster "paris": gateway Service linkerd-multicluster\/linkerd-gateway: the probe sends no request to 203\.0\.113\.10 \(a documentation address/, 'baseline');
      // THEN the fleet-named address was probed (the positive case)
      assert.ok(named.requests.includes('/ready'), `rome's named probe address got ${JSON.stringify(named.requests)}`);
      assert.ok(file(repo, 'london/probe/service-api-paris.yaml'));
      const old = repo.hash();
      // WHEN paris's team points its gateway's mc-probe port at the listener and asks for a probe path
      await fleet.kubectl('paris', ['patch', 'service', 'linkerd-gateway', '-n', 'linkerd-multicluster', '--type=json', '-p', JSON.stringify([{ op: 'replace', path: '/spec/ports/1/port', value: rejectedPort }])]);
      await annotateGateway('paris', 'mirror.linkerd.io/probe-path=/latest/meta-data/iam/security-credentials/', 'mirror.linkerd.io/probe-period=1');
      for (const [address, reason] of [['127.0.0.1', 'is a loopback address'], ['169.254.169.254', 'is a link-local address']] as const) {
        // AND its gateway's address at the one the checks reject
        await fleet.kubectl('paris', ['patch', 'service', 'linkerd-gateway', '-n', 'linkerd-multicluster', '--subresource=status', '--type=merge', '-p', JSON.stringify({ status: { loadBalancer: { ingress: [{ ip: address }] } } })]);
        const run = await synth();
        // THEN no connection ever reached the listener
        assert.equal(rejected.connections, 0, `connections to the rejected gateway's probe port (${address}):\n${run.stderr}`);
        // AND exit 0: the gateway is rejected, the last known one kept, and it is not probed
        assertOutcome(run, ExitCode.OK, new RegExp(`cluster "paris": REJECTED its gateway ${address.replace(/\./g, '\\.')}:4143 .*${reason}`), address);
        assertOutcome(run, ExitCode.OK, /cluster "paris": gateway Service linkerd-multicluster\/linkerd-gateway is not probed, because its gateway is rejected/, address);
        // AND neither the target's path nor any status appears in the output
        assert.doesNotMatch(`${run.stderr}${JSON.stringify(run.report)}`, /security-credentials|HTTP \d{3}/);
        // AND dist/ and the lock are the old state: paris's mirror still points at its good gateway, ready
        assertOneOf(repo.hash(), { old }, address);
        assert.match(file(repo, 'london/probe/endpoints-api-paris.yaml') ?? '', /ip: 203\.0\.113\.10/);
      }
    } finally {
      await fleet.kubectl('paris', ['delete', 'service', 'linkerd-gateway', '-n', 'linkerd-multicluster', '--ignore-not-found']);
      await installGateway(fleet, 'paris', '203.0.113.10');
      await annotateGateway('rome', 'mirror.linkerd.io/probe-path-', 'mirror.linkerd.io/probe-period-');
      await deleteService('paris', 'probe', 'api');
      await deleteService('rome', 'probe', 'web');
      await rejected.stop();
      await named.stop();
      repo.remove();
    }
  });

  test('issue 33 item 5: GIVEN a probed gateway at a private address of this machine, with a target-chosen probe path WHEN synth runs THEN no connection reaches it until the fleet allows its range; then only the fleet\'s path is requested, and the answer\'s text reaches neither the output nor the lock', async (t) => {
    if (!fleet) return t.skip('no kube-apiserver');
    // A listener the probe WOULD reach: an address of this machine that is not public and that the gateway checks accept
    const ip = localNonPublicAddress();
    const gatewayListener = new CountingListener(ip);
    const named = new CountingListener();
    const gatewayPort = await gatewayListener.start();
    const namedPort = await named.start();
    const fleetBody = (paris: string, rome: string): string => `
      const london = new Cluster(fleet, 'london', { serviceCidrs: [${JSON.stringify(SERVICE_CIDR)}] });
      new Link(fleet, 'london-from-paris', { source: london, target: new Cluster(fleet, 'paris', { gateway: { probe: { mode: 'not-ready'${paris} } } }) });
      new Link(fleet, 'london-from-rome', { source: london, target: new Cluster(fleet, 'rome', { gateway: { probe: { address: '127.0.0.1:${namedPort}'${rome} } } }) });
    `;
    const { repo, synth } = newRepo(fleetBody('', ''));
    const HOSTILE_PATH = '/latest/meta-data/iam/security-credentials/';
    try {
      // GIVEN paris's gateway at that address, its mc-probe port on the listener, and both targets asking for a probe path of their choosing
      await applyService(fleet, 'paris', 'probe', 'api', { app: 'api', ...EXPORTED });
      await applyService(fleet, 'rome', 'probe', 'web', { app: 'web', ...EXPORTED });
      await fleet.kubectl('paris', ['patch', 'service', 'linkerd-gateway', '-n', 'linkerd-multicluster', '--type=json', '-p', JSON.stringify([{ op: 'replace', path: '/spec/ports/1/port', value: gatewayPort }])]);
      await fleet.kubectl('paris', ['patch', 'service', 'linkerd-gateway', '-n', 'linkerd-multicluster', '--subresource=status', '--type=merge', '-p', JSON.stringify({ status: { loadBalancer: { ingress: [{ ip }] } } })]);
      for (const cluster of ['paris', 'rome']) await annotateGateway(cluster, `mirror.linkerd.io/probe-path=${HOSTILE_PATH}`, 'mirror.linkerd.io/probe-period=1');

      // WHEN synth runs with no probe range declared
      const closed = await synth();
      // THEN no connection reached paris's gateway address, and a warning says why and what to do
      assert.equal(gatewayListener.connections, 0, `connections to ${ip}:${gatewayPort}:\n${closed.stderr}`);
      assertOutcome(closed, ExitCode.OK, new RegExp(`cluster "paris": gateway Service linkerd-multicluster/linkerd-gateway: the probe sends no request to ${ip.replace(/[.:]/g, '\\$&')} \\(.*\\): an address that is not public is probed only inside gateway\\.probe\\.allowedCidrs; it is not probed, and its mirrors stay ready.*add its range to gateway\\.probe\\.allowedCidrs`), 'closed');
      // AND the fleet-named address got Linkerd's path, never the one rome's team chose
      assert.deepEqual([...new Set(named.requests)], ['/ready'], 'rome\'s named probe address');
      // AND paris's mirror is written ready, with no probe verdict in the lock
      assert.match(file(repo, 'london/probe/endpoints-api-paris.yaml') ?? '', new RegExp(`addresses:\\n\\s+- ip: ${ip.replace(/[.:]/g, '\\$&')}`));
      assert.equal(JSON.parse(readFileSync(repo.lockFile, 'utf8')).observed.targets.paris.gatewayProbe, undefined);

      // WHEN the fleet allows paris's address for probing and names a path for both, and the gateway answers 503 with hostile text
      gatewayListener.status = 503;
      gatewayListener.body = '::error::pwned-by-probe\n\u001b[31m::stop-commands::evil\r';
      repo.writeFleet(fleetBody(`, allowedCidrs: ['${ip}/${ip.includes(':') ? 128 : 32}'], path: '/healthz'`, ", path: '/healthz'"));
      named.requests.length = 0;
      const open = await synth();
      // THEN the probe reached paris's address, only ever on the fleet's path
      assert.ok(gatewayListener.connections > 0, `paris's allowed address was probed:\n${open.stderr}`);
      assert.deepEqual([...new Set(gatewayListener.requests)], ['/healthz']);
      assert.deepEqual([...new Set(named.requests)], ['/healthz']);
      // AND the failed probe writes paris's mirror not ready, naming the status only
      assertOutcome(open, ExitCode.OK, /cluster "paris": gateway Service linkerd-multicluster\/linkerd-gateway failed its probe 3 times \(.*answered HTTP 503\); its gateway-mode mirrors are written NOT READY/, 'open');
      assert.match(file(repo, 'london/probe/endpoints-api-paris.yaml') ?? '', /notReadyAddresses/);
      // AND the lock holds the verdict alone; neither the answer's text nor the target's path is in the lock, the output or the report
      const lockText = readFileSync(repo.lockFile, 'utf8');
      assert.deepEqual(JSON.parse(lockText).observed.targets.paris.gatewayProbe, { alive: false });
      for (const [what, text] of [['lock', lockText], ['stderr', closed.stderr + open.stderr], ['stdout', closed.stdout + open.stdout], ['report', JSON.stringify([closed.report, open.report])]] as const) {
        assert.doesNotMatch(text, /pwned-by-probe|stop-commands|security-credentials/, what);
      }
    } finally {
      await fleet.kubectl('paris', ['delete', 'service', 'linkerd-gateway', '-n', 'linkerd-multicluster', '--ignore-not-found']);
      await installGateway(fleet, 'paris', '203.0.113.10');
      await annotateGateway('rome', 'mirror.linkerd.io/probe-path-', 'mirror.linkerd.io/probe-period-');
      await deleteService('paris', 'probe', 'api');
      await deleteService('rome', 'probe', 'web');
      await gatewayListener.stop();
      await named.stop();
      repo.remove();
    }
  });

  test('finding 6: GIVEN paris rotates to a trust root london does not share WHEN synth runs THEN paris alone is held back (mirrors and lock entry kept, named warning), rome\'s new export goes through, exit 0; --confirm-removals removes paris\'s mirrors', async (t) => {
    if (!fleet) return t.skip('no kube-apiserver');
    const { repo, synth } = newRepo(`
      const london = new Cluster(fleet, 'london');
      new Link(fleet, 'london-from-paris', { source: london, target: new Cluster(fleet, 'paris') });
      new Link(fleet, 'london-from-rome', { source: london, target: new Cluster(fleet, 'rome') });
    `);
    try {
      // GIVEN every cluster trusts root A; paris exports cart and orders, rome exports search
      for (const cluster of ['london', 'paris', 'rome']) await setTrustRoots(cluster, [ROOT_A]);
      for (const name of ['cart', 'orders']) await applyService(fleet, 'paris', 'shop', name, { app: name, ...EXPORTED });
      await applyService(fleet, 'rome', 'shop', 'search', { app: 'search', ...EXPORTED });
      assertOk(await synth(), 'baseline');
      const parisMirrors = ['shop/service-cart-paris.yaml', 'shop/service-orders-paris.yaml'].map((p) => file(repo, `london/${p}`));
      assert.ok(parisMirrors.every((m) => m !== undefined));
      const oldLock = JSON.parse(readFileSync(repo.lockFile, 'utf8'));
      // WHEN paris rotates to root B alone (london trusts only A) and rome's team adds an export
      await setTrustRoots('paris', [ROOT_B]);
      await applyService(fleet, 'rome', 'shop', 'fresh', { app: 'fresh', ...EXPORTED });
      const run = await synth();
      // THEN exit 0, and the warning names paris, what it would remove and why
      assertOutcome(run, ExitCode.OK, /cluster "paris" is HELD BACK: its new observation would remove 2 of its 2 mirrors in "london"; letting it through would remove all 2 mirror Services of "paris" in "london", more than the removal guard allows; what its new observation causes: .*"london" and "paris" share no Linkerd trust root.*--confirm-removals/, 'rotation');
      // AND paris's mirrors are byte-identical and its lock entry is the last observation; rome's new export is mirrored and locked
      assert.deepEqual(['shop/service-cart-paris.yaml', 'shop/service-orders-paris.yaml'].map((p) => file(repo, `london/${p}`)), parisMirrors);
      assert.ok(file(repo, 'london/shop/service-fresh-rome.yaml'), 'rome\'s new export is mirrored');
      const lock = JSON.parse(readFileSync(repo.lockFile, 'utf8'));
      assert.deepEqual(lock.observed.targets.paris, oldLock.observed.targets.paris);
      assert.ok(lock.observed.targets.rome.services.some((s: { name: string }) => s.name === 'fresh'));
      assert.deepEqual(run.report.sources.find((s: any) => s.cluster === 'london').removed, []);
      // AND the state is complete: check agrees (paris is held back again the same way)
      assertOutcome(await synth('check'), ExitCode.OK, /HELD BACK/, 'check');
      // WHEN the user confirms THEN paris's mirrors go
      const confirmed = await synth('--confirm-removals');
      assert.equal(confirmed.code, ExitCode.OK, confirmed.stderr);
      assert.equal(file(repo, 'london/shop/service-cart-paris.yaml'), undefined);
      assert.ok(file(repo, 'london/shop/service-fresh-rome.yaml'));
    } finally {
      for (const name of ['cart', 'orders']) await deleteService('paris', 'shop', name);
      for (const name of ['search', 'fresh']) await deleteService('rome', 'shop', name);
      for (const cluster of ['london', 'paris', 'rome']) await fleet.kubectl(cluster, ['delete', 'configmap', 'linkerd-identity-trust-roots', '-n', 'linkerd', '--ignore-not-found']);
      repo.remove();
    }
  });

  test('finding 7: GIVEN a mirrored service on a generic gateway port WHEN a new service claims that port THEN the established mirror keeps it, the newcomer is skipped with a warning, other changes go through', async (t) => {
    if (!fleet) return t.skip('no kube-apiserver');
    const { repo, synth } = newRepo(`
      const london = new Cluster(fleet, 'london');
      new Link(fleet, 'london-from-rome', { source: london, target: new Cluster(fleet, 'rome', { gateway: { kind: 'generic' } }) });
    `);
    const port = (p: number): Record<string, unknown> => ({ annotations: { 'mirrorc.io/gateway-port': String(p) } });
    try {
      // GIVEN rome's ports/api on generic gateway port 31001, mirrored in london
      await applyService(fleet, 'rome', 'ports', 'api', { app: 'api', ...EXPORTED }, port(31001));
      assertOk(await synth(), 'baseline');
      const mirror = ['service', 'endpoints', 'endpointslice'].map((kind) => file(repo, `london/ports/${kind}-api-rome${kind === 'endpointslice' ? '-ipv4' : ''}.yaml`));
      assert.ok(mirror.every((m) => m !== undefined));
      assert.match(mirror[1]!, /port: 31001/);
      // WHEN another team's new service claims port 31001, and an ordinary one takes 31002
      await applyService(fleet, 'rome', 'ports', 'newcomer', { app: 'newcomer', ...EXPORTED }, port(31001));
      await applyService(fleet, 'rome', 'ports', 'other', { app: 'other', ...EXPORTED }, port(31002));
      const run = await synth();
      // THEN exit 0; the established mirror is byte-identical, the newcomer named and skipped, the other mirrored
      assertOutcome(run, ExitCode.OK, /rome\/ports\/newcomer: gateway port 31001 of cluster "rome" is also given to ports\/api, which has that mirror already and keeps the port.*rome\/ports\/newcomer is not mirrored/, 'port claim');
      assert.deepEqual(['service', 'endpoints', 'endpointslice'].map((kind) => file(repo, `london/ports/${kind}-api-rome${kind === 'endpointslice' ? '-ipv4' : ''}.yaml`)), mirror);
      assert.equal(file(repo, 'london/ports/service-newcomer-rome.yaml'), undefined);
      assert.ok(file(repo, 'london/ports/service-other-rome.yaml'));
      assert.deepEqual(run.report.sources.find((s: any) => s.cluster === 'london').removed, []);
      // AND it stays that way on the next run (the established owner is read from dist/ each time)
      assertOutcome(await synth('check'), ExitCode.OK, /is also given to ports\/api, which has that mirror already/, 'check');
    } finally {
      for (const name of ['api', 'newcomer', 'other']) await deleteService('rome', 'ports', name);
      repo.remove();
    }
  });

  test('finding 8: GIVEN a ServiceImport another controller owns in london WHEN an MCS link would import that name THEN it is skipped with a warning and never written; the other import is written', async (t) => {
    if (!fleet) return t.skip('no kube-apiserver');
    const { repo, synth } = newRepo(`
      new Link(fleet, 'london-from-paris', { source: new Cluster(fleet, 'london'), target: new Cluster(fleet, 'paris'), mcs: true });
    `);
    const theirs = { apiVersion: 'multicluster.x-k8s.io/v1alpha1', kind: 'ServiceImport', metadata: { name: 'taken', namespace: 'mcs' }, spec: { type: 'ClusterSetIP', ports: [{ name: 'http', protocol: 'TCP', port: 8443 }] } };
    try {
      // GIVEN another MCS controller's ServiceImport mcs/taken in london, and paris exporting mcs/taken and mcs/cart
      await fleet.kubectl('london', ['apply', '--server-side', '--field-manager=other-mcs-controller', '-f', '-'], JSON.stringify(theirs));
      for (const name of ['taken', 'cart']) await applyService(fleet, 'paris', 'mcs', name, { app: name, ...EXPORTED });
      const old = repo.hash();
      // WHEN synth runs with --strict THEN exit 3, nothing written
      assertOutcome(await synth('--strict'), ExitCode.COMPILE_ERROR, /london: ServiceImport mcs\/taken already exists in "london" and was not written by mirrorc/, 'strict');
      assertOneOf(repo.hash(), { old }, 'strict');
      // WHEN synth runs THEN exit 0, the warning names the import, and only cart's import is written
      const run = await synth();
      assertOutcome(run, ExitCode.OK, /london: ServiceImport mcs\/taken already exists in "london" and was not written by mirrorc \(another controller owns it\).*paris\/mcs\/taken is not imported/, 'foreign import');
      assert.equal(file(repo, 'london/mcs/serviceimport-taken.yaml'), undefined);
      assert.equal(file(repo, 'london/mcs/endpointslice-taken-paris-mcs-ipv4.yaml'), undefined);
      assert.ok(file(repo, 'london/mcs/serviceimport-cart.yaml'));
      // AND the lock records the foreign import, and london's generated reader role may list ServiceImports
      assert.deepEqual(JSON.parse(readFileSync(repo.lockFile, 'utf8')).observed.sources.london.foreignServiceImports, [{ namespace: 'mcs', name: 'taken' }]);
      assert.match(file(repo, 'london/clusterrole-mirrorc-observer.yaml') ?? '', /serviceimports/);
      // AND the other controller's object is untouched in london
      assert.match(await fleet.kubectl('london', ['get', 'serviceimport', 'taken', '-n', 'mcs', '-o', 'json']), /"port": 8443/);
    } finally {
      await fleet.kubectl('london', ['delete', 'serviceimport', 'taken', '-n', 'mcs', '--ignore-not-found']);
      for (const name of ['taken', 'cart']) await deleteService('paris', 'mcs', name);
      repo.remove();
    }
  });

  test('finding 10 (and issue 33 item 6, federated members): GIVEN exports and federated members in a target\'s kube-system, linkerd and linkerd-multicluster WHEN synth runs THEN they are not mirrored (Linkerd, MCS or <svc>-federated), each named in a warning; a link with mirrorSystemNamespaces mirrors them', async (t) => {
    if (!fleet) return t.skip('no kube-apiserver');
    const body = (optIn: boolean): string => `
      const london = new Cluster(fleet, 'london');
      new Link(fleet, 'london-from-paris', { source: london, target: new Cluster(fleet, 'paris')${optIn ? ', mirrorSystemNamespaces: true' : ''} });
      new Link(fleet, 'london-from-rome', { source: london, target: new Cluster(fleet, 'rome'), mcs: true });
    `;
    const { repo, synth } = newRepo(body(false));
    for (const ns of ['linkerd', 'linkerd-multicluster']) await ensureNamespace(fleet, 'london', ns);
    const system = [['kube-system', 'dns-cache'], ['linkerd', 'sys-web'], ['linkerd-multicluster', 'sys-api']] as const;
    const FEDERATED = { 'mirror.linkerd.io/federated': 'member' };
    try {
      for (const [ns, name] of system) for (const cluster of ['paris', 'rome']) await applyService(fleet, cluster, ns, name, { app: name, ...EXPORTED });
      // Federated members of paris in the same system namespaces, one elsewhere, and london's own member in its kube-system
      for (const [ns, name] of system) await applyService(fleet, 'paris', ns, `fed-${name}`, { app: `fed-${name}`, ...FEDERATED });
      await applyService(fleet, 'paris', 'sys', 'fed-ok', { app: 'fed-ok', ...FEDERATED });
      await applyService(fleet, 'london', 'kube-system', 'fed-local', { app: 'fed-local', ...FEDERATED });
      await applyService(fleet, 'paris', 'sys', 'ok', { app: 'ok', ...EXPORTED });
      await applyService(fleet, 'rome', 'sys', 'ok-mcs', { app: 'ok-mcs', ...EXPORTED });
      const run = await synth();
      // exit 0; the report holds each full warning (below), stderr names each skipped service (with this many findings, on one line)
      assertOk(run, 'system');
      assertNoStackTrace(run.stderr);
      assert.ok(run.report.warnings.some((w: string) => /london: "kube-system" is a system namespace of "paris", so paris\/kube-system\/dns-cache is not mirrored; set mirrorSystemNamespaces: true on link fleet\/london-from-paris/.test(w)), run.report.warnings.join('\n'));
      for (const [ns, name] of system) for (const cluster of ['paris', 'rome']) assert.match(run.stderr, new RegExp(`${cluster}/${ns}/${name}\\b`), `${cluster}/${ns}/${name}`);
      for (const name of ['paris/kube-system/fed-dns-cache', 'paris/linkerd/fed-sys-web', 'paris/linkerd-multicluster/fed-sys-api', 'london/kube-system/fed-local']) assert.match(run.stderr, new RegExp(`${name}\\b`), name);
      for (const [ns, name] of system) {
        for (const cluster of ['paris', 'rome']) {
          assert.ok(run.report.warnings.some((w: string) => w.startsWith(`london: "${ns}" is a system namespace of "${cluster}", so ${cluster}/${ns}/${name} is not mirrored`)), `${cluster}/${ns}\n${run.report.warnings.join('\n')}`);
        }
        assert.equal(file(repo, `london/${ns}/service-${name}-paris.yaml`), undefined);
        assert.equal(file(repo, `london/${ns}/serviceimport-${name}.yaml`), undefined, 'no bare-named MCS import in a system namespace');
        assert.ok(run.report.warnings.some((w: string) => w.startsWith(`london: "${ns}" is a system namespace of "paris", so paris/${ns}/fed-${name} is not mirrored`)), `federated ${ns}\n${run.report.warnings.join('\n')}`);
        assert.equal(file(repo, `london/${ns}/service-fed-${name}-federated.yaml`), undefined, `no federated Service in london's ${ns}`);
      }
      assert.ok(run.report.warnings.some((w: string) => w.startsWith('london: its federated Service kube-system/fed-local-federated would go to "kube-system", a system namespace of "london", so london/kube-system/fed-local is not mirrored')), run.report.warnings.join('\n'));
      assert.equal(file(repo, 'london/kube-system/service-fed-local-federated.yaml'), undefined);
      assert.ok(file(repo, 'london/sys/service-fed-ok-federated.yaml'));
      assert.ok(file(repo, 'london/sys/service-ok-paris.yaml'));
      assert.ok(file(repo, 'london/sys/serviceimport-ok-mcs.yaml'));
      // WHEN the paris link opts in THEN paris's system services are mirrored, rome's (MCS, not opted in) still are not
      repo.writeFleet(body(true));
      const optIn = await synth();
      assert.equal(optIn.code, ExitCode.OK, optIn.stderr);
      for (const [ns, name] of system) {
        assert.ok(file(repo, `london/${ns}/service-${name}-paris.yaml`), `${ns}/${name}`);
        assert.equal(file(repo, `london/${ns}/serviceimport-${name}.yaml`), undefined);
        assert.ok(file(repo, `london/${ns}/service-fed-${name}-federated.yaml`), `federated ${ns}/${name}`);
      }
      // london's own member alone still makes none in its kube-system: no member's link brings it
      assert.equal(file(repo, 'london/kube-system/service-fed-local-federated.yaml'), undefined);
    } finally {
      for (const [ns, name] of system) for (const cluster of ['paris', 'rome']) await deleteService(cluster, ns, name);
      for (const [ns, name] of system) await deleteService('paris', ns, `fed-${name}`);
      await deleteService('paris', 'sys', 'fed-ok');
      await deleteService('london', 'kube-system', 'fed-local');
      await deleteService('paris', 'sys', 'ok');
      await deleteService('rome', 'sys', 'ok-mcs');
      repo.remove();
    }
  });
  test('issue 33 finding 1: GIVEN ten targets (more than the old limit of 8 candidates), nine dropping 1 of their 10 mirrors and one dropping 35 of its 40, and another new service WHEN synth runs THEN only the one is held back, and it is stale (staleSince, report, job summary); the nine\'s changes and the new service go through; --strict exits 4; --max-stale exits 9; --confirm-removals lets it through', async (t) => {
    if (!fleet) return t.skip('no kube-apiserver');
    // Ten target clusters of the fleet file, each a context on paris's real API server with its own
    // export selector (one label value per target): ten observations, ten lock entries, one server.
    const nine = ['alpha', 'bravo', 'charlie', 'delta', 'foxtrot', 'golf', 'hotel', 'india', 'juliet'];
    const culprit = 'echo'; // sorts in the middle: neither first nor last by name
    const label = 'issue33-team';
    const { repo, synth } = newRepo(`
      const london = new Cluster(fleet, 'london');
      for (const name of ${JSON.stringify([...nine, culprit])}) {
        new Link(fleet, 'london-from-' + name, { source: london, target: new Cluster(fleet, name, { access: { context: 'paris' } }), selector: { matchLabels: { ${JSON.stringify(label)}: name } } });
      }
    `);
    const services = (team: string, count: number, from = 0): string[] => Array.from({ length: count }, (_, i) => `${team}-s${from + i}`);
    const apply = (team: string, names: readonly string[]): Promise<unknown> => fleet!.kubectl('paris', ['apply', '-f', '-'], JSON.stringify({
      apiVersion: 'v1',
      kind: 'List',
      items: names.map((name) => ({ apiVersion: 'v1', kind: 'Service', metadata: { name, namespace: 'issue33', labels: { [label]: team } }, spec: { selector: { app: name }, ports: [{ name: 'http', port: 80, targetPort: 8080 }] } })),
    }));
    const remove = (names: readonly string[]): Promise<unknown> => fleet!.kubectl('paris', ['delete', 'service', '-n', 'issue33', '--ignore-not-found', ...names]);
    const mirrors = (target: string): string[] => [...distObjects(repo.outDir).keys()].filter((k) => k.startsWith('london/issue33/service-') && k.endsWith(`-${target}.yaml`)).sort();
    const summary = `${repo.dir}/step-summary.md`;
    try {
      // GIVEN nine targets with 10 exports each and echo with 40: 130 mirrors in london
      for (const cluster of ['paris', 'london']) await ensureNamespace(fleet, cluster, 'issue33');
      for (const team of nine) await apply(team, services(team, 10));
      await apply(culprit, services(culprit, 40));
      assertOk(await synth(), 'baseline');
      assert.equal(mirrors(culprit).length, 40);
      const echoMirrors = mirrors(culprit).map((k) => distObjects(repo.outDir).get(k));
      const oldLock = JSON.parse(readFileSync(repo.lockFile, 'utf8'));
      // WHEN each of the nine drops 1 export (9 of 130: allowed), echo drops 35 (44 of 130 together: 34 %; alone 27 %, also after the
      // nine went through: 35 of 131), and alpha adds one. (With the 25 of 30, echo alone would be within the share rule and
      // let through by the next run: test/unit/hold-back-targets.test.ts has those numbers.)
      await remove([...nine.map((team) => `${team}-s0`), ...services(culprit, 35)]);
      await apply('alpha', ['alpha-fresh']);
      const run = await repo.run(['synth', '--kubeconfig', kubeconfig, '--max-stale', '24h'], { env: { GITHUB_STEP_SUMMARY: summary } });
      // THEN exit 0 and echo alone is held back, named with what it removes and what letting it through would remove
      assertOutcome(run, ExitCode.OK, /cluster "echo" is HELD BACK: its new observation would remove 35 of its 40 mirrors in "london"; letting it through would remove 44 of the 130 mirror Services in "london" \(more than 25 %\), more than the removal guard allows;.*stale/, 'ten targets');
      assert.deepEqual(run.report.warnings.filter((w: string) => /HELD BACK/.test(w)).length, 1, run.report.warnings.join('\n'));
      // AND echo's mirrors and lock entry are as last observed; the nine lost their one mirror each; alpha's new export is mirrored
      assert.deepEqual(mirrors(culprit).map((k) => distObjects(repo.outDir).get(k)), echoMirrors);
      for (const team of nine) assert.equal(mirrors(team).length, team === 'alpha' ? 10 : 9, team);
      assert.ok(file(repo, 'london/issue33/service-alpha-fresh-alpha.yaml'), 'alpha\'s new export is mirrored');
      const lock = JSON.parse(readFileSync(repo.lockFile, 'utf8'));
      assert.deepEqual(lock.observed.targets[culprit], oldLock.observed.targets[culprit]);
      // AND echo is stale: staleSince in the lock and the report, `held back` in the report, the summary and the job summary
      const since: string = lock.observed.staleSince?.targets?.[culprit];
      assert.match(since ?? '', /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
      assert.deepEqual(Object.keys(lock.observed.staleSince.targets), [culprit]);
      const echo = run.report.targets.find((x: any) => x.cluster === culprit);
      assert.equal(echo.stale, true);
      assert.equal(echo.staleSince, since);
      assert.equal(echo.reachable, true);
      assert.match(echo.heldBack, /^its new observation would remove 35 of its 40 mirrors in "london"/);
      for (const team of nine) assert.deepEqual([run.report.targets.find((x: any) => x.cluster === team).stale, run.report.targets.find((x: any) => x.cluster === team).heldBack], [false, undefined], team);
      assert.match(run.stdout + run.stderr, /echo\s+held back \(stale\)\s+40\s+\d{4}-/);
      assert.match(readFileSync(summary, 'utf8'), new RegExp(`\\| echo \\| target \\| ${since} \\| held back: \` its new observation would remove 35 of its 40 mirrors`));
      const held = repo.hash();
      // WHEN the same state runs with --strict THEN exit 4 (as for an unreachable target), nothing written
      const strict = await synth('--strict');
      assertOutcome(strict, ExitCode.STALE, /--strict: not writing anything because the removal guard held back "echo"/, 'strict');
      assert.equal(repo.hash(), held);
      // WHEN echo has been held back since three days (its time in the lock) and the limit is 24h THEN exit 9, the output written, the time kept
      const threeDays = new Date(Date.now() - 3 * 86_400_000).toISOString().replace(/\.\d{3}Z$/, 'Z');
      writeFileSync(repo.lockFile, canonicalJson({ ...lock, observed: { ...lock.observed, staleSince: { targets: { [culprit]: threeDays } } } }));
      const limit = await synth('--max-stale', '24h');
      assertOutcome(limit, ExitCode.STALE_LIMIT, new RegExp(`target echo: stale since ${threeDays} \\(3d.*held back by the removal guard this run`), 'max-stale');
      assert.equal(JSON.parse(readFileSync(repo.lockFile, 'utf8')).observed.staleSince.targets[culprit], threeDays);
      assert.equal(mirrors(culprit).length, 40);
      // WHEN the user confirms THEN echo's 35 mirrors go and it is no longer stale
      const confirmed = await synth('--confirm-removals', '--max-stale', '24h');
      assertOk(confirmed, 'confirmed');
      assert.equal(mirrors(culprit).length, 5);
      assert.equal(JSON.parse(readFileSync(repo.lockFile, 'utf8')).observed.staleSince, undefined);
    } finally {
      await fleet.kubectl('paris', ['delete', 'service', '-n', 'issue33', '-l', label, '--ignore-not-found']);
      repo.remove();
    }
  });
});
