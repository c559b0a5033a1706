/**
 * The lock file (src/observe/lock-file.ts): reading with clear errors, and canonical rendering.
 */
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { LockFileError, LockFromLaterMirrorcError, readLock, readLockFile, renderLockFile } from '../../src/observe/lock-file.js';
import { SNAPSHOT_FORMAT, emptySnapshot, type FleetSnapshot } from '../../src/snapshot/snapshot.js';
import { schemaProblems } from '../../src/observe/lock-schema.js';
import { compiledSectionSchema, lockDocumentSchema, type SourceRecords, type UnitRecords } from '../../src/state/lock-document.js';
import { schemaAcceptor } from '../../src/util/schema-acceptor.js';

const unitRecordsAccepted = (units: unknown): boolean => schemaAcceptor(compiledSectionSchema.shape.units)(units);
const pinnedIPsAccepted = (pinned: unknown): boolean => schemaAcceptor(compiledSectionSchema.shape.pinnedServiceIPs)(pinned);

let dir: string;
before(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mirrorc-'));
});
after(() => {
  fs.rmSync(dir, { recursive: true, force: true });
});

/** Writes `text` to a fresh file in the temp dir and returns its path. */
function lockWith(name: string, text: string): string {
  const file = path.join(dir, name);
  fs.writeFileSync(file, text);
  return file;
}

/** Runs readLockFile and returns the LockFileError it must throw. */
function lockError(file: string): LockFileError {
  let caught: unknown;
  try {
    readLockFile(file);
  } catch (e) {
    caught = e;
  }
  assert.ok(caught instanceof LockFileError, `expected a LockFileError, got ${String(caught)}`);
  return caught;
}

/** A snapshot with nested objects whose keys are deliberately out of order. */
function sampleSnapshot(): FleetSnapshot {
  return {
    format: SNAPSHOT_FORMAT,
    targets: {
      west: {
        selectors: ['mirror.linkerd.io/exported=true'],
        services: [
          {
            namespace: 'shop',
            name: 'web',
            labels: { zeta: '1', app: 'web', Upper: 'x' },
            annotations: { 'config.linkerd.io/opaque-ports': '5432' },
            type: 'ClusterIP',
            headless: false,
            ports: [
              { name: 'http', protocol: 'TCP', port: 80, targetPort: 'http' },
              { name: 'admin', protocol: 'TCP', port: 9000, targetPort: 9000 },
            ],
          },
        ],
        missingExplicitExports: [],
        gateway: { port: 4143, addresses: ['203.0.113.2', '203.0.113.10'], identity: 'gw.id' },
      },
      east: { services: [], selectors: [], missingExplicitExports: ['ns/gone'] },
    },
    sources: { east: { namespaces: ['shop', 'default'], foreignServices: [{ name: 'web-west', namespace: 'shop' }] } },
  };
}

