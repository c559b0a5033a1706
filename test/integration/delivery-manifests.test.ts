/**
 * The committed delivery/ and dist/ of the example fleet against a real kube-apiserver with the real
 * Argo CD and Flux CRDs (test/fixtures/crds, copies of ../shared/crds): server-side dry-run with strict field validation; the
 * argocd-cm patches applied to the stock argocd-cm; `kubectl kustomize` of every cluster folder.
 */
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import YAML from 'yaml';
import { argoCdConfigMapChange, argoCdConfigMapData } from '../../src/delivery/argocd-cm-change.js';
import { observationRules } from '../../src/observe/observation-rbac.js';
import { kubeFleetForTests, type KubeFleet } from '../harness/kube-fleet.js';

const CRDS = 'test/fixtures/crds';
const STOCK_ARGOCD_CM = 'src/delivery/argocd-cm.stock.yaml';
const CRD_FILES = ['argocd-application-crd.yaml', 'argocd-applicationset-crd.yaml', 'argocd-appproject-crd.yaml', 'flux-kustomizations-crd.yaml'];

/** Waits until the API server serves a freshly created CRD (its Established condition is True). */
async function untilEstablished(fleet: KubeFleet, crd: string): Promise<void> {
  for (let attempt = 0; attempt < 600; attempt++) {
    const live = JSON.parse(await fleet.kubectl('hub', ['get', 'crd', crd, '-o', 'json'])) as { status?: { conditions?: { type: string; status: string }[] } };
    if (live.status?.conditions?.some((c) => c.type === 'Established' && c.status === 'True')) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`CRD ${crd} never became Established`);
}

