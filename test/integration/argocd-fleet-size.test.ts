/**
 * The Argo CD layout for fleet size (issue 35) with a real Argo CD (test/harness/argocd.ts) and real
 * kube-apiservers: the migration from the ApplicationSet synth wrote before (one Application per
 * cluster with a source per unit) keeps every object; pinned ClusterIPs past the Service CIDR's
 * static band do not collide with the Services the same sync creates; and a source with more pins
 * than one band holds pins them in the band of a second ServiceCIDR, where Services of another
 * Application cannot take them. The tests build on each other (one fleet, one Argo CD, one sequence
 * of commits).
 *
 * Fleet: london mirrors paris (gateway mode; a StatefulSet's per-pod mirrors with ClusterIPs pinned in
 * london's `pinnedServiceIPRange`, and, in the last test, in `additionalPinnedServiceIPRanges`). The
 * apiservers' Service CIDR is a /23, so that its static band (KEP-3070: min(max(16, 512/16), 256) =
 * 32 addresses) is small and the dynamic band (478 addresses) small enough to race in, or to fill.
 */
import assert from 'node:assert/strict';
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { parse, parseAllDocuments } from 'yaml';
import { ExitCode } from '../../src/errors/exit-codes.js';
import type { FleetDefinition } from '../../src/load/load-fleet.js';
import { ARGOCD_APPLICATIONS_FOLDER, argoCdApplicationName } from '../../src/delivery/argocd-application-set.js';
import { Cluster, GitOpsDelivery, Link } from '../../src/model/index.js';
import { observationRules } from '../../src/observe/observation-rbac.js';
import { argoCdForTests, argoCdSkipReason, type ArgoCd, type LiveApplication } from '../harness/argocd.js';
import { kubeFleetForTests, kubeFleetSkipReason, type KubeFleet } from '../harness/kube-fleet.js';
import { addServiceCidrs } from '../harness/service-cidrs.js';
import { LEGACY_CLUSTERS_FOLDER, legacyArgoCdApplicationSet, legacyClusterFile } from '../unit/support/legacy-argocd-application-set.js';
import { applyStatefulService, ensureNamespace, installGateway, Workspace } from './support.js';

const GATEWAY = { 'mirror.linkerd.io/exported': 'true' };
/** The apiservers' Service CIDR: 512 addresses, a static band of 32 (10.97.0.1–10.97.0.32). */
const SERVICE_CIDR = '10.97.0.0/23';
const STATIC_BAND_LAST_OCTET = 32;
/** london's pinned range: 126 pinnable addresses, most of them past the static band. */
const PINNED_RANGE = '10.97.0.0/25';
/** A second ServiceCIDR of london (the last test adds it), and the pinned block at the bottom of its static band (10.98.0.1–10.98.0.32). */
const SECOND_SERVICE_CIDR = '10.98.0.0/23';
const SECOND_PINNED_RANGE = '10.98.0.0/27';
const CLUSTERS = ['london', 'paris'] as const;
const TRACKING_ID = 'argocd.argoproj.io/tracking-id';

let repoUrl = 'file:///not-yet';
/** london's further pinned blocks and Service CIDRs (the last test adds the second ServiceCIDR). */
let londonBlocks: { additionalPinnedServiceIPRanges?: string[]; serviceCidrs: string[] } = { serviceCidrs: [SERVICE_CIDR] };
const defineFleet: FleetDefinition = (fleet) => {
  const london = new Cluster(fleet, 'london', { pinnedServiceIPRange: PINNED_RANGE, ...londonBlocks });
  const paris = new Cluster(fleet, 'paris', { serviceCidrs: [SERVICE_CIDR] });
  new Link(fleet, 'london-from-paris', { source: london, target: paris });
  new GitOpsDelivery(fleet, 'delivery', { repoUrl, revision: 'main', argoCd: { configMapChangeApplied: true } });
};

interface Manifest { apiVersion: string; kind: string; metadata: { name: string; namespace?: string; annotations?: Record<string, string> }; spec?: { clusterIP?: string } }

