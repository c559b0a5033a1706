/**
 * A real Argo CD (repo-server, application-controller, applicationset-controller; test/harness/argocd.ts)
 * syncs what synth writes into real kube-apiservers. The user's steps: synth, commit `dist/` and
 * `delivery/` to the repository Argo CD clones (a local `file://` repository), apply the generated
 * AppProject and ApplicationSet, change `argocd-cm` with one of the generated forms. Every assertion
 * reads Argo CD's own status (sync, health, conditions, resources) or the live objects. The tests
 * build on each other (one fleet, one Argo CD, one sequence of commits).
 *
 * Fleet: london mirrors paris (gateway mode) and rome (flat mode); paris mirrors london. Argo CD's
 * CRDs and config live in london; london and paris are registered in Argo CD under other names than
 * the fleet's (`argoCd.clusterNames`), rome under its own. A commit reaches Argo CD when the test
 * asks for a refresh (what a git webhook does), never by waiting for the periodic poll. Each cluster
 * has one Application per delivery unit family (`mirrorc-<cluster>.base`, `….from-paris`, …): "the
 * cluster" below is all of them, read together.
 */
import assert from 'node:assert/strict';
import { execFileSync, spawn } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { parse, parseAllDocuments } from 'yaml';
import { ExitCode } from '../../src/errors/exit-codes.js';
import type { FleetDefinition } from '../../src/load/load-fleet.js';
import { APPLICATION_SET_REFRESH_ANNOTATION, COMPARE_OPTIONS_ANNOTATION, MANIFEST_GENERATE_PATHS_ANNOTATION, REFRESH_ANNOTATION } from '../../src/contract/argocd.js';
import { MANAGED_LABEL, MANAGED_VALUE } from '../../src/contract/mirrorc.js';
import { APPLICATION_SET_NAME, ARGOCD_APPLICATIONS_FOLDER, argoCdApplicationName } from '../../src/delivery/argocd-application-set.js';
import { ARGOCD_CM_COMPONENT_DIRS, ARGOCD_CM_PATCH_FILES, ARGOCD_CM_VALUES_FILES } from '../../src/delivery/delivery-files.js';
import { readTree } from '../../src/emit/write-output.js';
import { Cluster, GitOpsDelivery, Link } from '../../src/model/index.js';
import { observationRules } from '../../src/observe/observation-rbac.js';
import { argoCdForTests, argoCdSkipReason, ensureArgoCdAssets, type ArgoCd, type LiveApplication } from '../harness/argocd.js';
import { ensureKubeBinaries, kubeFleetForTests, kubeFleetSkipReason, type KubeFleet } from '../harness/kube-fleet.js';
import { perObjectFiles } from '../unit/support/legacy-layout.js';
import { applyService, applySlice, assertSubset, ensureNamespace, installGateway, Workspace } from './support.js';

const GATEWAY = { 'mirror.linkerd.io/exported': 'true' };
const FLAT = { 'mirror.linkerd.io/exported': 'remote-discovery' };
const CLUSTERS = ['london', 'paris', 'rome'] as const;
/** Fleet cluster → Argo CD cluster name: london and paris differ, rome keeps its name. */
const ARGOCD_NAMES: Record<string, string> = { london: 'eu-london-prod', paris: 'eu-paris-prod', rome: 'rome' };
/** The Application of one unit family of a cluster (`mirrorc-<cluster>.<family>`). */
const app = (cluster: string, family: string): string => argoCdApplicationName(cluster, family);

/** Set once the harness has created the repository. */
let repoUrl = 'file:///not-yet';
/** Whether london still links paris: the guard test removes the link as a fleet-file mistake would. */
let londonLinksParis = true;

const defineFleet: FleetDefinition = (fleet) => {
  const london = new Cluster(fleet, 'london');
  const paris = new Cluster(fleet, 'paris');
  const rome = new Cluster(fleet, 'rome');
  if (londonLinksParis) new Link(fleet, 'london-from-paris', { source: london, target: paris });
  new Link(fleet, 'london-from-rome', { source: london, target: rome, remoteDiscoveryCredentials: { provided: 'external' } });
  new Link(fleet, 'paris-from-london', { source: paris, target: london });
  new GitOpsDelivery(fleet, 'delivery', {
    repoUrl,
    revision: 'main',
    argoCd: { configMapChangeApplied: true, clusterNames: { london: ARGOCD_NAMES.london!, paris: ARGOCD_NAMES.paris! } },
  });
};

interface Manifest { apiVersion: string; kind: string; metadata: { name: string; namespace?: string } }

/**
 * A probe Application (not mirrorc's; manual sync, so it only compares) whose git folder holds one
 * object of every kind the stock argocd-cm excludes, plus an Endpoints and an EndpointSlice with and
 * without mirrorc's label. Argo CD's controller names in an ExcludedResourceWarning each git object it
 * drops as excluded ("Resource <group>/<Kind> <name> is excluded in the settings") and each one a
 * resource selector keeps it from watching ("… does not match the resource selector …"), so the
 * probe's conditions say how Argo CD itself reads the argocd-cm in place.
 */
const PROBE_APP = 'argocd-cm-probe';
const PROBE_FOLDER = 'argocd-cm-probe';
interface ProbeObject { group: string; kind: string; name: string; managed: boolean }

/** group/Kind of every rule of the stock `resource.exclusions`, but the rule that hides Endpoints/EndpointSlices. */
function otherStockExclusions(stockCmYaml: string): { group: string; kind: string }[] {
  const rules = parse(parse(stockCmYaml).data['resource.exclusions']) as { apiGroups: string[]; kinds: string[] }[];
  return rules.filter((r) => !r.kinds.includes('EndpointSlice') && !r.kinds.includes('Endpoints'))
    .flatMap((r) => r.apiGroups.flatMap((group) => r.kinds.map((kind) => ({ group, kind }))));
}

function probeObjects(stockCmYaml: string): ProbeObject[] {
  const others = otherStockExclusions(stockCmYaml).map(({ group, kind }) => ({ group, kind, name: `probe-${group.replace(/\./g, '-')}-${kind.toLowerCase()}`, managed: false }));
  const endpoints = [['', 'Endpoints'], ['discovery.k8s.io', 'EndpointSlice']].flatMap(([group, kind]) =>
    [false, true].map((managed) => ({ group: group!, kind: kind!, name: `probe-${kind!.toLowerCase()}-${managed ? 'managed' : 'unlabelled'}`, managed })));
  return [...others, ...endpoints];
}

