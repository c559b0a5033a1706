/**
 * The lock's one-pass check, derived from its zod schema (src/util/schema-acceptor.ts): it is built
 * for every lock schema and refuses to be built for a check it cannot derive; it accepts the valid locks we know
 * (the example fleet's, a generated bench fleet's, one with every optional field), and it never
 * accepts what the schema refuses — checked over thousands of generated mutations of every field,
 * each of which readLock must refuse with exactly the schema's own problems.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { z } from 'zod';
import { writeGeneratedRepo, REPO_ROOT } from '../../bench/generate-fleet.js';
import { seededRandom } from '../../bench/seeded-random.js';
import { LockFileError, readLock } from '../../src/observe/lock-file.js';
import { fleetSnapshotSchema, schemaProblems } from '../../src/observe/lock-schema.js';
import { compiledSectionSchema, lockDocumentAccepted, lockDocumentSchema, observedSectionSchema } from '../../src/state/lock-document.js';
import { schemaAcceptor, UnderivableSchemaError } from '../../src/util/schema-acceptor.js';
import { COPIED_METADATA_LIMIT_BYTES } from '../../src/util/k8s-names.js';

const dir = mkdtempSync(join(tmpdir(), 'mirrorc-lock-fast-check-'));
after(() => rmSync(dir, { recursive: true, force: true }));

type Json = any;

const FINGERPRINT = Array.from({ length: 32 }, (_, i) => (i * 7 + 16).toString(16).toUpperCase().padStart(2, '0')).join(':');

/** A valid Service with every optional field. */
function fullService(): Json {
  return {
    namespace: 'default',
    name: 'web',
    labels: { app: 'web', 'example.com/tier': 'front', empty: '', 'a.b_c-d': 'v1.2_3-x' },
    annotations: { 'config.linkerd.io/opaque-ports': '5432', note: 'any text\nat all, é 山田 😀' },
    type: 'ClusterIP',
    headless: false,
    ports: [
      { name: 'http', protocol: 'TCP', port: 80, targetPort: 'http' },
      { name: '', protocol: 'UDP', port: 53, targetPort: 5353 },
      { name: 'sctp', protocol: 'SCTP', port: 65535 },
    ],
    explicit: true,
    serviceExport: true,
    hostnames: ['web-0', '1st'],
    endpointPorts: [
      { name: 'broker', protocol: 'TCP', port: 9092, appProtocol: 'kubernetes.io/h2c' },
      { name: '', protocol: 'TCP', port: 1 },
    ],
    selector: { app: 'web' },
    hasReadyEndpoints: true,
    notReadyHostnames: ['web-1'],
  };
}

const trustRoot = (): Json => ({ fingerprint: FINGERPRINT, subject: 'CN=root.linkerd.cluster.local, O=Example', notAfter: '2030-01-31T12:00:00Z' });