/** The number of an IPv4 address. */
const ipNumber = (ip: string): number => ip.split('.').reduce((n, octet) => n * 256 + Number(octet), 0);
/** london's dynamic band of its first Service CIDR: 10.97.0.33–10.97.1.254 (478 addresses). */
const DYNAMIC_FIRST = ipNumber('10.97.0.33');
const DYNAMIC_LAST = ipNumber('10.97.1.254');

/** Synced to `revision` (`sync.revision` of one source, every one of `sync.revisions` of several), Healthy, every resource Synced, no operation running. */
const syncedAt = (revision: string) => (a: LiveApplication): boolean =>
  a.status?.sync?.status === 'Synced' && (a.status.sync.revision === revision || (a.status.sync.revisions?.length ? a.status.sync.revisions.every((r) => r === revision) : false)) &&
  a.status.health?.status === 'Healthy' &&
  (a.status.resources ?? []).every((r) => r.status === 'Synced' && !r.requiresPruning) && a.status.operationState?.phase !== 'Running';

describe('Argo CD at fleet size: migration from the per-cluster Application, pinned ClusterIPs past the static band', () => {
  let fleet: KubeFleet | undefined;
  let argo: ArgoCd | undefined;
  let ws: Workspace | undefined;
  let skip: string | undefined;
  const keepAlive = setInterval(() => undefined, 60_000);

  before(async (t) => {
    fleet = await kubeFleetForTests(t as never, [...CLUSTERS], {
      readerRules: observationRules({ source: true, target: true }),
      // (the harness sets its own range first; kube-apiserver takes the last value of a flag)
      extraApiserverArgs: [`--service-cluster-ip-range=${SERVICE_CIDR}`],
    });
    if (!fleet) {
      skip = kubeFleetSkipReason;
      return;
    }
    await installGateway(fleet, 'paris', '203.0.113.10');
    for (const ns of ['shop', 'data']) await ensureNamespace(fleet, 'london', ns);
    argo = await argoCdForTests(t as never, fleet, { hub: 'london', clusters: { london: 'london', paris: 'paris' } });
    if (!argo) {
      skip = argoCdSkipReason;
      return;
    }
    repoUrl = argo.repo.url;
    ws = new Workspace(defineFleet, fleet.kubeconfig('reader'));
    // Argo CD must sync Endpoints and EndpointSlices: the generated argocd-cm change (docs/argocd.md)
    assert.equal((await ws.synth()).exitCode, ExitCode.OK, ws.logs.join('\n'));
    const cm = parse(await argo.kubectl(['get', 'configmap', 'argocd-cm', '-n', argo.namespace, '-o', 'yaml']));
    await argo.kubectl(['patch', 'configmap', 'argocd-cm', '-n', cm.metadata.namespace, '--type', 'merge', '--patch-file', join(ws.dir, 'delivery', 'argocd', 'argocd-cm-patch.yaml')]);
    await argo.restartController();
  });

  after(async () => {
    clearInterval(keepAlive);
    await argo?.stop();
    await fleet?.stop();
    ws?.remove();
  });

  const built = async (cluster: string): Promise<Manifest[]> =>
    parseAllDocuments(await fleet!.kubectl(cluster, ['kustomize', join(ws!.outDir, cluster)])).map((d) => d.toJS() as Manifest);
  const resourceOf = (o: Manifest): string => `${o.kind}.${o.apiVersion.includes('/') ? o.apiVersion.split('/')[0] : ''}`.replace(/\.$/, '');
  /** Every object of dist/<cluster> → its live object; fails on one missing or being deleted. */
  const liveObjects = async (cluster: string): Promise<Map<string, any>> => {
    const out = new Map<string, any>();
    for (const o of await built(cluster)) {
      const l = JSON.parse(await fleet!.kubectl(cluster, ['get', resourceOf(o), o.metadata.name, ...(o.metadata.namespace ? ['-n', o.metadata.namespace] : []), '-o', 'json']));
      assert.equal(l.metadata.deletionTimestamp, undefined, `${o.kind} ${o.metadata.namespace ?? ''}/${o.metadata.name} is being deleted`);
      out.set(`${o.kind}/${o.metadata.namespace ?? ''}/${o.metadata.name}`, l);
    }
    return out;
  };
  /** The Applications synth generated for `cluster`. */
  const appsOf = (cluster: string): string[] => {
    const folder = join(ws!.dir, 'delivery', 'argocd', ARGOCD_APPLICATIONS_FOLDER);
    return readdirSync(folder).filter((f) => f.startsWith(`${cluster}.`)).map((f) => parse(readFileSync(join(folder, f), 'utf8')).name as string).sort();
  };
  const waitSynced = (names: readonly string[], revision: string): Promise<LiveApplication[]> =>
    argo!.waitForApplications(names, `be Synced/Healthy at ${revision}`, (apps) => apps.length === names.length && apps.every(syncedAt(revision)));
  /** Asks every Application for a refresh (one the ApplicationSet deletes meanwhile is left out). */
  const refreshAll = async (): Promise<void> => {
    for (const name of await argo!.applications()) {
      await argo!.refresh(name, 'normal').catch((e: Error) => {
        if (!/NotFound/.test(e.message)) throw e;
      });
    }
  };

  test('the ApplicationSet of one Application per cluster is replaced by one Application per unit family: no object is deleted or recreated, each is adopted', async (t) => {
    if (!ws) return t.skip(skip ?? 'no fleet');
    // GIVEN paris exports three services and a StatefulSet of two pods (per-pod mirrors with pinned ClusterIPs)
    await ensureNamespace(fleet!, 'paris', 'shop');
    for (const name of ['web', 'cart', 'pay']) {
      await fleet!.kubectl('paris', ['apply', '-f', '-'], JSON.stringify({ apiVersion: 'v1', kind: 'Service', metadata: { name, namespace: 'shop', labels: { app: name, ...GATEWAY } }, spec: { ports: [{ name: 'http', port: 8080 }] } }));
    }
    await applyStatefulService(fleet!, 'paris', 'data', 'kafka', 2, { app: 'kafka', ...GATEWAY });
    assert.equal((await ws.synth()).exitCode, ExitCode.OK, ws.logs.join('\n'));
    // AND the ApplicationSet synth wrote before issue 35, with its per-cluster generator files, committed and applied
    const legacyFolder = join(ws.dir, 'delivery', 'argocd', LEGACY_CLUSTERS_FOLDER);
    mkdirSync(legacyFolder, { recursive: true });
    for (const cluster of CLUSTERS) {
      const units = readdirSync(join(ws.outDir, cluster), { withFileTypes: true }).filter((d) => d.isDirectory()).map((d) => `dist/${cluster}/${d.name}`).sort();
      writeFileSync(join(legacyFolder, `${cluster}.yaml`), JSON.stringify(legacyClusterFile(cluster, cluster, units)));
    }
    const legacySet = join(ws.dir, 'legacy-applicationset.json');
    writeFileSync(legacySet, JSON.stringify(legacyArgoCdApplicationSet({ repoUrl: argo!.repo.url, revision: 'main', namespace: argo!.namespace, project: 'mirrorc' })));
    const first = await argo!.repo.publish(ws.dir, ['dist', 'delivery']);
    const delivery = join(ws.dir, 'delivery', 'argocd');
    await argo!.kubectl(['apply', '-f', join(delivery, 'appproject-mirrorc.yaml'), '-f', legacySet]);
    const legacyApps = CLUSTERS.map((c) => `mirrorc-${c}`);
    await waitSynced(legacyApps, first);
    const before = new Map<string, Map<string, any>>();
    for (const cluster of CLUSTERS) before.set(cluster, await liveObjects(cluster));
    assert.ok(before.get('london')!.has('Service/data/kafka-0-paris') && before.get('london')!.has('EndpointSlice/shop/web-paris-ipv4'));

    // WHEN CI commits the new synth output (the legacy generator files are gone) and the platform team applies the new ApplicationSet
    assert.equal((await ws.synth()).exitCode, ExitCode.OK, ws.logs.join('\n'));
    rmSync(legacyFolder, { recursive: true, force: true });
    const revision = await argo!.repo.publish(ws.dir, ['dist', 'delivery']);
    assert.notEqual(revision, first);
    await argo!.kubectl(['apply', '-f', join(delivery, 'applicationset-mirrorc.yaml')]);
    await argo!.kubectl(['annotate', 'applicationset', 'mirrorc', '-n', argo!.namespace, '--overwrite', 'argocd.argoproj.io/application-set-refresh=true']);

    // THEN the per-family Applications are Synced/Healthy at the new commit and the per-cluster ones are gone
    const names = CLUSTERS.flatMap(appsOf);
    assert.deepEqual(names, [argoCdApplicationName('london', 'base'), argoCdApplicationName('london', 'from-paris'), argoCdApplicationName('paris', 'base')]);
    await refreshAll();
    await waitSynced(names, revision);
    const remaining = await argo!.applications();
    for (const old of legacyApps) assert.ok(!remaining.includes(old), `${old} deleted by the ApplicationSet: ${remaining.join(', ')}`);
    // AND every object kept its uid, and is tracked by the Application of its family now
    for (const cluster of CLUSTERS) {
      const now = await liveObjects(cluster);
      for (const [key, was] of before.get(cluster)!) {
        const is = now.get(key);
        assert.equal(is?.metadata.uid, was.metadata.uid, `${cluster} ${key} kept its uid`);
        assert.match(is.metadata.annotations?.[TRACKING_ID] ?? '', new RegExp(`^mirrorc-${cluster}\\.(base|from-paris):`), `${cluster} ${key} adopted: ${is.metadata.annotations?.[TRACKING_ID]}`);
      }
    }
  });

  test('pinned ClusterIPs past the static band: the pinned Services are applied first (sync wave -1), none collides with a Service of the same sync', async (t) => {
    if (!ws) return t.skip(skip ?? 'no fleet');
    // GIVEN paris's StatefulSet grows to 60 pods (60 per-pod mirrors in london, most pinned past the static band) and paris exports 200 more services
    await applyStatefulService(fleet!, 'paris', 'data', 'kafka', 60, { app: 'kafka', ...GATEWAY });
    const services = Array.from({ length: 200 }, (_, i) => ({
      apiVersion: 'v1', kind: 'Service',
      metadata: { name: `a${String(i).padStart(3, '0')}`, namespace: 'shop', labels: { app: `a${i}`, ...GATEWAY } },
      spec: { ports: [{ name: 'http', port: 8080 }] },
    }));
    await fleet!.kubectl('paris', ['apply', '-f', '-'], JSON.stringify({ apiVersion: 'v1', kind: 'List', items: services }));
    assert.equal((await ws.synth()).exitCode, ExitCode.OK, ws.logs.join('\n'));
    const pinned = (await built('london')).filter((o) => o.kind === 'Service' && o.spec?.clusterIP !== undefined && o.spec.clusterIP !== 'None');
    assert.equal(pinned.length, 60);
    const pastBand = pinned.filter((o) => Number(o.spec!.clusterIP!.split('.')[3]) > STATIC_BAND_LAST_OCTET || o.spec!.clusterIP!.split('.')[2] !== '0');
    assert.ok(pastBand.length >= 20, `pins past the static band: ${pastBand.length}`);
    for (const o of pinned) assert.equal(o.metadata.annotations?.['argocd.argoproj.io/sync-wave'], '-1', o.metadata.name);
    // WHEN CI commits (one sync creates the 60 pinned and 200 unpinned mirrors)
    const revision = await argo!.repo.publish(ws.dir, ['dist', 'delivery']);
    await refreshAll();
    // THEN the first sync of the commit succeeds: no "provided IP is already allocated", no retry
    const fromParis = argoCdApplicationName('london', 'from-paris');
    // (a failed attempt shows as a retry: the operation stays Running while it backs off)
    const finished = await argo!.waitForApplication(fromParis, `finish or retry a sync of ${revision}`, (a) =>
      a.status?.operationState?.syncResult?.revision === revision && (a.status.operationState.phase !== 'Running' || (a.status.operationState.retryCount ?? 0) >= 1));
    const operation = JSON.stringify(finished.status?.operationState ?? {});
    const collisions = operation.match(/already allocated/g)?.length ?? 0;
    t.diagnostic(`pins past the static band: ${pastBand.length} of ${pinned.length}; collisions: ${collisions}; phase ${finished.status?.operationState?.phase}, retries ${finished.status?.operationState?.retryCount ?? 0}`);
    assert.equal(collisions, 0, operation.slice(0, 4000));
    assert.equal(finished.status?.operationState?.phase, 'Succeeded', operation.slice(0, 4000));
    await waitSynced(appsOf('london'), revision);
    // AND every pinned Service is live with its pinned ClusterIP
    const live = await liveObjects('london');
    for (const o of pinned) assert.equal(live.get(`Service/${o.metadata.namespace}/${o.metadata.name}`)?.spec.clusterIP, o.spec!.clusterIP, o.metadata.name);
  });
  test('more pins than the static band holds, and unpinned Services of another Application: new pins go to the band of a second ServiceCIDR, none collides', async (t) => {
    if (!ws) return t.skip(skip ?? 'no fleet');
    // GIVEN london declares a second pinned block at the bottom of a second Service CIDR, and paris's StatefulSet grows to 90 pods (30 new per-pod mirrors;
    // the band of london's first Service CIDR, 10.97.0.1–32, is full: the kubernetes Service and the pins of the tests before)
    londonBlocks = { additionalPinnedServiceIPRanges: [SECOND_PINNED_RANGE], serviceCidrs: [SERVICE_CIDR, SECOND_SERVICE_CIDR] };
    await applyStatefulService(fleet!, 'paris', 'data', 'kafka', 90, { app: 'kafka', ...GATEWAY });
    const pinnedBefore = new Set((await built('london')).filter((o) => o.kind === 'Service' && o.spec?.clusterIP !== undefined && o.spec.clusterIP !== 'None').map((o) => o.metadata.name));
    // (synth observes london now, before the other Application's Services exist)
    assert.equal((await ws.synth()).exitCode, ExitCode.OK, ws.logs.join('\n'));
    const pinned = (await built('london')).filter((o) => o.kind === 'Service' && o.spec?.clusterIP !== undefined && o.spec.clusterIP !== 'None');
    const fresh = pinned.filter((o) => !pinnedBefore.has(o.metadata.name));
    assert.equal(fresh.length, 30);

    // AND another team's Application of london, synced before mirrorc's commit, takes every address of the first Service CIDR's dynamic band
    // (deterministically, where Services without a ClusterIP would otherwise land at random: with one Service CIDR they fill it exactly)
    const inDynamicBand = async (): Promise<number> => {
      const all = JSON.parse(await fleet!.kubectl('london', ['get', 'services', '-A', '-o', 'json'])).items as { spec: { clusterIPs?: string[] } }[];
      return all.flatMap((svc) => svc.spec.clusterIPs ?? []).filter((ip) => ip.includes('.') && ipNumber(ip) >= DYNAMIC_FIRST && ipNumber(ip) <= DYNAMIC_LAST).length;
    };
    const free = DYNAMIC_LAST - DYNAMIC_FIRST + 1 - (await inDynamicBand());
    assert.ok(free > 0, `free addresses in the dynamic band: ${free}`);
    await ensureNamespace(fleet!, 'london', 'other');
    const otherServices = (count: number): string =>
      Array.from({ length: count }, (_, i) => JSON.stringify({ apiVersion: 'v1', kind: 'Service', metadata: { name: `o${String(i).padStart(3, '0')}`, namespace: 'other' }, spec: { ports: [{ name: 'http', port: 80 }] } })).join('\n---\n');
    const otherDir = join(ws.dir, 'other');
    mkdirSync(otherDir, { recursive: true });
    writeFileSync(join(otherDir, 'services.yaml'), otherServices(free));
    const destination = parse(readFileSync(join(ws.dir, 'delivery', 'argocd', ARGOCD_APPLICATIONS_FOLDER, 'london.base.yaml'), 'utf8')).destination as string;
    const otherRevision = await argo!.repo.publish(ws.dir, ['other']);
    await argo!.kubectl(['apply', '-f', '-'], JSON.stringify({
      apiVersion: 'argoproj.io/v1alpha1', kind: 'Application', metadata: { name: 'team-other', namespace: argo!.namespace },
      spec: { project: 'mirrorc', source: { repoURL: argo!.repo.url, targetRevision: 'main', path: 'other' }, destination: { name: destination, namespace: 'other' }, syncPolicy: { automated: { prune: true } } },
    }));
    await waitSynced(['team-other'], otherRevision);
    assert.equal(await inDynamicBand(), DYNAMIC_LAST - DYNAMIC_FIRST + 1, 'the dynamic band of the first Service CIDR is full');
    // AND the platform team adds the second ServiceCIDR (its allocator is ready once the API server accepts a ClusterIP in it)
    await addServiceCidrs(fleet!, 'london', [{ name: 'mirrorc-pins', cidr: SECOND_SERVICE_CIDR }]);

    // WHEN CI commits mirrorc's output together with 50 more Services of the other team, and both Applications sync
    writeFileSync(join(otherDir, 'services.yaml'), otherServices(free + 50));
    const revision = await argo!.repo.publish(ws.dir, ['dist', 'delivery', 'other']);
    await refreshAll();
    const fromParis = argoCdApplicationName('london', 'from-paris');
    const finished = await argo!.waitForApplication(fromParis, `finish or retry a sync of ${revision}`, (a) =>
      a.status?.operationState?.syncResult?.revision === revision && (a.status.operationState.phase !== 'Running' || (a.status.operationState.retryCount ?? 0) >= 1));
    // THEN no pinned Service is refused: the new pins lie in the band of the second Service CIDR, where no Service without a ClusterIP lands
    const operation = JSON.stringify(finished.status?.operationState ?? {});
    const collisions = operation.match(/already allocated/g)?.length ?? 0;
    t.diagnostic(`new pins: ${fresh.map((o) => o.spec!.clusterIP).join(' ')}; collisions: ${collisions}; phase ${finished.status?.operationState?.phase}, retries ${finished.status?.operationState?.retryCount ?? 0}`);
    assert.equal(collisions, 0, operation.slice(0, 4000));
    assert.equal(finished.status?.operationState?.phase, 'Succeeded', operation.slice(0, 4000));
    for (const o of fresh) assert.ok(ipNumber(o.spec!.clusterIP!) >= ipNumber('10.98.0.1') && ipNumber(o.spec!.clusterIP!) <= ipNumber('10.98.0.30'), `${o.metadata.name}: ${o.spec!.clusterIP}`);
    await waitSynced([...appsOf('london'), 'team-other'], revision);
    // AND every pinned Service is live with its pinned ClusterIP, and the other team's new Services landed past the second band
    const live = await liveObjects('london');
    for (const o of pinned) assert.equal(live.get(`Service/${o.metadata.namespace}/${o.metadata.name}`)?.spec.clusterIP, o.spec!.clusterIP, o.metadata.name);
    const others = JSON.parse(await fleet!.kubectl('london', ['get', 'services', '-n', 'other', '-o', 'json'])).items as { spec: { clusterIP: string } }[];
    assert.equal(others.length, free + 50);
    for (const svc of others) assert.ok(!(ipNumber(svc.spec.clusterIP) >= ipNumber('10.98.0.1') && ipNumber(svc.spec.clusterIP) <= ipNumber('10.98.0.32')), svc.spec.clusterIP);
  });
});