describe('readLockFile', () => {
  test('a missing file is an empty snapshot', () => {
    // GIVEN a path where no file exists
    const file = path.join(dir, 'does-not-exist.lock.json');
    // WHEN read / THEN the snapshot is empty, in the current format
    assert.deepEqual(readLockFile(file), { format: SNAPSHOT_FORMAT, targets: {}, sources: {} });
    assert.deepEqual(readLockFile(file), emptySnapshot());
  });

  test('invalid JSON is a LockFileError naming the path and what to do', () => {
    // GIVEN a lock file cut off in the middle (e.g. a bad merge)
    const file = lockWith('truncated.lock.json', '{"format": 1, "targets": {');
    // WHEN read
    const error = lockError(file);
    // THEN the message names the file, the cause, and the two ways out
    assert.equal(error.path, file);
    assert.equal(error.name, 'LockFileError');
    assert.ok(error.message.startsWith(`lock file ${file} is not valid JSON`), error.message);
    assert.match(error.message, /restore it from git, or delete it/);
  });

  test('merge-conflict markers are reported as invalid JSON', () => {
    const file = lockWith('conflict.lock.json', '<<<<<<< HEAD\n{"format": 1}\n=======\n{"format": 1}\n>>>>>>> other\n');
    assert.match(lockError(file).message, /is not valid JSON/);
  });

  test('a later format number is refused as written by a later mirrorc: both formats, this version, and never "delete it"', () => {
    // GIVEN a lock written by a newer version (the shape of this format, a higher number)
    const file = lockWith('future.lock.json', JSON.stringify({ format: 6, observed: { targets: {}, sources: {} }, compiled: { units: {} } }));
    // WHEN read
    const error = lockError(file);
    // THEN it is the later-mirrorc error (MRC1004 in a report): the file, the found and the read formats, this version, what to do
    assert.ok(error instanceof LockFromLaterMirrorcError, error.name);
    assert.equal(error.format, 6);
    assert.ok(error.message.includes(file), error.message);
    assert.match(error.message, /has format 6, written by a later mirrorc: this one \(\d+\.\d+\.\d+[^)]*\) reads formats 1, 2, 3, 4 and 5/);
    assert.match(error.message, /install the mirrorc that wrote it \(npm ci installs the version your package-lock\.json names\), or upgrade; do not delete the lock/);
    assert.doesNotMatch(error.message, /delete it to observe/);
  });

  test('an unknown format that is not a later number is a LockFileError stating both formats', () => {
    const file = lockWith('zero.lock.json', JSON.stringify({ format: 0, targets: {}, sources: {} }));
    const error = lockError(file);
    assert.equal(error instanceof LockFromLaterMirrorcError, false);
    assert.match(error.message, /has format 0, but this version reads formats 1, 2, 3, 4 and 5/);
    assert.match(error.message, /restore it from git, or delete it/);
  });

  test('a format given as a string is not accepted', () => {
    const file = lockWith('string-format.lock.json', JSON.stringify({ format: '1', targets: {}, sources: {} }));
    assert.match(lockError(file).message, /has format "1", but this version reads formats 1, 2, 3, 4 and 5/);
  });

  test('JSON that is not an object is a LockFileError', () => {
    for (const [name, text] of [['null', 'null'], ['array', '[]'], ['number', '1'], ['string', '"x"']] as const) {
      const file = lockWith(`${name}.lock.json`, text);
      const error = lockError(file);
      assert.ok(error.message.includes(file), error.message);
      assert.match(error.message, /but this version reads formats 1, 2, 3, 4 and 5/);
    }
  });

  test('a lock without targets or sources is a LockFileError', () => {
    for (const [name, value] of [
      ['no-targets', { format: 1, sources: {} }],
      ['no-sources', { format: 1, targets: {} }],
      ['null-targets', { format: 1, targets: null, sources: {} }],
    ] as const) {
      const file = lockWith(`${name}.lock.json`, JSON.stringify(value));
      assert.match(lockError(file).message, /lacks "targets" or "sources"/, name);
    }
  });

  test('an unreadable path (a directory) is a LockFileError with the error code', () => {
    // GIVEN a directory where the lock file should be
    const file = path.join(dir, 'a-directory.lock.json');
    fs.mkdirSync(file);
    // WHEN read / THEN it is not mistaken for a missing file
    const error = lockError(file);
    assert.match(error.message, /cannot be read \(EISDIR\)/);
    assert.ok(error.message.includes(file));
  });

  test('a format 1 lock (the bare snapshot) is read as its snapshot: migrated on the next write', () => {
    const snapshot = sampleSnapshot();
    const file = lockWith('format-1.lock.json', JSON.stringify(snapshot));
    assert.deepEqual(readLockFile(file), snapshot);
    assert.equal(readLock(file).units, undefined);
  });

  test('a format 2 lock with a unit record that is not one is a LockFileError naming the path', () => {
    const text = renderLockFile(sampleSnapshot(), { east: { 'from-west': { inputs: 'nothex', files: { count: 1, bytes: 2, digest: 'a'.repeat(64) } } } });
    const error = lockError(lockWith('bad-unit.lock.json', text));
    assert.match(error.message, /\$\.compiled\.units\.east\.from-west\.inputs: is not a SHA-256 digest/);
  });

  test('a format 2 lock is read with its unit records and no source records (every source is planned once)', () => {
    const text = renderLockFile(sampleSnapshot(), { east: { base: { files: { count: 1, bytes: 2, digest: 'a'.repeat(64) } } } }).replace('"format": 5', '"format": 2');
    const lock = readLock(lockWith('format-2.lock.json', text));
    assert.deepEqual(Object.keys(lock.units ?? {}), ['east']);
    assert.equal(lock.sources, undefined);
  });

  test('a format 5 lock gives back its source records', () => {
    const sources: SourceRecords = { east: { inputs: 'b'.repeat(64), owners: { 'shop/web-west': '' }, established: { 'west/shop/web': true }, warnings: [{ code: 'MRC3001', severity: 'warning', cluster: 'east', message: 'm', hint: 'h' }] } };
    const text = renderLockFile(sampleSnapshot(), {}, sources);
    assert.match(text, /\n  "format": 5,\n/);
    const lock = readLock(lockWith('sources.lock.json', text));
    assert.deepEqual(lock.sources, sources);
  });

  // Format 4 is format 5 without the unit records' `parts`: read as it is (such a unit is read whole once).
  test('a format 4 lock, without parts, is read as it is: source and unit records given back', () => {
    const sources: SourceRecords = { east: { inputs: 'b'.repeat(64), families: { base: 'e'.repeat(64), targets: { west: 'f'.repeat(64) }, linkWarnings: [0] } } };
    const units: UnitRecords = { east: { base: { files: { count: 1, bytes: 2, digest: 'a'.repeat(64) }, content: 'c'.repeat(64) } } };
    const text = renderLockFile(sampleSnapshot(), units, sources).replace('"format": 5', '"format": 4');
    const lock = readLock(lockWith('format-4.lock.json', text));
    assert.deepEqual(lock.sources, sources);
    assert.deepEqual(lock.units, units);
  });

  // Format 3 is format 4 without the source records' `families` and the unit records' `content`; the
  // versions that added both wrote them under format 3 for a while, so a format 3 lock is read as it is, either way.
  test('a format 3 lock, with or without families and content, is read as it is: source and unit records given back', () => {
    const families = { base: 'e'.repeat(64), targets: { west: 'f'.repeat(64) }, linkWarnings: [0] };
    for (const [kind, sources, units] of [
      ['without them', { east: { inputs: 'b'.repeat(64) } }, { east: { base: { files: { count: 1, bytes: 2, digest: 'a'.repeat(64) } } } }],
      ['with them', { east: { inputs: 'b'.repeat(64), families } }, { east: { base: { files: { count: 1, bytes: 2, digest: 'a'.repeat(64) }, content: 'c'.repeat(64) } } }],
    ] as [string, SourceRecords, UnitRecords][]) {
      const text = renderLockFile(sampleSnapshot(), units, sources).replace('"format": 5', '"format": 3');
      const lock = readLock(lockWith(`format-3-${kind.replace(/ /g, '-')}.lock.json`, text));
      assert.deepEqual(lock.sources, sources, kind);
      assert.deepEqual(lock.units, units, kind);
    }
  });

  // The unit records are checked in one pass, not by zod; whatever that pass does not accept is left
  // to the schema, so a hand-edited record is refused exactly as before.
  const goodUnits = (): UnitRecords => ({
    east: {
      base: { files: { count: 2, bytes: 10, digest: 'a'.repeat(64) } },
      'from-west': { inputs: 'c'.repeat(64), files: { count: 3, bytes: 99, digest: 'd'.repeat(64) }, mirrors: { 'shop/web-west': 'west/shop/web' }, podMirrors: { 'shop/db-0-west': 'west/shop/db' }, imports: { 'shop/api-west': 'west/shop/api' } },
    },
  });
  const badEdits: [string, (u: Record<string, any>) => void][] = [
    ['a mirror origin with upper case', (u) => (u.east['from-west'].mirrors['shop/web-west'] = 'West/shop/web')],
    ['a mirror key that is no namespace/name', (u) => (u.east['from-west'].mirrors['shop-web-west'] = 'west/shop/web')],
    ['a negative file count', (u) => (u.east.base.files.count = -1)],
    ['a fractional byte count', (u) => (u.east.base.files.bytes = 1.5)],
    ['an unknown field', (u) => (u.east.base.owner = 'me')],
    ['an unknown unit folder', (u) => (u.east['to-west'] = u.east.base)],
    ['a cluster name with a dot', (u) => (u['east.x'] = u.east)],
    ['a null inventory', (u) => (u.east['from-west'].imports = null)],
    ['an array for a record', (u) => (u.east['from-west'].mirrors = ['west/shop/web'])],
    ['a digest with upper case', (u) => (u.east.base.files.digest = 'A'.repeat(64))],
    ['a files record without its digest', (u) => delete u.east.base.files.digest],
    ['parts one digit short', (u) => (u.east.base.parts = '0'.repeat(255))],
    ['parts with upper case', (u) => (u.east.base.parts = 'A'.repeat(256))],
  ];
  test('the one-pass check accepts a valid record set', () => {
    assert.equal(unitRecordsAccepted(JSON.parse(JSON.stringify(goodUnits()))), true);
    assert.deepEqual(schemaProblems(lockDocumentSchema, JSON.parse(renderLockFile(sampleSnapshot(), goodUnits()))), []);
  });
  for (const [name, edit] of badEdits) {
    test(`a hand-edited unit record (${name}) is refused with the schema's own problems`, () => {
      const document = JSON.parse(renderLockFile(sampleSnapshot(), goodUnits())) as Record<string, any>;
      edit(document.compiled.units);
      // THEN the one-pass check does not accept it, the schema refuses it, and readLock names exactly the schema's problems
      assert.equal(unitRecordsAccepted(document.compiled.units), false);
      const expected = schemaProblems(lockDocumentSchema, document);
      assert.ok(expected.length > 0, 'the schema refuses it');
      const error = lockError(lockWith(`bad-${name.replace(/[^a-z]+/g, '-')}.lock.json`, JSON.stringify(document)));
      assert.deepEqual(error.problems, expected);
    });
  }

  // The pinned IPs too: one per per-pod mirror, checked in the same pass.
  const withPinned = (): Record<string, any> => JSON.parse(renderLockFile({ ...sampleSnapshot(), pinnedServiceIPs: { east: { 'shop/db-0-west': '10.96.0.10', 'shop/db-1-west': 'fd00::a' }, west: { 'shop/db-0-east': '10.96.0.11' } } }, goodUnits()));
  const badPins: [string, (p: Record<string, any>) => void][] = [
    ['an IP with a leading zero', (p) => (p.east['shop/db-0-west'] = '10.96.0.010')],
    ['a host name for an IP', (p) => (p.east['shop/db-0-west'] = 'db.example')],
    ['a number for an IP', (p) => (p.east['shop/db-0-west'] = 10)],
    ['a key that is no namespace/name', (p) => (p.east['shop-db-0-west'] = '10.96.0.12')],
    ['a cluster name with upper case', (p) => (p.East = p.east)],
    ['an array for a cluster', (p) => (p.west = ['10.96.0.11'])],
    ['null for a cluster', (p) => (p.west = null)],
  ];
  test('the one-pass check accepts valid pinned IPs, and none', () => {
    const document = withPinned();
    assert.equal(pinnedIPsAccepted(document.compiled.pinnedServiceIPs), true);
    assert.equal(pinnedIPsAccepted(undefined), true);
    assert.deepEqual(schemaProblems(lockDocumentSchema, document), []);
    assert.deepEqual(readLock(lockWith('pinned.lock.json', JSON.stringify(document))).snapshot.pinnedServiceIPs, document.compiled.pinnedServiceIPs);
  });
  for (const [name, edit] of badPins) {
    test(`a hand-edited pinned IP record (${name}) is refused with the schema's own problems`, () => {
      const document = withPinned();
      edit(document.compiled.pinnedServiceIPs);
      assert.equal(pinnedIPsAccepted(document.compiled.pinnedServiceIPs), false);
      const expected = schemaProblems(lockDocumentSchema, document);
      assert.ok(expected.length > 0, 'the schema refuses it');
      const error = lockError(lockWith(`bad-pin-${name.replace(/[^a-z]+/g, '-')}.lock.json`, JSON.stringify(document)));
      assert.deepEqual(error.problems, expected);
    });
  }

  test('a valid lock is returned as written', () => {
    const snapshot = sampleSnapshot();
    const file = lockWith('valid.lock.json', JSON.stringify(snapshot));
    assert.deepEqual(readLockFile(file), snapshot);
  });
});