/** A lock (format 5) with every optional field of every object the schema knows, valid. */
function completeLock(): Json {
  return {
    format: 5,
    observed: {
      targets: {
        paris: {
          selectors: ['mirror.linkerd.io/exported=true'],
          services: [fullService(), { namespace: 'data', name: 'kafka', labels: {}, annotations: {}, type: 'ExternalName', headless: true, ports: [] }],
          missingExplicitExports: ['default/gone'],
          serviceExportsListed: true,
          gateway: { addresses: ['203.0.113.7', '2001:db8::7'], port: 4143, identity: 'linkerd-gateway.linkerd-multicluster.serviceaccount.identity.linkerd.cluster.local' },
          gatewayProbe: { alive: true },
          trustRoots: [trustRoot()],
        },
      },
      sources: {
        london: {
          namespaces: ['data', 'default'],
          foreignServices: [{ namespace: 'default', name: 'web-paris', linkerdCluster: 'paris', clusterIP: '10.96.0.5' }, { namespace: 'default', name: 'plain' }],
          foreignServiceImports: [{ namespace: 'default', name: 'web-paris', clusterIP: 'fd00::5' }],
          pinnedRangeServices: [{ namespace: 'kube-system', name: 'dns', ip: '10.96.0.10', managed: false }],
          globalMembers: [{ namespace: 'data', name: 'kafka', labels: { app: 'kafka' }, annotations: { a: 'b' }, type: 'ClusterIP', headless: true, ports: [], selector: { app: 'kafka' } }],
          federatedSelector: 'mirror.linkerd.io/federated=member',
          federatedMembers: [{ namespace: 'default', name: 'api', labels: { 'mirror.linkerd.io/federated': 'member' }, annotations: {}, type: 'LoadBalancer', headless: false, ports: [{ name: 'http', protocol: 'TCP', port: 8080 }] }],
          managedNamespaces: ['data'],
          trustRoots: [trustRoot()],
        },
      },
      staleSince: { targets: { paris: '2025-01-31T12:00:00Z' }, sources: { london: '2025-01-31T12:00:00.123+02:00' } },
    },
    compiled: {
      pinnedServiceIPs: { london: { 'data/kafka-0-paris': '10.96.0.2' } },
      units: {
        london: {
          base: { files: { count: 2, bytes: 10, digest: 'a'.repeat(64) } },
          'from-paris': { inputs: 'c'.repeat(64), files: { count: 3, bytes: 99, digest: 'd'.repeat(64) }, content: '9'.repeat(64), parts: '8'.repeat(256), mirrors: { 'default/web-paris': 'paris/default/web' }, podMirrors: { 'data/kafka-0-paris': 'paris/data/kafka' } },
          shared: { inputs: 'e'.repeat(64), files: { count: 0, bytes: 0, digest: 'f'.repeat(64) }, imports: { 'default/web-paris': 'paris/default/web' } },
        },
      },
      sources: {
        london: {
          inputs: 'b'.repeat(64),
          owners: { 'default/web-paris': 'paris/default/web', 'default/other-paris': '' },
          established: { 'paris/default/web': true, paris: false },
          warnings: [{ code: 'MRC3001', severity: 'warning', cluster: 'london', target: 'paris', namespace: 'default', service: 'web', message: 'm', hint: 'h' }, { code: 'MRC0000', severity: 'warning', message: '', hint: '' }],
          families: { base: '0'.repeat(64), targets: { paris: '1'.repeat(64) }, linkWarnings: [0, 2] },
        },
      },
    },
  };
}

/** What the schema says of `document`. */
const schemaAccepts = (document: unknown): boolean => lockDocumentSchema.safeParse(document).success;

/**
 * The lock text of `document`, keeping what JSON.stringify would lose but JSON.parse can make:
 * an infinite number (`1e400`) and minus zero (`-0`).
 */
function lockText(document: unknown): string {
  const marks: string[] = [];
  const text = JSON.stringify(document, (_key, value: unknown) => {
    if (typeof value !== 'number' || (Number.isFinite(value) && !Object.is(value, -0))) return value;
    marks.push(Object.is(value, -0) ? '-0' : value > 0 ? '1e400' : '-1e400');
    return `\u0000${marks.length - 1}\u0000`;
  });
  return text.replace(/"\\u0000(\d+)\\u0000"/g, (_m, i: string) => marks[Number(i)]!);
}

/**
 * The problems readLock names for `document`'s text (none when it reads the lock), or undefined
 * when the document is not one readLock gives to the lock document schema (another format, no
 * sections: refused before, by other rules).
 */
function readLockProblems(document: Json): string[] | undefined {
  const isObject = (v: unknown): boolean => typeof v === 'object' && v !== null;
  if (!isObject(document) || (document.format !== 5 && document.format !== 4 && document.format !== 3 && document.format !== 2) || !isObject(document.observed) || !isObject(document.compiled)) return undefined;
  const text = lockText(document);
  try {
    readLock('mutated.lock.json', () => text);
    return [];
  } catch (e) {
    assert.ok(e instanceof LockFileError, String(e));
    return [...e.problems];
  }
}

