/**
 * objectJson (src/emit/object-json.ts) computes an ApiObject's JSON without cdk8s' resolve pass: it
 * must give exactly what `toJson()` gives (same values, same key order, hence the same YAML) for
 * every object mirrorc renders, and hand anything it cannot vouch for to `toJson()`.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { ApiObject, App, Chart, JsonPatch, Lazy } from 'cdk8s';
import { k8s } from 'cdk8s-plus-28';
import { compileFleet } from '../../src/compile/compile-fleet.js';
import { objectJson, plainObjectJson } from '../../src/emit/object-json.js';
import { buildFleet, importFleetDefinition } from '../../src/load/load-fleet.js';
import { readLock } from '../../src/observe/lock-file.js';
import { addReaderRbacCharts } from '../../src/pipeline/synth-delivery.js';
import { everyModeWithMetadata } from '../fixtures/snapshots.js';

/** Every ApiObject under `app`. */
function apiObjects(app: App): ApiObject[] {
  return app.node.findAll().filter(ApiObject.isApiObject);
}

/** Asserts the direct JSON of every object equals toJson(), key order included, and that the direct path was taken. */
function assertSameAsToJson(objects: readonly ApiObject[]): void {
  for (const o of objects) {
    const direct = plainObjectJson(o);
    assert.ok(direct !== undefined, `${o.node.path}: not computed directly`);
    assert.equal(JSON.stringify(direct), JSON.stringify(o.toJson()), o.node.path);
  }
}

describe('objectJson', () => {
  test('GIVEN the example fleet and its lock WHEN compiled THEN every object (each mode, MCS imports, Namespaces, reader RBAC) is computed directly, equal to toJson() key for key', async () => {
    const fleet = buildFleet(await importFleetDefinition('clusters/fleet.ts'), 'clusters/fleet.ts').fleet.toSpec();
    const { snapshot: lock } = readLock('clusters/fleet.lock.json');
    const app = new App({ outdir: 'unused' });
    compileFleet(app, fleet, lock);
    addReaderRbacCharts(app, fleet);
    const objects = apiObjects(app);
    const kinds = new Set(objects.map((o) => o.kind));
    for (const kind of ['Service', 'Endpoints', 'EndpointSlice', 'Namespace', 'ServiceImport', 'ClusterRole', 'ClusterRoleBinding', 'ServiceAccount']) assert.ok(kinds.has(kind), `no ${kind} in ${[...kinds].join(', ')}`);
    assertSameAsToJson(objects);
  });

  test('GIVEN target services whose labels and annotations hold ambiguous scalars, empty strings and control characters WHEN compiled in every mode THEN every object equals toJson()', () => {
    const hostile: Record<string, string> = { '': 'empty key', 'b.example.com/k': '', 'a.example.com/k': 'null', 'z/k': '\u0000\n\u2028', '10': 'number-like key', '9': 'x' };
    const { fleet, snap } = everyModeWithMetadata(hostile);
    const app = new App({ outdir: 'unused' });
    compileFleet(app, fleet, snap);
    const objects = apiObjects(app);
    assert.ok(objects.length >= 10, `${objects.length} objects`);
    assertSameAsToJson(objects);
  });

  test('GIVEN an object with a Lazy value, a JSON patch, a custom resolver or a subclass WHEN rendered THEN it goes through toJson() (the value a resolver or patch gives is kept)', () => {
    const app = new App({ outdir: 'unused' });
    const chart = new Chart(app, 'c', { disableResourceNameHashes: true });
    const lazy = new k8s.KubeService(chart, 'lazy', { metadata: { name: 'lazy', labels: { a: Lazy.any({ produce: () => 'produced' }) as unknown as string } } });
    const patched = new k8s.KubeService(chart, 'patched', { metadata: { name: 'patched' }, spec: { ports: [{ port: 80 }] } });
    patched.addJsonPatch(JsonPatch.add('/spec/type', 'ClusterIP'));
    class Custom extends k8s.KubeService {
      override toJson(): any {
        return { ...super.toJson(), extra: true };
      }
    }
    const custom = new Custom(chart, 'custom', { metadata: { name: 'custom' } });
    for (const o of [lazy, patched, custom]) {
      assert.equal(plainObjectJson(o), undefined, o.node.path);
      assert.deepEqual(objectJson(o), o.toJson());
    }
    assert.equal((objectJson(lazy) as any).metadata.labels.a, 'produced');
    assert.equal((objectJson(patched) as any).spec.type, 'ClusterIP');
    assert.equal((objectJson(custom) as any).extra, true);
    const resolving = new App({ outdir: 'unused', resolvers: [{ resolve: (ctx) => (ctx.value === 'x' ? ctx.replaceValue('y') : undefined) }] });
    const replaced = new k8s.KubeNamespace(new Chart(resolving, 'r'), 'ns', { metadata: { name: 'ns', labels: { k: 'x' } } });
    assert.equal(plainObjectJson(replaced), undefined);
    assert.equal((objectJson(replaced) as any).metadata.labels.k, 'y');
  });
});
