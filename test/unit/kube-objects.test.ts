/**
 * The objects the render path writes come from pure functions (src/compile/kube-objects.ts and each
 * mode's `…Objects`), not from cdk8s. Their oracle here is cdk8s itself: every object of the example
 * fleet, of every mode with hostile metadata and of a generated fleet is turned back into the typed
 * props of its generated class (`k8s.KubeService`, …; the JSON → property names are read from the
 * generated mapping functions, not written here), created as that class, and its `toJson()` (resolve,
 * sanitise, sort, generated mapping) must be the very object, key order included. A wrong field name
 * (`clusterIp`), an unknown field, an unsorted map or a field out of order fails.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { ApiObject, App, Chart } from 'cdk8s';
import { k8s } from 'cdk8s-plus-28';
import { writeGeneratedRepo } from '../../bench/generate-fleet.js';
import { planFleet } from '../../src/compile/compile-fleet.js';
import { objectMeta, serviceObject, type KubeObject } from '../../src/compile/kube-objects.js';
import { gatewayMirrorObjects, GatewayMirror, type GatewayMirrorProps } from '../../src/compile/modes/gateway/gateway-mirror.js';
import { mcsImportObjects, McsImport } from '../../src/compile/modes/mcs/mcs-import.js';
import { renderContext, sourceNamespaceObject } from '../../src/compile/source-chart.js';
import type { FleetSpec } from '../../src/model/fleet-spec.js';
import { buildFleet, importFleetDefinition } from '../../src/load/load-fleet.js';
import { readLock } from '../../src/observe/lock-file.js';
import type { FleetSnapshot } from '../../src/snapshot/snapshot.js';
import { everyModeWithMetadata } from '../fixtures/snapshots.js';

/** The generated mapping functions of cdk8s-plus-28's k8s module, as source text. */
const GENERATED_SOURCE = readFileSync(createRequire(import.meta.url).resolve('cdk8s-plus-28/lib/imports/k8s.js'), 'utf8');

/** One field of a generated type: its typed property name, and how the mapping reads it. */
interface GeneratedField {
  readonly prop: string;
  /** `map`: copied entry by entry (keys are data); `union`: `obj.<prop>?.value` (IntOrString …); a type name: mapped by its `toJson_<type>`. */
  readonly form?: 'map' | 'union' | string;
}

/** Each generated type's fields by JSON name, read from its `function toJson_<type>(obj)` (lines `'<json>': <how obj.<prop> is read>,`). */
const GENERATED_TYPES = new Map<string, Map<string, GeneratedField>>();
for (const [, type, body] of GENERATED_SOURCE.matchAll(/^function toJson_([A-Za-z0-9]+)\(obj\) \{\n([\s\S]*?)\n\}/gm)) {
  const fields = new Map<string, GeneratedField>();
  for (const [, json, value] of body!.matchAll(/^\s+'([A-Za-z0-9$]+)': (.*),$/gm)) {
    const map = /^\(\(obj\.([A-Za-z0-9$]+)\) === undefined\) \? undefined : \(Object\.entries/.exec(value!);
    const nested = /toJson_([A-Za-z0-9]+)\((?:obj\.([A-Za-z0-9$]+)|y)\)/.exec(value!);
    const read = /obj\.([A-Za-z0-9$]+)(\?\.value)?/.exec(value!);
    const prop = map?.[1] ?? read?.[1];
    if (prop === undefined) continue;
    fields.set(json!, { prop, ...(map ? { form: 'map' } : nested ? { form: nested[1]! } : read?.[2] !== undefined ? { form: 'union' } : {}) });
  }
  GENERATED_TYPES.set(type!, fields);
}

/** `json` (a value as written) as the typed props of generated type `type`. */
function typedProps(json: unknown, type: string): unknown {
  if (Array.isArray(json)) return json.map((v) => typedProps(v, type));
  const fields = GENERATED_TYPES.get(type);
  assert.ok(fields, `no generated type ${type}`);
  assert.ok(json !== null && typeof json === 'object', `${type}: ${JSON.stringify(json)} is not an object`);
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(json)) {
    const field = fields.get(k);
    assert.ok(field !== undefined, `${k} is not a field of ${type}`);
    out[field.prop] = field.form === undefined || field.form === 'map' ? v : field.form === 'union' ? union(v) : typedProps(v, field.form);
  }
  return out;
}

function union(v: unknown): unknown {
  return typeof v === 'number' ? k8s.IntOrString.fromNumber(v) : typeof v === 'string' ? k8s.IntOrString.fromString(v) : v;
}