/** The probe's ExcludedResourceWarning messages Argo CD's controller writes when `endpoints` is how argocd-cm treats Endpoints/EndpointSlices. */
function expectedProbeWarnings(objects: readonly ProbeObject[], endpoints: 'excluded' | 'all' | 'managed-only'): string[] {
  return objects.flatMap((o) => {
    const isEndpoint = o.kind === 'Endpoints' || o.kind === 'EndpointSlice';
    const excludedMsg = `Resource ${o.group}/${o.kind} ${o.name} is excluded in the settings`;
    if (!isEndpoint || endpoints === 'excluded') return [excludedMsg];
    if (endpoints === 'managed-only' && !o.managed) {
      return [`Resource ${o.group}/${o.kind} ${o.name} does not match the resource selector "${MANAGED_LABEL}=${MANAGED_VALUE}" in the settings and will not be watched; it will appear as OutOfSync`];
    }
    return [];
  }).sort();
}

const probeWarnings = (a: LiveApplication): string[] => (a.status?.conditions ?? []).filter((c) => c.type === 'ExcludedResourceWarning').map((c) => c.message ?? '').sort();


const excluded = (a: LiveApplication): boolean => (a.status?.conditions ?? []).some((c) => c.type === 'ExcludedResourceWarning');
const endpointKinds = (a: LiveApplication): string[] => (a.status?.resources ?? []).filter((r) => r.kind === 'Endpoints' || r.kind === 'EndpointSlice').map((r) => `${r.kind}/${r.namespace}/${r.name}`).sort();

/** Whether the Application compared `revision`: `sync.revision` of one source, every one of `sync.revisions` of several (one per delivery unit). */
function atRevision(a: LiveApplication, revision: string): boolean {
  const sync = a.status?.sync;
  return sync?.revision === revision || (sync?.revisions !== undefined && sync.revisions.length > 0 && sync.revisions.every((r) => r === revision));
}

/** Synced to `revision`, Healthy, no resource OutOfSync or waiting for prune, no error condition, no operation running. */
function syncedAt(revision: string): (a: LiveApplication) => boolean {
  return (a) => a.status?.sync?.status === 'Synced' && atRevision(a, revision) &&
    a.status.health?.status === 'Healthy' &&
    (a.status.resources ?? []).every((r) => r.status === 'Synced' && !r.requiresPruning) &&
    !(a.status.conditions ?? []).some((c) => /Error$/.test(c.type)) &&
    a.status.operationState?.phase !== 'Running';
}