describe('delivery manifests against real CRD schemas', () => {
  let fleet: KubeFleet | undefined;

  before(async (t) => {
    fleet = await kubeFleetForTests(t as never, ['hub'], { readerRules: observationRules({ source: true, target: true }) });
    if (!fleet) return;
    assert.ok(existsSync(CRDS), `${CRDS} holds the Argo CD and Flux CRDs`);
    for (const file of CRD_FILES) await fleet.kubectl('hub', ['apply', '--server-side', '-f', join(CRDS, file)]);
    for (const crd of ['applications.argoproj.io', 'applicationsets.argoproj.io', 'appprojects.argoproj.io', 'kustomizations.kustomize.toolkit.fluxcd.io']) {
      await untilEstablished(fleet, crd);
    }
    for (const ns of ['argocd', 'flux-system']) await fleet.kubectl('hub', ['create', 'namespace', ns]);
  });

  after(async () => {
    await fleet?.stop();
  });

  /** Server-side dry-run with strict field validation: unknown or mistyped fields are errors. */
  const dryRun = (file: string): Promise<string> =>
    fleet!.kubectl('hub', ['apply', '--server-side', '--dry-run=server', '--validate=strict', '--field-manager=mirrorc-test', '-f', file]);

  test('the ApplicationSet, AppProject and every Flux Kustomization are accepted by the real schemas', async (t) => {
    if (!fleet) return t.skip('no kube-apiserver');
    // GIVEN the generated files
    const flux = readdirSync('delivery/flux').flatMap((c) => [
      `delivery/flux/${c}/kustomization-mirrorc.yaml`, `delivery/flux/${c}/root/kustomization-mirrorc-units.yaml`,
      ...readdirSync(`delivery/flux/${c}/units`).filter((f) => f !== 'kustomization.yaml').map((f) => `delivery/flux/${c}/units/${f}`),
    ]);
    const files = ['delivery/argocd/applicationset-mirrorc.yaml', 'delivery/argocd/appproject-mirrorc.yaml', ...flux];
    assert.ok(flux.some((f) => f.endsWith('/kustomization-mirrorc-from-paris.yaml')) && flux.some((f) => f.endsWith('/kustomization-mirrorc-base.yaml')), flux.join('\n'));
    // WHEN each is dry-run applied THEN the API server accepts it as it is
    for (const file of files) assert.match(await dryRun(file), /serverside-applied \(server dry run\)/, file);
  });

  test('the same dry-run rejects a manifest with a field the schema does not know (the check has teeth)', async (t) => {
    if (!fleet) return t.skip('no kube-apiserver');
    const appSet = YAML.parse(readFileSync('delivery/argocd/applicationset-mirrorc.yaml', 'utf8'));
    appSet.spec.template.spec.syncPolicy.automated.prunne = true;
    await assert.rejects(
      fleet.kubectl('hub', ['apply', '--server-side', '--dry-run=server', '--validate=strict', '-f', '-'], JSON.stringify(appSet)),
      /syncPolicy\.automated\.prunne: field not declared in schema/,
    );
  });

  test('each argocd-cm patch, applied to the stock argocd-cm, changes only the exclusions (and selectors) as computed', async (t) => {
    if (!fleet) return t.skip('no kube-apiserver');
    const stock = readFileSync(STOCK_ARGOCD_CM, 'utf8');
    const stockData = argoCdConfigMapData(stock);
    for (const [file, variant] of [['argocd-cm-patch.yaml', 'all-endpoints'], ['argocd-cm-patch-managed-endpoints-only.yaml', 'managed-endpoints-only']] as const) {
      // GIVEN a stock argocd-cm in the argocd namespace
      await fleet.kubectl('hub', ['delete', 'configmap', 'argocd-cm', '-n', 'argocd', '--ignore-not-found']);
      await fleet.kubectl('hub', ['apply', '-n', 'argocd', '-f', '-'], stock);
      // WHEN the generated patch is applied as the README says
      await fleet.kubectl('hub', ['patch', 'configmap', 'argocd-cm', '-n', 'argocd', '--type', 'merge', '--patch-file', `delivery/argocd/${file}`]);
      // THEN the live data is the stock data with exactly the computed keys replaced or added
      const live = JSON.parse(await fleet.kubectl('hub', ['get', 'configmap', 'argocd-cm', '-n', 'argocd', '-o', 'json']));
      assert.deepEqual(live.data, { ...stockData, ...argoCdConfigMapChange(stockData, variant) }, file);
      assert.ok(!/\n- apiGroups:\n {2}- ''\n {2}- discovery\.k8s\.io\n {2}kinds:\n {2}- Endpoints/.test(`\n${live.data['resource.exclusions']}`), file);
      assert.equal(live.metadata.labels['app.kubernetes.io/part-of'], 'argocd', `${file}: stock labels kept`);
    }
  });

  test('kubectl kustomize builds every delivery unit into exactly the objects of its files, and dist/<cluster> into all of them', async (t) => {
    if (!fleet) return t.skip('no kube-apiserver');
    const clusters = readdirSync('dist');
    assert.ok(clusters.length >= 2);
    const listed = (folder: string): string[] => (YAML.parse(readFileSync(`${folder}/kustomization.yaml`, 'utf8')) as { resources: string[] }).resources;
    type Built = { kind: string; metadata: { name: string; namespace?: string } };
    const build = async (folder: string): Promise<Built[]> =>
      YAML.parseAllDocuments(await fleet!.kubectl('hub', ['kustomize', folder])).map((d) => d.toJSON() as Built);
    const identity = (o: Built): string => `${o.kind} ${o.metadata.namespace ?? ''}/${o.metadata.name}`;
    /** The objects of a file as written: one per YAML document (a mirror's file holds all of its objects). */
    const written = (file: string): Built[] => YAML.parseAllDocuments(readFileSync(file, 'utf8')).map((d) => d.toJSON() as Built);
    for (const cluster of clusters) {
      let total = 0;
      for (const unit of listed(`dist/${cluster}`)) {
        // WHEN a unit folder is built like Argo CD and Flux build it
        const built = await build(`dist/${cluster}/${unit}`);
        // THEN it is exactly the objects of its listed files, every document of each file once
        const files = listed(`dist/${cluster}/${unit}`).map((f) => written(`dist/${cluster}/${unit}/${f}`));
        assert.ok(files.every((objects) => objects.length > 0), `${cluster}/${unit}: a listed file without objects`);
        assert.deepEqual(built.map(identity).sort(), files.flat().map(identity).sort(), `${cluster}/${unit}`);
        total += built.length;
        if (unit === 'base') assert.ok(built.some((o) => o.kind === 'ClusterRole' && o.metadata.name === 'mirrorc-observer'), cluster);
      }
      // AND the cluster folder (what a tool still syncing dist/<cluster> builds) is every unit together
      assert.equal((await build(`dist/${cluster}`)).length, total, cluster);
    }
  });
});
