/**
 * Moving objects between Flux Kustomizations never deletes them: the real kustomize-controller
 * (v1.9.6) against real kube-apiservers, asserting every object keeps its uid.
 *
 * - today's layout → delivery units: the pre-unit output (one Kustomization `mirrorc` syncing
 *   `dist/<cluster>` with prune on) is synced first; then the unit layout is published. london
 *   takes the new revision before its entry Kustomization is switched (revision first), berlin has
 *   its entry switched before the new revision exists (entry first).
 * - re-splits: with 10 objects per unit, london's `from-paris` family grows from one shard to two,
 *   and then (skipping a revision Flux never sees) to more; the shard that loses mirrors waits for
 *   the ones that gain them (dependsOn), so no mirror is deleted and re-created.
 *
 * docs/delivery-units.md explains why each step is safe whatever the reconcile order.
 */
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { parse, parseAllDocuments } from 'yaml';
import { ExitCode } from '../../src/errors/exit-codes.js';
import type { FleetDefinition } from '../../src/load/load-fleet.js';
import { MANAGED_LABEL } from '../../src/contract/mirrorc.js';
import { FLUX_KUSTOMIZATION_NAME, FLUX_UNITS_KUSTOMIZATION_NAME } from '../../src/delivery/flux-kustomization.js';
import { readTree } from '../../src/emit/write-output.js';
import { Cluster, GitOpsDelivery, Link } from '../../src/model/index.js';
import { observationRules } from '../../src/observe/observation-rbac.js';
import { fluxControllerForTests, fluxControllerSkipReason, type FluxController } from '../harness/flux-controller.js';
import { kubeFleetForTests, kubeFleetSkipReason, type KubeFleet } from '../harness/kube-fleet.js';
import { legacyLayout } from '../unit/support/legacy-layout.js';
import { applyService, ensureNamespace, installGateway, Workspace } from './support.js';

const GATEWAY = { 'mirror.linkerd.io/exported': 'true' };
const SOURCES = ['london', 'berlin'] as const;
/** Small units, so that a handful of services makes a family split (3 objects per gateway mirror). */
const MAX_UNIT_OBJECTS = 10;
const OWNER_LABEL = 'kustomize.toolkit.fluxcd.io/name';

const defineFleet: FleetDefinition = (fleet) => {
  const paris = new Cluster(fleet, 'paris');
  for (const source of SOURCES) new Link(fleet, `${source}-from-paris`, { source: new Cluster(fleet, source), target: paris });
  new GitOpsDelivery(fleet, 'delivery', { repoUrl: 'https://git.invalid/fleet.git', revision: 'main', flux: {} });
};

/** The Kustomization delivery/flux/<cluster>/kustomization-mirrorc.yaml held before delivery units. */
const legacyKustomization = (cluster: string): string => JSON.stringify({
  apiVersion: 'kustomize.toolkit.fluxcd.io/v1',
  kind: 'Kustomization',
  metadata: { name: FLUX_KUSTOMIZATION_NAME, namespace: 'flux-system', labels: { [MANAGED_LABEL]: 'true' } },
  spec: { interval: '5m', path: `./dist/${cluster}`, prune: true, sourceRef: { kind: 'GitRepository', name: 'flux-system' } },
});