describe('a real Argo CD syncs the output of synth, against real API servers', () => {
  let fleet: KubeFleet | undefined;
  let argo: ArgoCd | undefined;
  let ws: Workspace | undefined;
  let skip: string | undefined;
  let stockArgoCdCm = '';

  // The harness's processes do not keep the event loop alive (they are unref'd): awaiting one's exit
  // (stopping rome) with nothing else pending would end the test process. This timer keeps it alive.
  const keepAlive = setInterval(() => undefined, 60_000);

  before(async (t) => {
    fleet = await kubeFleetForTests(t as never, [...CLUSTERS], { readerRules: observationRules({ source: true, target: true }) });
    if (!fleet) {
      skip = kubeFleetSkipReason;
      return;
    }
    await installGateway(fleet, 'paris', '203.0.113.10');
    await installGateway(fleet, 'rome', '198.51.100.30');
    await installGateway(fleet, 'london', '192.0.2.40');
    // dist/<cluster>/ does not create the namespaces its mirrors live in: on a real source they exist.
    for (const source of ['london', 'paris']) await ensureNamespace(fleet, source, 'shop');
    argo = await argoCdForTests(t as never, fleet, { hub: 'london', clusters: ARGOCD_NAMES });
    if (!argo) {
      skip = argoCdSkipReason;
      return;
    }
    repoUrl = argo.repo.url;
    stockArgoCdCm = await argo.kubectl(['get', 'configmap', 'argocd-cm', '-n', argo.namespace, '-o', 'yaml']);
    ws = new Workspace(defineFleet, fleet.kubeconfig('reader'));
  });

  after(async () => {
    clearInterval(keepAlive);
    await argo?.stop();
    await fleet?.stop();
    ws?.remove();
  });

  /** Commits dist/ and delivery/ as CI does, asks every Application for a refresh, returns the commit. */
  const commit = async (): Promise<string> => {
    const revision = await argo!.repo.publish(ws!.dir, ['dist', 'delivery']);
    for (const name of await argo!.applications()) await argo!.refresh(name, 'normal');
    return revision;
  };

  /** The objects `kustomize build dist/<cluster>` makes: what Argo CD must apply. */
  const built = async (cluster: string): Promise<Manifest[]> =>
    parseAllDocuments(await fleet!.kubectl(cluster, ['kustomize', join(ws!.outDir, cluster)])).map((d) => d.toJS() as Manifest);

  const live = async (cluster: string, o: Manifest): Promise<any> =>
    JSON.parse(await fleet!.kubectl(cluster, ['get', `${o.kind}.${o.apiVersion.includes('/') ? o.apiVersion.split('/')[0] : ''}`.replace(/\.$/, ''), o.metadata.name,
      ...(o.metadata.namespace ? ['-n', o.metadata.namespace] : []), '-o', 'json']));

  /** Every mirrorc-managed Service, Endpoints and EndpointSlice of a cluster: `kind/namespace/name → uid`. */
  const managed = async (cluster: string): Promise<Map<string, string>> => {
    const list = JSON.parse(await fleet!.kubectl(cluster, ['get', 'services,endpoints,endpointslices.discovery.k8s.io', '-A', '-l', `${MANAGED_LABEL}=true`, '-o', 'json']));
    return new Map((list.items as any[]).map((o) => [`${o.kind}/${o.metadata.namespace}/${o.metadata.name}`, o.metadata.uid as string]));
  };

  /** Names of the Applications synth generated for `cluster` (delivery/argocd/applications/<cluster>.<family>.yaml), sorted. */
  const appsOf = (cluster: string): string[] => {
    const folder = join(ws!.dir, 'delivery', 'argocd', ARGOCD_APPLICATIONS_FOLDER);
    return readdirSync(folder).filter((f) => f.startsWith(`${cluster}.`)).map((f) => parse(readFileSync(join(folder, f), 'utf8')).name as string).sort();
  };
  /** A cluster's Applications read as one: every resource and condition of each (the rest is the first one's). */
  const together = (apps: readonly LiveApplication[]): LiveApplication => ({
    metadata: apps[0]!.metadata,
    spec: apps[0]!.spec,
    status: { ...apps[0]!.status, resources: apps.flatMap((a) => a.status?.resources ?? []), conditions: apps.flatMap((a) => a.status?.conditions ?? []) },
  });
  /** Waits until every Application of `cluster` exists and satisfies `each`, and all of them together satisfy `all`; returns them together. */
  const waitForCluster = async (cluster: string, what: string, each: (a: LiveApplication) => boolean, all: (a: LiveApplication) => boolean = () => true): Promise<LiveApplication> => {
    const names = appsOf(cluster);
    return together(await argo!.waitForApplications(names, what, (apps) => apps.length === names.length && apps.every(each) && all(together(apps))));
  };
  /** Asks every Application of `cluster` for a refresh. */
  const refreshCluster = async (cluster: string, kind: 'normal' | 'hard'): Promise<void> => {
    for (const name of appsOf(cluster)) await argo!.refresh(name, kind);
  };

  /** THEN: Argo CD lists exactly the objects of dist/<cluster>, and each reads back as written. */
  const assertLiveEqualsGit = async (cluster: string, a: LiveApplication): Promise<void> => {
    const objects = await built(cluster);
    const id = (kind: string, namespace: string | undefined, name: string): string => `${kind}/${namespace ?? ''}/${name}`;
    assert.deepEqual((a.status?.resources ?? []).map((r) => id(r.kind, r.namespace, r.name)).sort(), objects.map((o) => id(o.kind, o.metadata.namespace, o.metadata.name)).sort(), `${cluster}: Argo CD's resources = kustomize build`);
    for (const o of objects) assertSubset(await live(cluster, o), o, `${cluster}: ${o.kind} ${o.metadata.namespace ?? ''}/${o.metadata.name}`);
  };

  /**
   * Restarts the controller, as the README says after an argocd-cm change, and asks every Application
   * for a hard refresh: a restarted controller compares an Application again only when it is asked
   * to or at the periodic refresh (2–3 min), not at start.
   */
  const restartAndRefresh = async (): Promise<void> => {
    await argo!.restartController();
    for (const cluster of CLUSTERS) await refreshCluster(cluster, 'hard');
    await argo!.refresh(PROBE_APP, 'hard');
  };
  /** Waits until the probe Application's ExcludedResourceWarnings are exactly those of `endpoints` (all of one comparison). */
  const probeShows = (endpoints: 'excluded' | 'all' | 'managed-only'): Promise<LiveApplication> => {
    const want = expectedProbeWarnings(probeObjects(stockArgoCdCm), endpoints);
    return argo!.waitForApplication(PROBE_APP, `report exactly the ExcludedResourceWarnings of ${endpoints} endpoints:\n${want.join('\n')}`,
      (a) => JSON.stringify(probeWarnings(a)) === JSON.stringify(want));
  };
  /** Replaces argocd-cm by `manifest` (a whole ConfigMap), restarts and refreshes. */
  const setArgoCdCm = async (manifest: string): Promise<void> => {
    await argo!.kubectl(['apply', '--server-side', '--force-conflicts', '--field-manager=platform-team', '-f', '-'], manifest);
    await restartAndRefresh();
  };
  const stockCm = (): string => {
    const cm = parse(stockArgoCdCm);
    return JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'argocd-cm', namespace: cm.metadata.namespace }, data: cm.data });
  };

  test('with the stock argocd-cm, Argo CD syncs every folder but hides the Endpoints and EndpointSlices (ExcludedResourceWarning)', async (t) => {
    if (!ws) return t.skip(skip ?? 'no fleet');
    // GIVEN paris exports web (one ready endpoint), idle (no ready endpoint) and cart; rome exports search (flat); london exports orders
    await applyService(fleet!, 'paris', 'shop', 'web', { app: 'web', ...GATEWAY });
    await applySlice(fleet!, 'paris', 'shop', 'web', [true]);
    await applyService(fleet!, 'paris', 'shop', 'idle', { app: 'idle', ...GATEWAY });
    await applySlice(fleet!, 'paris', 'shop', 'idle', []);
    await applyService(fleet!, 'paris', 'shop', 'cart', { app: 'cart', ...GATEWAY });
    await applyService(fleet!, 'rome', 'shop', 'search', { app: 'search', ...FLAT });
    await applyService(fleet!, 'london', 'shop', 'orders', { app: 'orders', ...GATEWAY });
    const run = await ws.synth();
    assert.equal(run.exitCode, ExitCode.OK, ws.logs.join('\n'));
    assert.deepEqual(parse(ws.files().get('london/shop/endpointslice-idle-paris-ipv4.yaml')!).endpoints, [], 'a mirror with `endpoints: []`');
    // (the probe: one object of each kind the stock argocd-cm excludes, and Endpoints/EndpointSlices with and without our label)
    const probeRoot = mkdtempSync(join(tmpdir(), 'argocd-probe-'));
    mkdirSync(join(probeRoot, PROBE_FOLDER));
    for (const o of probeObjects(stockArgoCdCm)) {
      writeFileSync(join(probeRoot, PROBE_FOLDER, `${o.name}.yaml`), JSON.stringify({
        apiVersion: o.group === '' ? 'v1' : `${o.group}/v1`, kind: o.kind,
        metadata: { name: o.name, namespace: PROBE_FOLDER, ...(o.managed ? { labels: { [MANAGED_LABEL]: MANAGED_VALUE } } : {}) },
      }));
    }
    await argo!.repo.publish(probeRoot, [PROBE_FOLDER]);
    rmSync(probeRoot, { recursive: true, force: true });
    await argo!.kubectl(['apply', '-f', '-'], JSON.stringify({
      apiVersion: 'argoproj.io/v1alpha1', kind: 'Application', metadata: { name: PROBE_APP, namespace: argo!.namespace },
      spec: { project: 'default', source: { repoURL: argo!.repo.url, targetRevision: 'main', path: PROBE_FOLDER }, destination: { name: ARGOCD_NAMES.london, namespace: PROBE_FOLDER } },
    }));
    // WHEN CI commits and the platform team applies the generated AppProject and ApplicationSet
    const revision = await commit();
    const delivery = join(ws.dir, 'delivery', 'argocd');
    await argo!.kubectl(['apply', '-f', join(delivery, 'appproject-mirrorc.yaml'), '-f', join(delivery, 'applicationset-mirrorc.yaml')]);
    // THEN one Application per unit family of each cluster, each sent to the cluster's Argo CD name, syncing only what is OutOfSync,
    // diffing in the controller (no server-side diff), regenerating its manifests only when its own folders change
    assert.deepEqual(appsOf('london'), [app('london', 'base'), app('london', 'from-paris'), app('london', 'from-rome')]);
    assert.deepEqual(appsOf('rome'), [app('rome', 'base')]);
    for (const cluster of CLUSTERS) {
      const names = appsOf(cluster);
      const apps = await argo!.waitForApplications(names, `sync ${revision}`, (xs) => xs.length === names.length && xs.every((x) => x.status?.sync?.status === 'Synced' && atRevision(x, revision)));
      for (const a of apps) {
        assert.equal(a.spec.destination.name, ARGOCD_NAMES[cluster]);
        assert.equal(a.metadata.annotations?.[COMPARE_OPTIONS_ANNOTATION], undefined, `${a.metadata.name}: no server-side diff`);
        assert.match(a.metadata.annotations?.[MANIFEST_GENERATE_PATHS_ANNOTATION] ?? '', /^(base|from-[a-z]+;from-[a-z]+\.\*\/\*;from-[a-z]+\.\*\/\*\/\*)$/);
        assert.deepEqual(a.spec.syncPolicy.syncOptions, ['ServerSideApply=true', 'ApplyOutOfSyncOnly=true']);
        assert.deepEqual(a.spec.syncPolicy.retry, { limit: 5, backoff: { duration: '10s', factor: 2, maxDuration: '3m' }, refresh: true });
        assert.equal(a.spec.source.path, `dist/${cluster}`);
        assert.equal(a.spec.source.directory.recurse, true);
      }
    }
    // AND london's from-paris Application warns that it left out the mirrors' Endpoints and EndpointSlices, which are missing
    const london = await waitForCluster('london', 'report ExcludedResourceWarning', () => true, excluded);
    assert.deepEqual(endpointKinds(london), []);
    await assert.rejects(fleet!.kubectl('london', ['get', 'endpoints', 'web-paris', '-n', 'shop']), /NotFound/);
    assert.ok((await managed('london')).has('Service/shop/web-paris'));
    // AND only those of our kinds: Argo CD lists every other object of dist/london
    const id = (kind: string, namespace: string | undefined, name: string): string => `${kind}/${namespace ?? ''}/${name}`;
    assert.deepEqual((london.status?.resources ?? []).map((r) => id(r.kind, r.namespace, r.name)).sort(),
      (await built('london')).filter((o) => o.kind !== 'Endpoints' && o.kind !== 'EndpointSlice').map((o) => id(o.kind, o.metadata.namespace, o.metadata.name)).sort());
    // AND Argo CD's own reading of the stock argocd-cm (the probe): every kind of its rules excluded, both endpoint kinds too
    await probeShows('excluded');
  });

  test('each generated argocd-cm change (patch, Helm values, kustomize Component; both variants) lets them through: Synced, Healthy, live = git', async (t) => {
    if (!ws) return t.skip(skip ?? 'no fleet');
    const revision = await argo!.repo.head();
    const delivery = join(ws.dir, 'delivery', 'argocd');
    const cmNamespace = parse(stockArgoCdCm).metadata.namespace as string;
    const assets = await ensureArgoCdAssets();
    const scratch = mkdtempSync(join(tmpdir(), 'argocd-cm-'));
    /** The stock argocd-cm with the given data keys set, as the argo-cd Helm chart renders `configs.cm` into its data. */
    const withData = (data: Record<string, string>): string => {
      const cm = JSON.parse(stockCm());
      return JSON.stringify({ ...cm, data: { ...cm.data, ...data } });
    };
    /** `kustomize build` of the stock argocd-cm with the generated Component, as an Argo CD managed with kustomize gets it. */
    const throughComponent = async (dir: string): Promise<string> => {
      const base = mkdtempSync(join(scratch, 'base-'));
      writeFileSync(join(base, 'argocd-cm.yaml'), stockCm());
      cpSync(join(delivery, dir), join(base, 'mirrorc-argocd-cm'), { recursive: true });
      writeFileSync(join(base, 'kustomization.yaml'), JSON.stringify({ resources: ['argocd-cm.yaml'], components: ['mirrorc-argocd-cm'] }));
      return execFileSync(join(assets, 'kustomize'), ['build', base], { encoding: 'utf8' });
    };
    const forms: [string, () => Promise<string>][] = [
      ['merge patch argocd-cm-patch.yaml', async () => { await argo!.kubectl(['patch', 'configmap', 'argocd-cm', '-n', cmNamespace, '--type', 'merge', '--patch-file', join(delivery, ARGOCD_CM_PATCH_FILES['all-endpoints'])]); return ''; }],
      ['Helm values argocd-cm-values-managed-endpoints-only.yaml', async () => withData(parse(readFileSync(join(delivery, ARGOCD_CM_VALUES_FILES['managed-endpoints-only']), 'utf8')).configs.cm)],
      ['Helm values argocd-cm-values.yaml', async () => withData(parse(readFileSync(join(delivery, ARGOCD_CM_VALUES_FILES['all-endpoints']), 'utf8')).configs.cm)],
      ['kustomize Component all-endpoints', () => throughComponent(ARGOCD_CM_COMPONENT_DIRS['all-endpoints'])],
      ['kustomize Component managed-endpoints-only', () => throughComponent(ARGOCD_CM_COMPONENT_DIRS['managed-endpoints-only'])],
    ];
    try {
      for (const [form, change] of forms) {
        await t.test(form, async () => {
          // GIVEN the stock argocd-cm: Endpoints and EndpointSlices hidden
          await setArgoCdCm(stockCm());
          await waitForCluster('london', 'report ExcludedResourceWarning', () => true, (a) => excluded(a) && endpointKinds(a).length === 0);
          await probeShows('excluded');
          // WHEN the platform team applies the change in this form (and restarts the controller)
          const manifest = await change();
          if (manifest) await argo!.kubectl(['apply', '--server-side', '--force-conflicts', '--field-manager=platform-team', '-f', '-'], manifest);
          await restartAndRefresh();
          // THEN every Application is Synced and Healthy, nothing OutOfSync, the endpoint kinds are in and equal git
          for (const cluster of CLUSTERS) {
            const a = await waitForCluster(cluster, `be Synced/Healthy at ${revision} with endpoints shown`, (x) => syncedAt(revision)(x) && !excluded(x));
            await assertLiveEqualsGit(cluster, a);
          }
          const london = await waitForCluster('london', 'be read', () => true);
          assert.ok(endpointKinds(london).includes('EndpointSlice/shop/idle-paris-ipv4'), endpointKinds(london).join('\n'));
          assert.ok(endpointKinds(london).includes('Endpoints/shop/web-paris'), endpointKinds(london).join('\n'));
          // AND Argo CD still excludes every other kind of the stock rules; the managed-only variant watches only labelled endpoints
          await probeShows(form.includes('managed-endpoints-only') ? 'managed-only' : 'all');
        });
      }
    } finally {
      rmSync(scratch, { recursive: true, force: true });
    }
  });

  test('a target stops exporting a service: Argo CD prunes exactly that mirror, nothing else is recreated', async (t) => {
    if (!ws) return t.skip(skip ?? 'no fleet');
    const before = await managed('london');
    const parisBefore = await managed('paris');
    // WHEN paris stops exporting cart, synth runs and CI commits
    await fleet!.kubectl('paris', ['label', 'service', 'cart', '-n', 'shop', 'mirror.linkerd.io/exported-']);
    const run = await ws.synth();
    assert.equal(run.exitCode, ExitCode.OK, ws.logs.join('\n'));
    const revision = await commit();
    // THEN london's Application is Synced at the new commit, equal to git, and exactly cart-paris's three objects are gone
    await assertLiveEqualsGit('london', await waitForCluster('london', `sync ${revision}`, syncedAt(revision)));
    const expected = new Map(before);
    for (const k of ['Service/shop/cart-paris', 'Endpoints/shop/cart-paris', 'EndpointSlice/shop/cart-paris-ipv4']) assert.ok(expected.delete(k), k);
    // Foreground deletion: the garbage collector removes the last finalizer shortly after the prune.
    const deadline = Date.now() + 300_000;
    while ((await managed('london')).has('Service/shop/cart-paris') && Date.now() < deadline) await new Promise((r) => setTimeout(r, 500));
    assert.deepEqual(await managed('london'), expected);
    // AND paris, whose folder did not change, keeps every object
    await waitForCluster('paris', `sync ${revision}`, syncedAt(revision));
    assert.deepEqual(await managed('paris'), parisBefore);
  });

  test('a removal the safety guard stops (exit 7) changes nothing in Argo CD: same commit, Synced, every object kept', async (t) => {
    if (!ws) return t.skip(skip ?? 'no fleet');
    const revision = await argo!.repo.head();
    const files = ws.files();
    const before = await managed('london');
    // WHEN the link london-from-paris disappears from the fleet file (all of paris's mirrors would go)
    londonLinksParis = false;
    try {
      const run = await ws.synth();
      // THEN synth stops with exit 7 and writes nothing, so a CI that commits what is there commits nothing
      assert.equal(run.exitCode, ExitCode.REMOVAL_NOT_CONFIRMED, ws.logs.join('\n'));
      assert.deepEqual(ws.files(), files);
      assert.equal(await commit(), revision);
      // AND a hard refresh finds the same commit, Synced, and every object keeps its uid
      await refreshCluster('london', 'hard');
      await waitForCluster('london', 'finish the hard refresh', (a) => a.metadata.annotations?.[REFRESH_ANNOTATION] === undefined && syncedAt(revision)(a));
      assert.deepEqual(await managed('london'), before);
    } finally {
      londonLinksParis = true;
    }
  });

  test('a target that cannot be reached is kept stale-but-safe: Argo CD syncs the next commit and keeps its mirrors', async (t) => {
    if (!ws) return t.skip(skip ?? 'no fleet');
    const before = await managed('london');
    assert.ok(before.has('Service/shop/search-rome'));
    // GIVEN rome is down and paris exports one more service
    await fleet!.clusters.rome!.stop();
    await applyService(fleet!, 'paris', 'shop', 'ship', { app: 'ship', ...GATEWAY });
    try {
      const run = await ws.synth();
      assert.equal(run.exitCode, ExitCode.OK, ws.logs.join('\n'));
      assert.ok(ws.logs.some((l) => /target rome: not observed \(unreachable\)/.test(l)), ws.logs.join('\n'));
      // WHEN CI commits
      const revision = await commit();
      // THEN london is Synced at it, equal to git: ship-paris added, search-rome untouched (same uid)
      await assertLiveEqualsGit('london', await waitForCluster('london', `sync ${revision}`, syncedAt(revision)));
      const after = await managed('london');
      assert.ok(after.has('Service/shop/ship-paris'));
      for (const [k, uid] of before) assert.equal(after.get(k), uid, k);
    } finally {
      await fleet!.clusters.rome!.start();
    }
  });

  test('hand edits are reverted: Service at once (self-heal), endpoint addresses at the next refresh (ignoreResourceUpdates)', async (t) => {
    if (!ws) return t.skip(skip ?? 'no fleet');
    const revision = await argo!.repo.head();
    await waitForCluster('london', `sync ${revision}`, syncedAt(revision));
    const want = (path: string): any => parse(ws!.files().get(path)!);
    const timed = async (what: string, edit: () => Promise<unknown>, reverted: () => Promise<boolean>, refresh?: () => Promise<void>): Promise<void> => {
      await edit();
      const t0 = Date.now();
      let refreshed = false;
      for (;;) {
        if (await reverted()) break;
        // Without a refresh, a change Argo CD ignores waits for the periodic one (minutes): ask for a hard refresh instead.
        if (refresh && !refreshed && Date.now() - t0 > 5_000) { await refresh(); refreshed = true; }
        assert.ok(Date.now() - t0 < 400_000, `${what} not reverted`);
        await new Promise((r) => setTimeout(r, 200));
      }
      t.diagnostic(`${what}: reverted after ${Date.now() - t0} ms${refreshed ? ' (hard refresh asked for after 5 s)' : ''}`);
    };
    // A label of the mirror Service
    const service = want('london/shop/service-web-paris.yaml');
    const labelKey = 'mirror.linkerd.io/cluster-name';
    assert.equal(service.metadata.labels[labelKey], 'paris');
    await timed('Service label edit', () => fleet!.kubectl('london', ['label', 'service', 'web-paris', '-n', 'shop', '--overwrite', `${labelKey}=hand-edited`]),
      async () => (await live('london', service)).metadata.labels[labelKey] === service.metadata.labels[labelKey]);
    // The address of the EndpointSlice, and of the Endpoints
    const slice = want('london/shop/endpointslice-web-paris-ipv4.yaml');
    await timed('EndpointSlice address edit', () => fleet!.kubectl('london', ['patch', 'endpointslice', 'web-paris-ipv4', '-n', 'shop', '--type=json', '-p', JSON.stringify([{ op: 'replace', path: '/endpoints/0/addresses/0', value: '198.18.0.1' }])]),
      async () => (await live('london', slice)).endpoints[0].addresses[0] === slice.endpoints[0].addresses[0], () => argo!.refresh(app('london', 'from-paris'), 'hard'));
    const endpoints = want('london/shop/endpoints-web-paris.yaml');
    await timed('Endpoints address edit', () => fleet!.kubectl('london', ['patch', 'endpoints', 'web-paris', '-n', 'shop', '--type=json', '-p', JSON.stringify([{ op: 'replace', path: '/subsets/0/addresses/0/ip', value: '198.18.0.2' }])]),
      async () => (await live('london', endpoints)).subsets[0].addresses[0].ip === endpoints.subsets[0].addresses[0].ip, () => argo!.refresh(app('london', 'from-paris'), 'hard'));
    // A deleted EndpointSlice
    const sliceUid = (await live('london', slice)).metadata.uid;
    await timed('EndpointSlice deletion', () => fleet!.kubectl('london', ['delete', 'endpointslice', 'web-paris-ipv4', '-n', 'shop', '--wait=false']),
      async () => { try { return (await live('london', slice)).metadata.uid !== sliceUid; } catch { return false; } });
    await waitForCluster('london', `be Synced at ${revision} again`, syncedAt(revision));
  });

  test('the AppProject allows only the cluster-scoped names mirrorc writes: another ClusterRole is refused', async (t) => {
    if (!ws) return t.skip(skip ?? 'no fleet');
    // GIVEN an Application of the mirrorc project whose folder holds a ClusterRole that mirrorc never writes
    const probe = mkdtempSync(join(tmpdir(), 'argocd-probe-'));
    try {
      mkdirSync(join(probe, 'probe'));
      writeFileSync(join(probe, 'probe', 'clusterrole.yaml'), JSON.stringify({ apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole', metadata: { name: 'cluster-admin-too' }, rules: [{ apiGroups: ['*'], resources: ['*'], verbs: ['*'] }] }));
      await argo!.repo.publish(probe, ['probe']);
      await argo!.kubectl(['apply', '-f', '-'], JSON.stringify({
        apiVersion: 'argoproj.io/v1alpha1',
        kind: 'Application',
        metadata: { name: 'project-probe', namespace: argo!.namespace },
        spec: {
          project: 'mirrorc',
          source: { repoURL: argo!.repo.url, targetRevision: 'main', path: 'probe' },
          destination: { name: ARGOCD_NAMES.london },
          syncPolicy: { automated: { prune: false } },
        },
      }));
      // THEN Argo CD refuses it in the project, and the ClusterRole does not exist
      const refused = await argo!.waitForApplication('project-probe', 'refuse the ClusterRole', (a) =>
        JSON.stringify(a.status ?? {}).includes('not permitted in project'));
      t.diagnostic(`refused: ${JSON.stringify(refused.status?.conditions ?? refused.status?.operationState?.message)}`);
      await assert.rejects(fleet!.kubectl('london', ['get', 'clusterrole', 'cluster-admin-too']), /NotFound/);
      // AND the names mirrorc writes are allowed: its observer ClusterRole is there, synced by mirrorc-london
      const london = await argo!.application(app('london', 'base'));
      assert.ok((london.status?.resources ?? []).some((r) => r.kind === 'ClusterRole' && r.name === 'mirrorc-observer' && r.status === 'Synced'));
    } finally {
      await argo!.kubectl(['delete', 'application', 'project-probe', '-n', argo!.namespace, '--ignore-not-found', '--wait=false']).catch(() => undefined);
      rmSync(probe, { recursive: true, force: true });
    }
  });

  test('a sync that fails for a passing reason is retried with backoff and succeeds without a new commit', async (t) => {
    if (!ws) return t.skip(skip ?? 'no fleet');
    // GIVEN a ResourceQuota in london's shop namespace that allows no more Services than it has
    const services = (await fleet!.kubectl('london', ['get', 'services', '-n', 'shop', '-o', 'name'])).trim().split('\n').length;
    await fleet!.kubectl('london', ['create', 'quota', 'services', '-n', 'shop', `--hard=services=${services}`]);
    // Quota admission refuses everything until kube-controller-manager's quota controller has counted.
    const counted = Date.now() + 300_000;
    while ((await fleet!.kubectl('london', ['get', 'quota', 'services', '-n', 'shop', '-o', 'jsonpath={.status.used.services}'])).trim() !== String(services)) {
      assert.ok(Date.now() < counted, 'the quota controller did not count the Services');
      await new Promise((r) => setTimeout(r, 500));
    }
    // WHEN paris exports one more service and CI commits
    await applyService(fleet!, 'paris', 'shop', 'tax', { app: 'tax', ...GATEWAY });
    assert.equal((await ws.synth()).exitCode, ExitCode.OK, ws.logs.join('\n'));
    const revision = await commit();
    // THEN the sync fails on the quota and is retried
    const failing = await argo!.waitForApplication(app('london', 'from-paris'), 'fail on the quota and retry', (a) =>
      (a.status?.operationState?.retryCount ?? 0) >= 1 && /quota/i.test(JSON.stringify(a.status?.operationState ?? {})));
    const failingStartedAt = failing.status?.operationState?.startedAt;
    assert.ok(failingStartedAt, 'the failing operation has a start time');
    // WHEN the quota is lifted (no commit, no refresh)
    await fleet!.kubectl('london', ['delete', 'quota', 'services', '-n', 'shop']);
    // THEN a retry succeeds: Synced at the same commit, tax-paris exists
    const synced = await argo!.waitForApplication(app('london', 'from-paris'), `sync ${revision} by a retry`, syncedAt(revision));
    assert.equal(synced.status?.operationState?.phase, 'Succeeded');
    // The retried operation itself deployed the revision: Argo CD records every successful operation in
    // history with its start, and a retry keeps the start of the attempt that failed. (A later self-heal
    // operation at the same revision may replace operationState, so its retryCount proves nothing.)
    const deployedByRetry = (synced.status?.history ?? []).find((h) => h.deployStartedAt === failingStartedAt);
    assert.equal(deployedByRetry?.revision, revision, `history ${JSON.stringify(synced.status?.history ?? [])} has no entry of the operation started at ${failingStartedAt}`);
    assert.equal(await argo!.repo.head(), revision);
    assert.ok((await managed('london')).has('Service/shop/tax-paris'));
  });

  test('a target outgrows its unit: its mirrors move to new shards of the same Application, whose spec does not change; synced before the ApplicationSet is refreshed, none is deleted or recreated', async (t) => {
    if (!ws) return t.skip(skip ?? 'no fleet');
    const londonDist = join(ws.outDir, 'london');
    /** The unit folders of dist/london holding paris's mirrors (`from-paris`, `from-paris.1`, …). */
    const parisUnits = (): string[] => readdirSync(londonDist).filter((u) => u === 'from-paris' || u.startsWith('from-paris.')).sort();
    /** Each object of those units, as `namespace/<kind>-<name>.yaml` (see Workspace.files) → the `from-paris…` unit folder whose file (its mirror's) holds it. */
    const parisFiles = (): Map<string, string> => {
      const out = new Map<string, string>();
      for (const [path, text] of readTree(londonDist)) {
        const [unit, ...rest] = path.split('/');
        if (parisUnits().includes(unit!) && rest.length === 2) for (const [object] of perObjectFiles(rest.join('/'), text)) out.set(object, unit!);
      }
      return out;
    };
    const fromParis = app('london', 'from-paris');
    /** The generator file of london's from-paris Application. */
    const generatorFile = (): string => readFileSync(join(ws!.dir, 'delivery', 'argocd', ARGOCD_APPLICATIONS_FOLDER, 'london.from-paris.yaml'), 'utf8');
    /** Every object of dist/london (all units, as kustomize builds the cluster folder) → its live uid; fails on one being deleted. */
    const uids = async (): Promise<Map<string, string>> => {
      const out = new Map<string, string>();
      for (const o of await built('london')) {
        const l = await live('london', o);
        assert.equal(l.metadata.deletionTimestamp, undefined, `${o.kind} ${o.metadata.namespace ?? ''}/${o.metadata.name} is being deleted`);
        out.set(`${o.kind}/${o.metadata.namespace ?? ''}/${o.metadata.name}`, l.metadata.uid as string);
      }
      return out;
    };

    // GIVEN paris exports two more services, and the bound of a unit is exactly what london's from-paris holds: one unit
    await applyService(fleet!, 'paris', 'shop', 'pay', { app: 'pay', ...GATEWAY });
    await applyService(fleet!, 'paris', 'shop', 'mail', { app: 'mail', ...GATEWAY });
    assert.equal((await ws.synth()).exitCode, ExitCode.OK, ws.logs.join('\n'));
    assert.deepEqual(parisUnits(), ['from-paris']);
    const maxUnitObjects = parisFiles().size;
    assert.equal((await ws.synth({ maxUnitObjects })).exitCode, ExitCode.OK, ws.logs.join('\n'));
    assert.deepEqual(parisUnits(), ['from-paris'], `${maxUnitObjects} objects fit one unit of ${maxUnitObjects}`);
    const before = parisFiles();
    const beforeText = ws.files();
    // Argo CD must show the endpoint kinds for their moves to be tested: run alone, this test applies the generated argocd-cm patch.
    const apps = await argo!.applications();
    if (!apps.includes(fromParis) || excluded(await argo!.application(fromParis))) {
      await argo!.kubectl(['patch', 'configmap', 'argocd-cm', '-n', parse(stockArgoCdCm).metadata.namespace, '--type', 'merge', '--patch-file', join(ws.dir, 'delivery', 'argocd', ARGOCD_CM_PATCH_FILES['all-endpoints'])]);
      await argo!.restartController();
    }
    const first = await commit();
    const delivery = join(ws.dir, 'delivery', 'argocd');
    await argo!.kubectl(['apply', '-f', join(delivery, 'appproject-mirrorc.yaml'), '-f', join(delivery, 'applicationset-mirrorc.yaml')]);
    const synced = await waitForCluster('london', `be Synced/Healthy at ${first} with endpoints shown`, (a) => syncedAt(first)(a) && !excluded(a));
    await assertLiveEqualsGit('london', synced);
    const fileBefore = generatorFile();
    const appBefore = await argo!.application(fromParis);
    const uidsBefore = await uids();
    const managedBefore = await managed('london');
    assert.ok(managedBefore.has('EndpointSlice/shop/pay-paris-ipv4') && managedBefore.has('Endpoints/shop/mail-paris'), [...managedBefore.keys()].join('\n'));

    // Every DELETED event of london's managed Services, Endpoints and EndpointSlices from now on (a filtered watch also reports an object that loses the label).
    const kubectlBin = join(await ensureKubeBinaries(), 'kubectl');
    const watches = ['services', 'endpoints', 'endpointslices.discovery.k8s.io'].map((kind) => {
      const child = spawn(kubectlBin, [`--kubeconfig=${fleet!.kubeconfig('admin')}`, '--context=london', 'get', kind, '-A', '-l', `${MANAGED_LABEL}=true`,
        '--watch', '--output-watch-events', '-o', 'json'], { stdio: ['ignore', 'pipe', 'pipe'] });
      const w = { kind, child, out: '', err: '' };
      child.stdout!.setEncoding('utf8').on('data', (d: string) => { w.out += d; });
      child.stderr!.setEncoding('utf8').on('data', (d: string) => { w.err += d; });
      return w;
    });
    /** The events printed so far (kubectl prints one indented JSON document per event; the last may still be arriving). */
    const events = (w: (typeof watches)[number]): { type: string; object: any }[] => {
      const docs = w.out.split(/\n(?=\{)/).filter((x) => x.trim());
      const out: { type: string; object: any }[] = [];
      docs.forEach((x, i) => {
        try {
          out.push(JSON.parse(x));
        } catch (e) {
          if (i < docs.length - 1) throw e;
        }
      });
      return out;
    };
    try {
      // The watches list first (an ADDED event per object), then watch from that list: once every object is listed, no event is missed.
      const listed = Date.now() + 120_000;
      for (const w of watches) {
        const want = [...managedBefore.keys()].filter((k) => k.startsWith(`${w.kind === 'services' ? 'Service' : w.kind === 'endpoints' ? 'Endpoints' : 'EndpointSlice'}/`)).length;
        while (events(w).length < want) {
          assert.ok(Date.now() < listed && w.child.exitCode === null, `watch of ${w.kind} did not list: ${w.err}`);
          await new Promise((r) => setTimeout(r, 200));
        }
      }

      // WHEN paris exports more services than one unit holds, synth splits from-paris into shards and CI commits
      for (const name of ['fees', 'gift', 'hats', 'ink']) await applyService(fleet!, 'paris', 'shop', name, { app: name, ...GATEWAY });
      assert.equal((await ws.synth({ maxUnitObjects })).exitCode, ExitCode.OK, ws.logs.join('\n'));
      const units = parisUnits();
      assert.ok(units.length >= 2, `from-paris split: ${units.join(', ')}`);
      assert.deepEqual(units, units.map((_, k) => (k === 0 ? 'from-paris' : `from-paris.${k}`)).sort(), 'shards from-paris, from-paris.1, …');
      const after = parisFiles();
      const moved = [...before].filter(([file, unit]) => after.get(file) !== unit).map(([file]) => file);
      assert.ok(moved.length > 0, `some mirror of from-paris moved to another shard: ${JSON.stringify([...after])}`);
      for (const [file] of before) {
        assert.ok(after.has(file), `${file} still written`);
        assert.equal(ws.files().get(`london/${file}`), beforeText.get(`london/${file}`), `${file}: same content, only its folder changed`);
      }
      for (const file of moved) assert.notEqual(after.get(file), 'from-paris', file);
      // AND the family's Application is generated from the same file: its source (the whole family, by a glob) does not change
      assert.equal(generatorFile(), fileBefore, 'london.from-paris.yaml unchanged');
      const revision = await argo!.repo.publish(ws.dir, ['dist', 'delivery']);
      // The Applications are refreshed BEFORE the ApplicationSet (the order that pruned and recreated the moved mirrors when each
      // unit was a source of its own, changed by the ApplicationSet in the same commit: issue 35, finding 5). Here the Application
      // syncs the new commit while the ApplicationSet has not even looked at it.
      for (const name of await argo!.applications()) await argo!.refresh(name, 'normal');
      await argo!.waitForApplication(fromParis, `be Synced/Healthy at ${revision} before the ApplicationSet is refreshed`, (a) => syncedAt(revision)(a) && !excluded(a));
      await argo!.kubectl(['annotate', 'applicationset', APPLICATION_SET_NAME, '-n', argo!.namespace, '--overwrite', `${APPLICATION_SET_REFRESH_ANNOTATION}=true`]);
      // (the ApplicationSet controller removes the annotation once it has generated and applied the Applications of the new commit)
      const appSetRefreshed = Date.now() + 300_000;
      while (JSON.parse(await argo!.kubectl(['get', 'applicationset', APPLICATION_SET_NAME, '-n', argo!.namespace, '-o', 'json'])).metadata.annotations?.[APPLICATION_SET_REFRESH_ANNOTATION] !== undefined) {
        assert.ok(Date.now() < appSetRefreshed, 'the ApplicationSet did not reconcile the new commit');
        await new Promise((r) => setTimeout(r, 500));
      }
      const appAfter = await argo!.application(fromParis);
      // (metadata.generation cannot tell: the Application CRD has no status subresource, so every status write bumps it)
      assert.deepEqual(appAfter.spec, appBefore.spec, 'the Application spec is the same after the ApplicationSet reconciled the new commit');

      // THEN london's Applications are Synced/Healthy at the new commit and list every object (each moved one too)
      const done = await waitForCluster('london', `be Synced/Healthy at ${revision}`, (a) => syncedAt(revision)(a) && !excluded(a));
      await assertLiveEqualsGit('london', done);
      const listedByArgo = new Set((done.status?.resources ?? []).map((r) => `${r.kind}/${r.namespace ?? ''}/${r.name}`));
      for (const k of uidsBefore.keys()) assert.ok(listedByArgo.has(k), `Argo CD still tracks ${k}`);
      // AND no object of london was deleted or recreated: every one keeps its uid, the new mirrors are added
      const uidsAfter = await uids();
      for (const [k, uid] of uidsBefore) assert.equal(uidsAfter.get(k), uid, `${k} kept its uid`);
      const managedAfter = await managed('london');
      for (const [k, uid] of managedBefore) assert.equal(managedAfter.get(k), uid, k);
      assert.ok(managedAfter.has('Service/shop/ink-paris'));
      // AND no watch saw a DELETED event
      for (const w of watches) {
        assert.equal(w.child.exitCode, null, `watch of ${w.kind} ended: ${w.err}`);
        const deleted = events(w).filter((e) => e.type === 'DELETED').map((e) => `${e.object.metadata.namespace}/${e.object.metadata.name}`);
        assert.deepEqual(deleted, [], `${w.kind} deleted`);
      }
      t.diagnostic(`${units.length} shards of at most ${maxUnitObjects} objects; moved: ${moved.join(', ')}`);
    } finally {
      for (const w of watches) w.child.kill();
    }
  });
});