/** The generated class of each kind mirrorc writes (ServiceImport has none: a plain ApiObject, whose toJson sorts every key). */
const GENERATED_CLASS: Readonly<Record<string, new (scope: Chart, id: string, props: any) => ApiObject>> = {
  Service: k8s.KubeService,
  Endpoints: k8s.KubeEndpoints,
  EndpointSlice: k8s.KubeEndpointSlice,
  Namespace: k8s.KubeNamespace,
};
// (Each class's props are mapped by toJson_Kube<Kind>Props.)

/** Asserts that cdk8s gives exactly `object` for the same fields; returns the kinds seen. */
function assertAsCdk8sWrites(objects: readonly KubeObject[]): Set<string> {
  const chart = new Chart(new App({ outdir: 'unused' }), 'oracle', { disableResourceNameHashes: true });
  const kinds = new Set<string>();
  objects.forEach((object, i) => {
    kinds.add(object.kind);
    const { apiVersion, kind, ...rest } = object;
    const Class = GENERATED_CLASS[kind];
    const created = Class ? new Class(chart, `o${i}`, typedProps(rest, `Kube${kind}Props`)) : new ApiObject(chart, `o${i}`, JSON.parse(JSON.stringify(object)));
    const where = `${kind} ${object.metadata.namespace ?? ''}/${object.metadata.name}`;
    assert.equal(JSON.stringify(object), JSON.stringify(created.toJson()), where);
    assert.deepEqual(object, created.toJson(), where);
  });
  return kinds;
}

/** Every object of every unit of every source of `fleet` (and the source's Namespaces), as the render path computes them. */
function renderedObjects(fleet: FleetSpec, snapshot: FleetSnapshot): KubeObject[] {
  const { plans } = planFleet(fleet, snapshot, {});
  const objects: KubeObject[] = [];
  for (const plan of plans) {
    for (const ns of plan.namespaces) objects.push(sourceNamespaceObject(ns));
    const context = renderContext(plan.source, plan.pinnedIPs);
    for (const unit of plan.units) objects.push(...unit.objects(context));
  }
  return objects;
}

async function loadFleet(fleetFile: string, lockFile: string): Promise<{ fleet: FleetSpec; snapshot: FleetSnapshot }> {
  const fleet = buildFleet(await importFleetDefinition(fleetFile), fleetFile).fleet.toSpec();
  return { fleet, snapshot: readLock(lockFile).snapshot };
}

