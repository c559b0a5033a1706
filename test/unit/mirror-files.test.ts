/**
 * One file per mirror (src/emit/render-units.ts): a mirror's objects are the documents of one file
 * named after its first object, on the example fleet's committed output; what reads such files
 * (adoption of a folder the lock does not describe, the changed fields plan prints) reads every
 * document.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { parseAllDocuments } from 'yaml';
import { changedFileFields } from '../../src/emit/diff-trees.js';
import { GENERATED_HEADER } from '../../src/emit/render-files.js';
import { readTree } from '../../src/emit/write-output.js';
import { treeUnitRecords } from '../../src/state/adopt-dist.js';
import { endpointsChanged } from '../../src/explain/change-reasons.js';

const ROOT = join(import.meta.dirname, '..', '..');
const tree = readTree(join(ROOT, 'dist'));
const lock = JSON.parse(readFileSync(join(ROOT, 'clusters', 'fleet.lock.json'), 'utf8')) as {
  compiled: { units: Record<string, Record<string, { files: unknown; mirrors?: unknown; podMirrors?: unknown; imports?: unknown }>> };
};

interface Meta { kind: string; metadata: { name: string; namespace?: string } }

test('every mirror unit file of the example is one mirror: named after its first object, one header, its objects in one namespace', () => {
  let mirrorFiles = 0;
  let multi = 0;
  for (const [path, text] of tree) {
    const parts = path.split('/');
    if (parts.length !== 4 || parts[1] === 'base') continue;
    mirrorFiles++;
    const objects = parseAllDocuments(text).map((d) => d.toJS() as Meta);
    const [first] = objects;
    assert.ok(first, path);
    assert.equal(parts[3], `${first.kind.toLowerCase()}-${first.metadata.name}.yaml`, path);
    assert.ok(['Service', 'ServiceImport'].includes(first.kind), `${path}: first object is a ${first.kind}`);
    for (const o of objects) assert.equal(o.metadata.namespace, parts[2], `${path}: ${o.kind}/${o.metadata.name}`);
    assert.equal(text.split(GENERATED_HEADER).length, 2, `${path}: one header`);
    if (objects.length > 1) multi++;
  }
  // 11 mirror units' worth of files in the example; every gateway mirror has its Endpoints and slice beside its Service.
  assert.ok(mirrorFiles >= 20, `${mirrorFiles} mirror files`);
  assert.ok(multi >= 15, `${multi} files of several objects`);
  const payments = parseAllDocuments(tree.get('west/from-east/shop/service-payments-east.yaml')!).map((d) => d.toJS() as Meta);
  assert.deepEqual(payments.map((o) => `${o.kind}/${o.metadata.name}`), ['Service/payments-east', 'Endpoints/payments-east', 'EndpointSlice/payments-east-ipv4']);
  const search = parseAllDocuments(tree.get('london/shared/default/serviceimport-search.yaml')!).map((d) => d.toJS() as Meta);
  assert.deepEqual(search.map((o) => `${o.kind}/${o.metadata.name}`), ['ServiceImport/search', 'EndpointSlice/search-oslo-mcs-ipv4']);
  for (const gone of ['west/from-east/shop/endpoints-payments-east.yaml', 'west/from-east/shop/endpointslice-payments-east-ipv4.yaml', 'london/shared/default/endpointslice-search-oslo-mcs-ipv4.yaml']) {
    assert.equal(tree.has(gone), false, gone);
  }
});

test('adopting the example output without its lock reads every document: the same files, mirrors, per-pod mirrors and MCS imports the renderer recorded', () => {
  const adopted = treeUnitRecords(tree);
  let podMirrors = 0;
  let imports = 0;
  for (const [cluster, units] of Object.entries(lock.compiled.units)) {
    for (const [unit, record] of Object.entries(units)) {
      const got = adopted[cluster]?.[unit];
      assert.ok(got, `${cluster}/${unit} adopted`);
      assert.deepEqual(got.files, record.files, `${cluster}/${unit} files`);
      assert.deepEqual(got.mirrors, record.mirrors, `${cluster}/${unit} mirrors`);
      assert.deepEqual(got.podMirrors, record.podMirrors, `${cluster}/${unit} podMirrors`);
      assert.deepEqual(got.imports, record.imports, `${cluster}/${unit} imports`);
      podMirrors += Object.keys(record.podMirrors ?? {}).length;
      imports += Object.keys(record.imports ?? {}).length;
    }
  }
  // The per-pod mirrors and the MCS slices are later documents of their files: the test covers them.
  assert.ok(podMirrors >= 12 && imports >= 1, `${podMirrors} per-pod mirrors, ${imports} imports`);
});

const doc = (kind: string, name: string, body: string): string => `apiVersion: v1\nkind: ${kind}\nmetadata:\n  name: ${name}\n${body}`;

test('changed fields: per object of a file of several, named Kind/name; an object added or removed as a whole; a file of one object as before', () => {
  const before = GENERATED_HEADER + [doc('Service', 'b-tgt', 'spec:\n  port: 80\n'), doc('Endpoints', 'b-tgt', 'subsets:\n  - ip: 10.0.0.1\n'), doc('EndpointSlice', 'b-tgt-ipv6', 'ports: []\n')].join('---\n');
  const after = GENERATED_HEADER + [doc('Service', 'b-tgt', 'spec:\n  port: 80\n'), doc('Endpoints', 'b-tgt', 'subsets:\n  - ip: 10.0.0.2\n'), doc('EndpointSlice', 'b-tgt-ipv4', 'ports: []\n')].join('---\n');
  assert.deepEqual(changedFileFields(before, after), [
    'Endpoints/b-tgt subsets[0].ip: "10.0.0.1" → "10.0.0.2"',
    'EndpointSlice/b-tgt-ipv4: added',
    'EndpointSlice/b-tgt-ipv6: removed',
  ]);
  assert.deepEqual(changedFileFields(GENERATED_HEADER + doc('Namespace', 'shop', 'spec: {}\n'), GENERATED_HEADER + doc('Namespace', 'shop', 'spec:\n  a: 1\n')), ['spec.a: (none) → 1']);
  // A hand-edited text that does not parse is no object, not a crash.
  assert.deepEqual(changedFileFields('a: [', after), ['Service/b-tgt: added', 'Endpoints/b-tgt: added', 'EndpointSlice/b-tgt-ipv4: added']);
});

test('a mirror file has an endpoints change only when the objects after its Service differ, both versions holding them', () => {
  const service = (port: number) => doc('Service', 'b-tgt', `spec:\n  port: ${port}\n`);
  const endpoints = (ip: string) => doc('Endpoints', 'b-tgt', `subsets:\n  - ip: ${ip}\n`);
  const file = (...docs: string[]) => GENERATED_HEADER + docs.join('---\n');
  assert.equal(endpointsChanged(file(service(80), endpoints('10.0.0.1')), file(service(80), endpoints('10.0.0.2'))), true);
  // The Service alone changed (a not-ready service's port): no endpoints reason.
  assert.equal(endpointsChanged(file(service(80), endpoints('10.0.0.1')), file(service(81), endpoints('10.0.0.1'))), false);
  // The first run after upgrading: the Service's own file of before becomes the mirror's file.
  assert.equal(endpointsChanged(file(service(80)), file(service(80), endpoints('10.0.0.1'))), false);
  assert.equal(endpointsChanged(undefined, file(service(80), endpoints('10.0.0.1'))), false);
});

test('adoption skips a later document whose name cannot be read, however many metadata lines it has (no runaway matching)', () => {
  const labels = Array.from({ length: 30 }, (_, i) => `    team-${i}.example.com/key: "v"`).join('\n');
  const service = 'apiVersion: v1\nkind: Service\nmetadata:\n  labels:\n    mirror.linkerd.io/cluster-name: paris\n  name: web-paris\n  namespace: shop\n';
  const odd = `apiVersion: v1\nkind: Endpoints\nmetadata:\n  labels:\n${labels}\n  name: Web_Paris\n  namespace: shop\n`;
  const records = treeUnitRecords(new Map([['london/from-paris/shop/service-web-paris.yaml', GENERATED_HEADER + service + '---\n' + odd]]));
  assert.deepEqual(records.london?.['from-paris']?.mirrors, { 'shop/web-paris': 'paris' });
});