type Path = readonly (string | number)[];

/** Every value in `document` with its path, the document itself first. */
function* nodes(value: Json, path: Path = []): Generator<[Path, Json]> {
  yield [path, value];
  if (Array.isArray(value)) for (let i = 0; i < value.length; i++) yield* nodes(value[i], [...path, i]);
  else if (typeof value === 'object' && value !== null) for (const key of Object.keys(value)) yield* nodes(value[key], [...path, key]);
}

/** `document` deep-copied, with `edit` applied to the value at `path` (given as its parent and key). */
function edited(document: Json, path: Path, edit: (parent: Json, key: string | number) => void): Json {
  const holder: Json = { root: structuredClone(document) };
  let parent: Json = holder;
  let key: string | number = 'root';
  for (const part of path) {
    parent = parent[key];
    key = part;
  }
  edit(parent, key);
  return holder.root;
}

/** Sets an own key, even `__proto__`, as JSON.parse does. */
function setOwn(object: Json, key: string, value: unknown): void {
  Object.defineProperty(object, key, { value, enumerable: true, writable: true, configurable: true });
}

const LONG = (n: number): string => 'a'.repeat(n);
const SCALARS: readonly unknown[] = [null, true, false, 0, -0, 1, -1, 0.5, 65536, 2 ** 53, Infinity, -Infinity, '', 'x', 'X', 'a b', 'a/b', 'a/b/c', 'MRC1234', 'warning', 'TCP', 'ClusterIP', '10.0.0.1', LONG(64)];

/** Ways to get the value `value` wrong (and some to keep it right): each a name and its replacement. */
function replacements(value: Json): [string, unknown][] {
  const out: [string, unknown][] = SCALARS.map((v) => [`= ${typeof v === 'number' ? (Object.is(v, -0) ? '-0' : String(v)) : JSON.stringify(v)}`, v]);
  out.push(['= []', []], ['= {}', {}], ['= [it]', [value]], ['= {x: it}', { x: value }]);
  if (typeof value === 'string') {
    for (const [name, v] of [
      ['+"-"', `${value}-`],
      ['"-"+', `-${value}`],
      ['upper', value.toUpperCase()],
      ['+newline', `${value}\n`],
      ['+space', `${value} `],
      ['+"/x"', `${value}/x`],
      ['"x/"+', `x/${value}`],
      ['+"."', `${value}.`],
      ['+"_"', `${value}_`],
      ['+"--x"', `${value}--x`],
      ['+"é"', `${value}é`],
      ['+"%eth0"', `${value}%eth0`],
      ['+"0"', `${value}0`],
      ['+"Z"', `${value}Z`],
      ['first cut', value.slice(1)],
      ['last cut', value.slice(0, -1)],
      ['to 64', value + LONG(Math.max(1, 64 - value.length))],
      ['to 254', value + LONG(Math.max(1, 254 - value.length))],
      ['to 1025', value + LONG(Math.max(1, 1025 - value.length))],
    ] as const) {
      out.push([`string ${name}`, v]);
    }
  }
  if (typeof value === 'number') for (const [name, v] of [['+0.5', value + 0.5], ['negated', -value], ['+65535', value + 65535], ['-1', value - 1], ['+1', value + 1], ['as string', String(value)]] as const) out.push([`number ${name}`, v]);
  if (typeof value === 'boolean') out.push(['negated', !value], ['as string', String(value)]);
  return out;
}