describe('renderLockFile', () => {
  test('sorts keys at every depth, keeps array order, indents by 2 and ends with a newline', () => {
    // GIVEN a snapshot whose objects list keys out of order
    const text = renderLockFile(sampleSnapshot());

    // THEN the text is exactly the canonical form
    const expected = `{
  "compiled": {
    "units": {}
  },
  "format": 5,
  "observed": {
    "sources": {
      "east": {
        "foreignServices": [
          {
            "name": "web-west",
            "namespace": "shop"
          }
        ],
        "namespaces": [
          "shop",
          "default"
        ]
      }
    },
    "targets": {
      "east": {
        "missingExplicitExports": [
          "ns/gone"
        ],
        "selectors": [],
        "services": []
      },
      "west": {
        "gateway": {
          "addresses": [
            "203.0.113.2",
            "203.0.113.10"
          ],
          "identity": "gw.id",
          "port": 4143
        },
        "missingExplicitExports": [],
        "selectors": [
          "mirror.linkerd.io/exported=true"
        ],
        "services": [
          {
            "annotations": {
              "config.linkerd.io/opaque-ports": "5432"
            },
            "headless": false,
            "labels": {
              "Upper": "x",
              "app": "web",
              "zeta": "1"
            },
            "name": "web",
            "namespace": "shop",
            "ports": [
              {
                "name": "http",
                "port": 80,
                "protocol": "TCP",
                "targetPort": "http"
              },
              {
                "name": "admin",
                "port": 9000,
                "protocol": "TCP",
                "targetPort": 9000
              }
            ],
            "type": "ClusterIP"
          }
        ]
      }
    }
  }
}
`;
    assert.equal(text, expected);
  });

  test('the same snapshot built in another key order renders byte for byte the same', () => {
    // GIVEN the sample snapshot rebuilt with every object's keys reversed
    const reverseKeys = (v: unknown): unknown => {
      if (Array.isArray(v)) return v.map(reverseKeys);
      if (v !== null && typeof v === 'object') {
        return Object.fromEntries(Object.keys(v).reverse().map((k) => [k, reverseKeys((v as Record<string, unknown>)[k])]));
      }
      return v;
    };
    const reordered = reverseKeys(sampleSnapshot()) as FleetSnapshot;
    // THEN both render identically
    assert.equal(renderLockFile(reordered), renderLockFile(sampleSnapshot()));
  });

  test('the empty snapshot renders as a small canonical file', () => {
    assert.equal(renderLockFile(emptySnapshot()), '{\n  "compiled": {\n    "units": {}\n  },\n  "format": 5,\n  "observed": {\n    "sources": {},\n    "targets": {}\n  }\n}\n');
  });

  test('round-trips through readLockFile, and re-rendering is stable', () => {
    // GIVEN a rendered lock written to disk
    const snapshot = sampleSnapshot();
    const text = renderLockFile(snapshot);
    const file = lockWith('roundtrip.lock.json', text);
    // WHEN it is read back
    const read = readLockFile(file);
    // THEN it equals the snapshot and renders to the same bytes
    assert.deepEqual(read, snapshot);
    assert.equal(renderLockFile(read), text);
  });

  test('drops undefined fields instead of writing them', () => {
    // GIVEN a snapshot with an optional field explicitly undefined
    const snapshot = sampleSnapshot();
    const east = { ...snapshot.targets['east']!, gateway: undefined };
    const text = renderLockFile({ ...snapshot, targets: { ...snapshot.targets, east } });
    // THEN it renders like the snapshot without that field
    assert.equal(text, renderLockFile(snapshot));
  });
});

describe('a "__proto__" key in the lock', () => {
  // JSON.parse makes "__proto__" an own key of the object it builds; zod's record left it unchecked.
  for (const [where, edit] of [
    ['a target name', (text: string) => text.replace('"targets": {', '"targets": {"__proto__":{"selectors":[],"services":[],"missingExplicitExports":[]},')],
    ['a label key', (text: string) => text.replace('"labels": {', '"labels": {"__proto__":"x",')],
    ['a unit name', (text: string) => text.replace('"units": {}', '"units":{"east":{"__proto__":{"files":{"count":0,"bytes":0,"digest":"' + '0'.repeat(64) + '"}}}}')],
  ] as const) {
    test(`as ${where} is refused with the key's problem, like any other bad key`, () => {
      const text = edit(renderLockFile(sampleSnapshot()));
      assert.ok(text.includes('"__proto__"'), 'the edit applies');
      const e = lockError(lockWith(`proto-${where.replace(/ /g, '-')}.lock.json`, text));
      assert.match(e.message, /does not match the lock schema/);
      assert.ok(e.problems.some((p) => p.includes('__proto__') && p.includes('key ')), e.problems.join('\n'));
    });
  }
});