describe('moving objects between Flux Kustomizations never deletes them (real kustomize-controller)', () => {
  let fleet: KubeFleet | undefined;
  const flux = new Map<string, FluxController>();
  let ws: Workspace | undefined;
  let legacyRepo: string | undefined;
  let skip: string | undefined;

  before(async (t) => {
    fleet = await kubeFleetForTests(t as never, ['london', 'berlin', 'paris'], { readerRules: observationRules({ source: true, target: true }) });
    if (!fleet) {
      skip = kubeFleetSkipReason;
      return;
    }
    await installGateway(fleet, 'paris', '203.0.113.10');
    for (const source of SOURCES) await ensureNamespace(fleet, source, 'shop');
    for (const source of SOURCES) {
      const controller = await fluxControllerForTests(t as never, fleet, source);
      if (!controller) {
        skip = fluxControllerSkipReason;
        return;
      }
      flux.set(source, controller);
    }
    ws = new Workspace(defineFleet, fleet.kubeconfig('reader'));
    legacyRepo = mkdtempSync(join(ws.dir, 'legacy-'));
  });

  after(async () => {
    await Promise.all([...flux.values()].map((c) => c.stop()));
    await fleet?.stop();
    ws?.remove();
  });

  const synth = async (): Promise<void> => {
    const run = await ws!.synth({ maxUnitObjects: MAX_UNIT_OBJECTS });
    assert.equal(run.exitCode, ExitCode.OK, ws!.logs.join('\n'));
  };

  /** Every object mirrorc manages in `cluster` (mirrors and the reader identity): `kind/namespace/name → uid and owner`. */
  const live = async (cluster: string): Promise<Map<string, { uid: string; owner: string | undefined }>> => {
    const list = JSON.parse(await fleet!.kubectl(cluster, ['get', 'services,endpoints,endpointslices.discovery.k8s.io,serviceaccounts,clusterroles,clusterrolebindings', '-A', '-l', `${MANAGED_LABEL}=true`, '-o', 'json']));
    return new Map((list.items as any[]).map((o) => [`${o.kind}/${o.metadata.namespace ?? ''}/${o.metadata.name}`, { uid: o.metadata.uid as string, owner: o.metadata.labels?.[OWNER_LABEL] as string | undefined }]));
  };
  const uids = (m: Map<string, { uid: string }>): Map<string, string> => new Map([...m].map(([k, v]) => [k, v.uid]));

  /** The unit Kustomizations synth generated for `cluster`: their names, from delivery/flux/<cluster>/units/. */
  const unitKustomizations = (cluster: string): string[] =>
    readdirSync(join(ws!.dir, 'delivery/flux', cluster, 'units')).filter((f) => f !== 'kustomization.yaml')
      .map((f) => (parse(readFileSync(join(ws!.dir, 'delivery/flux', cluster, 'units', f), 'utf8')) as { metadata: { name: string } }).metadata.name);

  /** Waits until the entry, mirrorc-units and every unit of `cluster` applied `revision` and are Ready. */
  const waitForUnits = async (cluster: string, revision: string): Promise<void> => {
    const controller = flux.get(cluster)!;
    for (const name of [FLUX_KUSTOMIZATION_NAME, FLUX_UNITS_KUSTOMIZATION_NAME, ...unitKustomizations(cluster)]) await controller.waitForReady(name, revision);
  };

  /** The objects of a unit folder's files (a mirror's file holds each of its objects as one YAML document). */
  const unitObjects = (cluster: string, unit: string): { kind: string; metadata: { name: string; namespace?: string } }[] =>
    [...readTree(join(ws!.outDir, cluster, unit))].filter(([path]) => path !== 'kustomization.yaml')
      .flatMap(([, text]) => parseAllDocuments(text).map((d) => d.toJS() as { kind: string; metadata: { name: string; namespace?: string } }));

  /** The objects of `cluster`'s unit folders, by the unit Kustomization that must own them: `kind/namespace/name → owner`. */
  const expectedOwners = (cluster: string): Map<string, string> => {
    const out = new Map<string, string>();
    const units = [...readTree(join(ws!.outDir, cluster)).keys()].filter((p) => p.split('/').length > 1).map((p) => p.split('/')[0]!);
    for (const unit of new Set(units)) {
      for (const o of unitObjects(cluster, unit)) {
        if (o.kind === 'Namespace') continue;
        out.set(`${o.kind}/${o.metadata.namespace ?? ''}/${o.metadata.name}`, `mirrorc-${unit}`);
      }
    }
    return out;
  };

  /** THEN: every object of the unit layout is live and owned by its unit's Kustomization. */
  const assertOwnedByUnits = async (cluster: string): Promise<void> => {
    const now = await live(cluster);
    for (const [key, owner] of expectedOwners(cluster)) assert.equal(now.get(key)?.owner, owner, `${cluster}: ${key}`);
  };

  /** Writes the legacy layout of the current output, and publishes it to `cluster`'s Flux. */
  const publishLegacy = async (cluster: string): Promise<string> => {
    rmSync(join(legacyRepo!, 'dist'), { recursive: true, force: true });
    for (const [path, text] of legacyLayout(readTree(ws!.outDir))) {
      mkdirSync(dirname(join(legacyRepo!, 'dist', path)), { recursive: true });
      writeFileSync(join(legacyRepo!, 'dist', path), text);
    }
    return flux.get(cluster)!.publish(legacyRepo!, ['dist']);
  };

  test("today's layout (one Kustomization per source folder) moves to delivery units with every object kept, in both orders", async (t) => {
    if (!ws) return t.skip(skip ?? 'no fleet');
    // GIVEN paris exports three services, and each source syncs today's layout with today's Kustomization
    for (const name of ['web', 'cart', 'pay']) await applyService(fleet!, 'paris', 'shop', name, { app: name, ...GATEWAY });
    await synth();
    for (const source of SOURCES) {
      await fleet!.kubectl(source, ['apply', '--server-side', '--field-manager=flux-bootstrap', '-f', '-'], legacyKustomization(source));
      const revision = await publishLegacy(source);
      const k = await flux.get(source)!.waitForReady(FLUX_KUSTOMIZATION_NAME, revision);
      assert.ok((k.status?.inventory?.entries ?? []).some((e) => e.id === 'shop_web-paris__Service'), JSON.stringify(k.status?.inventory));
    }
    const before = new Map(await Promise.all(SOURCES.map(async (s) => [s, await live(s)] as const)));
    for (const s of SOURCES) {
      assert.ok(before.get(s)!.has('Service/shop/web-paris') && before.get(s)!.has('ClusterRole//mirrorc-observer'), s);
      assert.ok([...before.get(s)!.values()].every((o) => o.owner === FLUX_KUSTOMIZATION_NAME), s);
    }
    const entry = (source: string): string => readFileSync(join(ws!.dir, 'delivery/flux', source, 'kustomization-mirrorc.yaml'), 'utf8');

    // WHEN london gets the unit layout as a new revision while its entry still has today's spec ...
    const london = flux.get('london')!;
    const revision = await london.publish(ws.dir, ['dist', 'delivery']);
    // THEN today's Kustomization applies it (dist/london/kustomization.yaml lists the unit folders) and deletes nothing
    await london.waitForReady(FLUX_KUSTOMIZATION_NAME, revision);
    assert.deepEqual(uids(await live('london')), uids(before.get('london')!));
    // ... AND WHEN the entry is then switched to the generated one
    await fleet!.kubectl('london', ['apply', '--server-side', '--force-conflicts', '--field-manager=flux-bootstrap', '-f', '-'], entry('london'));
    await waitForUnits('london', revision);
    // THEN every object is now owned by its unit, with the uid it had
    assert.deepEqual(uids(await live('london')), uids(before.get('london')!));
    await assertOwnedByUnits('london');

    // WHEN berlin's entry is switched first (the new revision is not published yet: its path does not exist) ...
    const berlin = flux.get('berlin')!;
    await fleet!.kubectl('berlin', ['apply', '--server-side', '--force-conflicts', '--field-manager=flux-bootstrap', '-f', '-'], entry('berlin'));
    // (a failed reconcile does not advance observedGeneration: the controller's message is what tells it tried the new spec)
    await berlin.waitFor(FLUX_KUSTOMIZATION_NAME, 'fail on the missing path of the old revision', (k) =>
      k.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'False' && /kustomization path not found: .*delivery\/flux\/berlin\/root/.test(c.message ?? "")) === true);
    assert.deepEqual(uids(await live('berlin')), uids(before.get('berlin')!));
    // ... and the unit layout is published after
    const berlinRevision = await berlin.publish(ws.dir, ['dist', 'delivery']);
    await waitForUnits('berlin', berlinRevision);
    // THEN the same: every object kept, now owned by its unit
    assert.deepEqual(uids(await live('berlin')), uids(before.get('berlin')!));
    await assertOwnedByUnits('berlin');
  });

  test('a family that outgrows its unit splits into shards, and later splits again, with every mirror kept', async (t) => {
    if (!ws) return t.skip(skip ?? 'no fleet');
    const london = flux.get('london')!;
    const families = (): string[] => [...readTree(join(ws!.outDir, 'london')).keys()].map((p) => p.split('/')[0]!).filter((u) => u.startsWith('from-paris'))
      .filter((u, i, a) => a.indexOf(u) === i).sort();
    assert.deepEqual(families(), ['from-paris']);
    // GIVEN london's units in sync (previous test); WHEN paris exports a fourth service: 12 objects, over 10
    const before = uids(await live('london'));
    await applyService(fleet!, 'paris', 'shop', 'tax', { app: 'tax', ...GATEWAY });
    await synth();
    // THEN the family has two shards, each within the limit, and mirrors moved only from shard 0 to shard 1
    assert.deepEqual(families(), ['from-paris', 'from-paris.1']);
    for (const unit of families()) {
      const objects = unitObjects('london', unit);
      assert.ok(objects.length <= MAX_UNIT_OBJECTS, `${unit}: ${objects.length} objects`);
    }
    // WHEN Flux gets it, the losing shard asked to reconcile first (it must wait for the gaining one)
    const revision = await london.publish(ws.dir, ['dist', 'delivery']);
    await london.requestReconcile('mirrorc-from-paris', 'loser-first').catch(() => undefined);
    await waitForUnits('london', revision);
    // THEN no object was deleted or re-created, and each is owned by its new unit
    const afterSplit = uids(await live('london'));
    for (const [key, uid] of before) assert.equal(afterSplit.get(key), uid, key);
    assert.ok(afterSplit.has('Service/shop/tax-paris'));
    await assertOwnedByUnits('london');

    // WHEN paris exports eight more services in two steps, and Flux sees only the last revision
    for (const name of ['a1', 'a2', 'a3', 'a4']) await applyService(fleet!, 'paris', 'shop', name, { app: name, ...GATEWAY });
    await synth();
    for (const name of ['b1', 'b2', 'b3', 'b4']) await applyService(fleet!, 'paris', 'shop', name, { app: name, ...GATEWAY });
    await synth();
    assert.ok(families().length >= 4, families().join(', '));
    const last = await london.publish(ws.dir, ['dist', 'delivery']);
    await waitForUnits('london', last);
    // THEN every mirror that existed keeps its uid, the new ones exist, every object is owned by its unit
    const now = uids(await live('london'));
    for (const [key, uid] of afterSplit) assert.equal(now.get(key), uid, key);
    for (const name of ['a1', 'b4']) assert.ok(now.has(`Service/shop/${name}-paris`), name);
    await assertOwnedByUnits('london');
  });
});