/** Every single mutation of `document`: each value replaced in each way, each object's keys deleted and added, each array emptied and grown. */
function* mutations(document: Json): Generator<[string, Json]> {
  for (const [path, value] of nodes(document)) {
    const where = `$${path.map((p) => `[${JSON.stringify(p)}]`).join('')}`;
    for (const [name, v] of replacements(value)) yield [`${where} ${name}`, edited(document, path, (parent, key) => (parent[key] = v))];
    if (Array.isArray(value)) {
      yield [`${where} emptied`, edited(document, path, (parent, key) => (parent[key] = []))];
      for (const extra of [null, 'x', 1, {}, []]) yield [`${where} + ${JSON.stringify(extra)}`, edited(document, path, (parent, key) => parent[key].push(extra))];
      if (value.length > 0) yield [`${where} + a copy of its first`, edited(document, path, (parent, key) => parent[key].push(structuredClone(value[0])))];
    } else if (typeof value === 'object' && value !== null) {
      const keys = Object.keys(value);
      for (const key of keys) yield [`${where} without ${JSON.stringify(key)}`, edited(document, path, (parent, k) => delete parent[k][key])];
      const sample = keys.length > 0 ? value[keys[0]!] : 'x';
      const added = ['extra', 'Bad Key', '', '__proto__', 'constructor', 'a/b/c', 'x/y', 'paris/default/web', 'default/web-paris', 'Upper', ...keys.map((k) => k.toUpperCase()).filter((k) => !keys.includes(k))];
      for (const key of added) yield [`${where} + key ${JSON.stringify(key)}`, edited(document, path, (parent, k) => setOwn(parent[k], key, structuredClone(sample)))];
      yield [`${where} as an array`, edited(document, path, (parent, key) => (parent[key] = Object.values(parent[key])))];
    }
  }
}

