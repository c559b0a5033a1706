/** The lock schema (src/observe/lock-schema.ts): every kind of bad field is a LockFileError naming its JSON path. */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { LockFileError, readLockFile, renderLockFile } from '../../src/observe/lock-file.js';
import { MAX_LISTED_PROBLEMS, jsonPath } from '../../src/observe/lock-schema.js';
import type { FleetSnapshot } from '../../src/snapshot/snapshot.js';

const dir = mkdtempSync(join(tmpdir(), 'mirrorc-lock-schema-'));
after(() => rmSync(dir, { recursive: true, force: true }));

/** A lock with every optional field, valid. */
function fullLock(): any {
  return {
    format: 1,
    targets: {
      paris: {
        selectors: ['mirror.linkerd.io/exported=true'],
        services: [
          { namespace: 'default', name: 'web', labels: { app: 'web' }, annotations: { 'config.linkerd.io/opaque-ports': '5432', note: 'any text\nat all' }, type: 'ClusterIP', headless: false, explicit: true, serviceExport: true, ports: [{ name: 'http', protocol: 'TCP', port: 80, targetPort: 'http' }, { name: 'grpc', protocol: 'TCP', port: 9090, targetPort: 9090 }] },
          { namespace: 'data', name: 'kafka', labels: {}, annotations: {}, type: 'ClusterIP', headless: true, ports: [{ name: '', protocol: 'TCP', port: 9092 }], hostnames: ['kafka-0'], endpointPorts: [{ name: 'broker', protocol: 'TCP', port: 9092, appProtocol: 'kubernetes.io/h2c' }] },
        ],
        missingExplicitExports: ['default/gone'],
        serviceExportsListed: true,
        gateway: { addresses: ['203.0.113.7', '2001:db8::7'], port: 4143, identity: 'linkerd-gateway.linkerd-multicluster.serviceaccount.identity.linkerd.cluster.local' },
      },
    },
    sources: {
      london: {
        namespaces: ['data', 'default'],
        foreignServices: [{ namespace: 'default', name: 'web-paris' }],
        pinnedRangeServices: [{ namespace: 'kube-system', name: 'dns', ip: '10.96.0.10', managed: false }],
        globalMembers: [{ namespace: 'data', name: 'kafka', labels: {}, annotations: {}, type: 'ClusterIP', headless: true, ports: [], hostnames: ['kafka-0'], endpointPorts: [], selector: { app: 'kafka' } }],
        federatedSelector: 'mirror.linkerd.io/federated=member',
        federatedMembers: [],
      },
    },
    pinnedServiceIPs: { london: { 'data/kafka-0-paris': '10.96.0.2' } },
    staleSince: { targets: { paris: '2025-03-01T10:00:00Z' }, sources: { london: '2025-03-01T10:00:00Z' } },
  };
}

let n = 0;
/** The problems readLockFile reports for `lock` (each line `$.path: what`), failing when it reads fine. */
function problemsOf(lock: unknown): string[] {
  const file = join(dir, `lock-${n++}.json`);
  writeFileSync(file, typeof lock === 'string' ? lock : JSON.stringify(lock));
  try {
    readLockFile(file);
  } catch (e) {
    assert.ok(e instanceof LockFileError, String(e));
    assert.match(e.message, /restore it from git, or delete it/);
    assert.doesNotMatch(e.message, /\n\s+at /, 'no stack trace');
    return [...e.problems];
  }
  assert.fail('the lock was accepted');
}

/** `fullLock()` changed by `edit`. */
function edited(edit: (lock: any) => void): any {
  const lock = fullLock();
  edit(lock);
  return lock;
}