describe('the objects mirrorc writes (kube-objects.ts and the modes)', () => {
  test('GIVEN the example fleet and its lock WHEN its units are rendered THEN every object (each mode, MCS imports) is what cdk8s gives for the same fields', async () => {
    const { fleet, snapshot } = await loadFleet('clusters/fleet.ts', 'clusters/fleet.lock.json');
    const kinds = assertAsCdk8sWrites(renderedObjects(fleet, snapshot));
    for (const kind of ['Service', 'Endpoints', 'EndpointSlice', 'ServiceImport']) assert.ok(kinds.has(kind), `no ${kind} in ${[...kinds].join(', ')}`);
  });

  test('GIVEN labels and annotations with ambiguous scalars, empty strings, number-like keys and control characters WHEN rendered in every mode THEN every object is what cdk8s gives', () => {
    const hostile: Record<string, string> = { '': 'empty key', 'b.example.com/k': '', 'a.example.com/k': 'null', 'z/k': '\u0000\n\u2028', '10': 'number-like key', '9': 'x' };
    const { fleet, snap } = everyModeWithMetadata(hostile);
    const objects = renderedObjects(fleet, snap);
    assert.ok(objects.length >= 10, `${objects.length} objects`);
    assertAsCdk8sWrites(objects);
  });

  test('GIVEN a generated full-mesh fleet (every mode, generated metadata) WHEN rendered THEN every object is what cdk8s gives', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'mirrorc-kube-objects-'));
    try {
      const repo = writeGeneratedRepo(dir, { clusters: 3, services: 40 });
      const { fleet, snapshot } = await loadFleet(repo.fleetFile, repo.lockFile);
      const objects = renderedObjects(fleet, snapshot);
      assert.ok(objects.length > 500, `${objects.length} objects`);
      assertAsCdk8sWrites(objects);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test('GIVEN a gateway mirror with a pinned IP, dual-stack, not-ready and empty endpoints, and an MCS import and a Namespace synth creates WHEN rendered THEN each object is what cdk8s gives, and the constructs hold exactly those objects', () => {
    const base: GatewayMirrorProps = {
      namespace: 'shop', name: 'web-east', labels: { z: '1', a: '2' }, annotations: { 'mirror.linkerd.io/remote-svc-fq-name': 'web.shop.svc.cluster.local' },
      ports: [{ name: 'http', protocol: 'TCP', port: 80, targetPort: 'http' }, { name: '', protocol: 'UDP', port: 53, targetPort: 53 }],
      gateway: { addresses: ['2001:db8::1', '198.51.100.2', '198.51.100.1'], port: 4143, identity: 'gw.identity' },
      remoteFqName: 'web.shop.svc.cluster.local',
    };
    const props = [
      { ...base, clusterIP: '10.96.0.7' },
      { ...base, endpoints: 'not-ready' as const, slicesBy: 'kubernetes' as const },
      { ...base, endpoints: 'empty' as const, labels: {}, annotations: {} },
    ];
    const mcs = {
      namespace: 'shop', name: 'web', type: 'ClusterSetIP' as const,
      ports: [{ name: 'http', protocol: 'TCP', port: 80, appProtocol: 'http' }, { name: '', protocol: 'TCP', port: 81 }],
      clusters: [{ cluster: 'east', addresses: ['198.51.100.1', '2001:db8::1'], port: 4143 }, { cluster: 'west', addresses: ['198.51.100.9'], port: 4143, readiness: 'empty' as const }],
    };
    const objects = [...props.flatMap((p) => gatewayMirrorObjects(p)), ...mcsImportObjects(mcs)];
    const kinds = assertAsCdk8sWrites([...objects, sourceNamespaceObject('shop')]);
    assert.deepEqual([...kinds].sort(), ['EndpointSlice', 'Endpoints', 'Namespace', 'Service', 'ServiceImport']);
    // The typed constructs are thin: their ApiObjects' toJson() is the same objects, in the same order.
    const chart = new Chart(new App({ outdir: 'unused' }), 'c', { disableResourceNameHashes: true });
    props.forEach((p, i) => new GatewayMirror(chart, `g${i}`, p));
    new McsImport(chart, 'mcs', mcs);
    assert.deepEqual(chart.node.findAll().filter(ApiObject.isApiObject).map((o) => o.toJson()), objects);
  });

  test('GIVEN a field name cdk8s does not write WHEN checked THEN the oracle fails (it can fail)', () => {
    const wrong = { apiVersion: 'v1', kind: 'Service', metadata: { name: 'x', namespace: 'y' }, spec: { clusterIp: '10.0.0.1', ports: [] } };
    assert.throws(() => assertAsCdk8sWrites([wrong]));
    const unsorted = { apiVersion: 'v1', kind: 'Service', metadata: { labels: { b: '1', a: '2' }, name: 'x', namespace: 'y' }, spec: { ports: [] } };
    assert.throws(() => assertAsCdk8sWrites([unsorted]));
    const outOfOrder = { apiVersion: 'v1', kind: 'Service', metadata: { name: 'x', namespace: 'y' }, spec: { ports: [{ protocol: 'TCP', port: 80 }] } };
    assert.throws(() => assertAsCdk8sWrites([outOfOrder]));
  });
});

test('a Service with a pinned ClusterIP gets sync wave -1 (Argo CD applies it before the Services it could collide with); headless and unpinned ones get none', () => {
  const ports = [{ name: 'http', port: 80, protocol: 'TCP', targetPort: 80 }];
  const pinned = serviceObject(objectMeta('kafka-0-paris', 'data', undefined, { 'mirror.linkerd.io/remote-svc-fq-name': 'x' }), { clusterIP: '10.96.0.7', ports });
  assert.deepEqual(pinned.metadata.annotations, { 'argocd.argoproj.io/sync-wave': '-1', 'mirror.linkerd.io/remote-svc-fq-name': 'x' });
  assert.deepEqual(serviceObject(objectMeta('a', 'b'), { clusterIP: '10.96.0.8', ports }).metadata.annotations, { 'argocd.argoproj.io/sync-wave': '-1' });
  assert.equal(serviceObject(objectMeta('kafka-paris', 'data'), { clusterIP: 'None', ports }).metadata.annotations, undefined);
  assert.equal(serviceObject(objectMeta('web-paris', 'shop'), { ports }).metadata.annotations, undefined);
  // written as cdk8s would write it (sorted annotations)
  assertAsCdk8sWrites([pinned]);
});