describe('the lock\'s one-pass check, derived from its schema', () => {
  test('it is derived from the schema: built for every lock schema; a schema part it cannot derive is refused when it is built, not checked less', () => {
    for (const schema of [lockDocumentSchema, fleetSnapshotSchema, observedSectionSchema, compiledSectionSchema]) assert.equal(typeof schemaAcceptor(schema), 'function');
    for (const schema of [
      z.strictObject({ a: z.string().min(2) }),
      z.strictObject({ a: z.number().max(3) }),
      z.object({ a: z.string() }),
      z.strictObject({ a: z.string() }).superRefine(() => undefined),
      z.strictObject({ a: z.array(z.string()).max(1) }),
      z.strictObject({ a: z.record(z.string(), z.string()) }),
      z.strictObject({ a: z.custom<string>() }),
    ]) assert.throws(() => schemaAcceptor(schema), UnderivableSchemaError);
  });

  test('it accepts a lock with every optional field', () => {
    const document = completeLock();
    assert.equal(schemaAccepts(document), true, JSON.stringify(schemaProblems(lockDocumentSchema, document)));
    assert.equal(lockDocumentAccepted(document), true);
    assert.equal(schemaAcceptor(observedSectionSchema)(document.observed), true);
    assert.equal(schemaAcceptor(compiledSectionSchema.shape.sources)(document.compiled.sources), true);
    assert.equal(schemaAcceptor(compiledSectionSchema.shape.sources)(undefined), true);
    assert.equal(lockDocumentAccepted({ ...document, format: 4 }), true);
    assert.equal(lockDocumentAccepted({ ...document, format: 3 }), true);
    assert.equal(lockDocumentAccepted({ ...document, format: 2 }), true);
    assert.equal(lockDocumentAccepted({ ...document, format: 6 }), false);
  });

  test('it accepts the example fleet\'s lock', () => {
    const document = JSON.parse(readFileSync(join(REPO_ROOT, 'clusters', 'fleet.lock.json'), 'utf8'));
    assert.equal(schemaAccepts(document), true);
    assert.equal(lockDocumentAccepted(document), true);
  });

  test('it accepts a generated bench fleet\'s lock', () => {
    const repo = writeGeneratedRepo(join(dir, 'bench'), { clusters: 3, services: 60, seed: 3 });
    const document = JSON.parse(readFileSync(repo.lockFile, 'utf8'));
    assert.equal(schemaAccepts(document), true);
    assert.equal(lockDocumentAccepted(document), true);
  });

  test('it never accepts what the schema refuses, over every single mutation of every field; readLock names the schema\'s problems', () => {
    const base = completeLock();
    const accepted: string[] = [];
    const wrongProblems: string[] = [];
    const refusedAt = new Set<string>();
    let refused = 0;
    for (const [name, document] of mutations(base)) {
      const expected = schemaProblems(lockDocumentSchema, document);
      const zod = expected.length === 0;
      const fast = lockDocumentAccepted(document);
      if (fast && !zod) accepted.push(name);
      const got = readLockProblems(document);
      if (got !== undefined && JSON.stringify(got) !== JSON.stringify(expected)) wrongProblems.push(name);
      if (!zod) {
        refused++;
        refusedAt.add(name.slice(0, name.indexOf(' ')));
      }
    }
    assert.deepEqual(accepted, [], 'the fast check accepted what the schema refuses');
    assert.deepEqual(wrongProblems, [], 'readLock named other problems than the schema');
    // Every value of the lock was got wrong in some way the schema refuses (so each field's check was exercised).
    const unrefused = [...nodes(base)].map(([path]) => `$${path.map((p) => `[${JSON.stringify(p)}]`).join('')}`).filter((where) => !refusedAt.has(where));
    assert.deepEqual(unrefused, []);
    assert.ok(refused > 3000, `only ${refused} mutations refused`);
  });

  test('it never accepts what the schema refuses, over random mutations of the example fleet\'s lock', () => {
    const example = JSON.parse(readFileSync(join(REPO_ROOT, 'clusters', 'fleet.lock.json'), 'utf8'));
    const random = seededRandom(18);
    const all = [...nodes(example)];
    let refused = 0;
    for (let i = 0; i < 400; i++) {
      let document = example;
      const names: string[] = [];
      for (let n = 1 + Math.floor(random() * 2); n > 0; n--) {
        const [path, value] = all[Math.floor(random() * all.length)]!;
        const choices = replacements(value);
        const [name, v] = choices[Math.floor(random() * choices.length)]!;
        names.push(`${path.join('.')} ${name}`);
        try {
          document = edited(document, path, (parent, key) => (parent[key] = v));
        } catch {
          // The path is gone (an earlier mutation replaced an ancestor): this mutation is skipped.
        }
      }
      const zod = schemaAccepts(document);
      if (!zod) refused++;
      assert.ok(!lockDocumentAccepted(document) || zod, `accepted what the schema refuses: ${names.join('; ')}`);
    }
    assert.ok(refused > 200, `only ${refused} mutations refused`);
  });

  // The Service refinement: labels and annotations together at most the bytes a mirror can carry, counted in UTF-8.
  for (const [what, unit, bytes] of [['ASCII', 'a', 1], ['2-byte', 'é', 2], ['3-byte', '山', 3], ['4-byte (a surrogate pair)', '😀', 4], ['a lone surrogate (3 bytes as U+FFFD)', '\ud800', 3]] as const) {
    test(`labels and annotations of ${what} characters: at the limit accepted, one byte over left to the schema, which refuses`, () => {
      const withMetadata = (total: number): Json => {
        const document = completeLock();
        const service = document.observed.targets.paris.services[0];
        const used = [...Object.entries(service.labels), ...Object.entries(service.annotations)].reduce((n, [k, v]) => n + Buffer.byteLength(k) + Buffer.byteLength(v as string), 0);
        const room = total - used - Buffer.byteLength('big');
        const count = Math.floor(room / bytes);
        service.annotations.big = unit.repeat(count) + 'a'.repeat(room - count * bytes);
        return document;
      };
      const atLimit = withMetadata(COPIED_METADATA_LIMIT_BYTES);
      assert.equal(schemaAccepts(atLimit), true);
      assert.equal(lockDocumentAccepted(atLimit), true);
      const over = withMetadata(COPIED_METADATA_LIMIT_BYTES + 1);
      assert.equal(schemaAccepts(over), false);
      assert.equal(lockDocumentAccepted(over), false);
      assert.deepEqual(readLockProblems(over), schemaProblems(lockDocumentSchema, over));
    });
  }
});