describe('lock schema', () => {
  test('GIVEN a lock with every optional field WHEN read THEN it is accepted and re-renders identically', () => {
    const file = join(dir, 'full.json');
    writeFileSync(file, renderLockFile(fullLock() as FleetSnapshot));
    assert.equal(renderLockFile(readLockFile(file)), renderLockFile(fullLock() as FleetSnapshot));
  });

  const cases: [string, (lock: any) => void, RegExp][] = [
    ['traversal namespace', (l) => (l.targets.paris.services[0].namespace = '../../x'), /^\$\.targets\.paris\.services\[0\]\.namespace: "\.\.\/\.\.\/x" is not a valid namespace name \(a DNS-1123 label/],
    ['newline in a service name', (l) => (l.targets.paris.services[0].name = 'web\nevil'), /^\$\.targets\.paris\.services\[0\]\.name: "web\\nevil" is not a valid Service name/],
    ['port 0', (l) => (l.targets.paris.services[0].ports[0].port = 0), /^\$\.targets\.paris\.services\[0\]\.ports\[0\]\.port: 0 is not a port number/],
    ['port 70000', (l) => (l.targets.paris.services[0].ports[0].port = 70000), /ports\[0\]\.port: 70000 is not a port number/],
    ['port "80"', (l) => (l.targets.paris.services[0].ports[0].port = '80'), /ports\[0\]\.port: "80" is not a port number/],
    ['protocol', (l) => (l.targets.paris.services[0].ports[0].protocol = 'HTTP'), /ports\[0\]\.protocol: "HTTP" is not a protocol/],
    ['targetPort', (l) => (l.targets.paris.services[0].ports[0].targetPort = 'not a port'), /ports\[0\]\.targetPort: "not a port" is not a targetPort/],
    ['headless as a string', (l) => (l.targets.paris.services[0].headless = 'false'), /services\[0\]\.headless: "false" is not a boolean/],
    ['labels as a list', (l) => (l.targets.paris.services[0].labels = ['app']), /services\[0\]\.labels: \["app"\] is not a record/],
    ['label key', (l) => (l.targets.paris.services[0].labels = { 'bad key': 'x' }), /services\[0\]\.labels\["bad key"\]: key "bad key" is not a valid label key/],
    ['label value', (l) => (l.targets.paris.services[0].labels = { app: 'a\nb' }), /services\[0\]\.labels\.app: "a\\nb" is not a valid label value/],
    ['annotation key', (l) => (l.targets.paris.services[0].annotations = { '../x': 'v' }), /annotations\["\.\.\/x"\]: key "\.\.\/x" is not a valid annotation key/],
    ['annotation value', (l) => (l.targets.paris.services[0].annotations = { a: 1 }), /annotations\.a: 1 is not an annotation value/],
    ['service type', (l) => (l.targets.paris.services[0].type = 'Gateway'), /services\[0\]\.type: "Gateway" is not a Service type/],
    ['explicit false', (l) => (l.targets.paris.services[0].explicit = false), /services\[0\]\.explicit: false is not true/],
    ['serviceExport false', (l) => (l.targets.paris.services[0].serviceExport = false), /services\[0\]\.serviceExport: false is not true/],
    ['serviceExportsListed false', (l) => (l.targets.paris.serviceExportsListed = false), /^\$\.targets\.paris\.serviceExportsListed: false is not true/],
    ['hostname', (l) => (l.targets.paris.services[1].hostnames = ['../kafka-0']), /services\[1\]\.hostnames\[0\]: "\.\.\/kafka-0" is not a valid pod hostname/],
    ['endpoint port', (l) => (l.targets.paris.services[1].endpointPorts[0].port = 1.5), /endpointPorts\[0\]\.port: 1\.5 is not a port number/],
    ['gateway host name', (l) => (l.targets.paris.gateway.addresses = ['gw.example.com']), /^\$\.targets\.paris\.gateway\.addresses\[0\]: "gw\.example\.com" is not an IP address/],
    ['gateway port', (l) => (l.targets.paris.gateway.port = 99999), /gateway\.port: 99999 is not a port number/],
    ['gateway identity', (l) => (l.targets.paris.gateway.identity = 'not an identity'), /gateway\.identity: "not an identity" is not a valid gateway identity/],
    ['missing field', (l) => delete l.targets.paris.services[0].ports, /services\[0\]\.ports: is missing/],
    ['unknown field', (l) => (l.targets.paris.services[0].clusterIP = '10.0.0.1'), /services\[0\]: unknown field "clusterIP" \(this version of mirrorc never writes it; remove it\)/],
    ['unknown top-level field', (l) => (l.pinnedServiceIps = {}), /^\$: unknown field "pinnedServiceIps"/],
    ['target cluster key', (l) => (l.targets['../paris'] = l.targets.paris), /^\$\.targets\["\.\.\/paris"\]: key "\.\.\/paris" is not a valid cluster name/],
    ['source cluster key', (l) => (l.sources.London = l.sources.london), /^\$\.sources\.London: key "London" is not a valid cluster name/],
    ['missing export', (l) => (l.targets.paris.missingExplicitExports = ['gone']), /missingExplicitExports\[0\]: "gone" is not "namespace\/name"/],
    ['source namespace', (l) => (l.sources.london.namespaces = ['ok', 'a/b']), /^\$\.sources\.london\.namespaces\[1\]: "a\/b" is not a valid namespace name/],
    ['foreign service', (l) => (l.sources.london.foreignServices[0].name = 'Web'), /foreignServices\[0\]\.name: "Web" is not a valid Service name/],
    ['pinned range IP', (l) => (l.sources.london.pinnedRangeServices[0].ip = '10.96.0'), /pinnedRangeServices\[0\]\.ip: "10\.96\.0" is not an IP address/],
    ['pinned IP key', (l) => (l.pinnedServiceIPs.london = { '../../etc': '10.96.0.2' }), /^\$\.pinnedServiceIPs\.london\["\.\.\/\.\.\/etc"\]: key "\.\.\/\.\.\/etc" is not "namespace\/name"/],
    ['pinned IP value', (l) => (l.pinnedServiceIPs.london['data/kafka-0-paris'] = 10), /pinnedServiceIPs\.london\["data\/kafka-0-paris"\]: 10 is not an IP address/],
    ['stale time', (l) => (l.staleSince.targets.paris = 'yesterday'), /staleSince\.targets\.paris/],
    ['global member selector', (l) => (l.sources.london.globalMembers[0].selector = { app: 'a b' }), /globalMembers\[0\]\.selector\.app: "a b" is not a valid label value/],
    ['services not a list', (l) => (l.targets.paris.services = {}), /^\$\.targets\.paris\.services: \{\} is not an array/],
  ];
  test('GIVEN a lock from before ServiceExports were read (no serviceExport, no serviceExportsListed) WHEN read THEN it is accepted as it is', () => {
    const old = edited((l) => {
      delete l.targets.paris.serviceExportsListed;
      delete l.targets.paris.services[0].serviceExport;
    });
    const file = join(dir, 'before-service-exports.json');
    writeFileSync(file, JSON.stringify(old));
    const read = readLockFile(file);
    assert.equal(read.targets.paris?.serviceExportsListed, undefined);
    assert.equal(read.targets.paris?.services[0]?.serviceExport, undefined);
  });

  for (const [name, edit, expected] of cases) {
    test(`GIVEN a lock with a bad ${name} WHEN read THEN a LockFileError names the JSON path and what is wrong`, () => {
      const problems = problemsOf(edited(edit));
      assert.ok(problems.some((p) => expected.test(p)), `${expected}\n${problems.join('\n')}`);
    });
  }

  test('GIVEN a lock with hundreds of bad fields WHEN read THEN the list is capped, with a count of the rest', () => {
    const lock = edited((l) => (l.sources.london.namespaces = Array.from({ length: 100 }, (_, i) => `BAD${i}`)));
    const problems = problemsOf(lock);
    assert.equal(problems.length, MAX_LISTED_PROBLEMS + 1);
    assert.equal(problems.at(-1), `... and ${100 - MAX_LISTED_PROBLEMS} more`);
  });

  test('GIVEN paths of every shape WHEN written THEN keys that are not identifiers are quoted', () => {
    assert.equal(jsonPath(['targets', 'paris', 'services', 3, 'namespace']), '$.targets.paris.services[3].namespace');
    assert.equal(jsonPath(['labels', 'mirror.linkerd.io/exported']), '$.labels["mirror.linkerd.io/exported"]');
  });
});
