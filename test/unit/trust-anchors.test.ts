/**
 * The shared trust-anchor check: observation keeps only fingerprint, subject and expiry of each
 * root (src/observe/observe-trust-roots.ts); compile fails the link whose clusters share no root,
 * not the fleet (src/compile/trust-anchors/check-trust-anchors.ts).
 */
import assert from 'node:assert/strict';
import { createHash, X509Certificate } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { CompileError } from '../../src/compile/diagnostics.js';
import { planFleet } from '../../src/compile/compile-fleet.js';
import { ReaderRbacChart } from '../../src/delivery/reader-rbac-chart.js';
import { Cluster, Link } from '../../src/model/index.js';
import { LockFileError, readLockFile, renderLockFile } from '../../src/observe/lock-file.js';
import { observationRules, TRUST_ROOTS_RULE } from '../../src/observe/observation-rbac.js';
import { trustRootsOfBundle } from '../../src/observe/observe-trust-roots.js';
import type { FleetSnapshot, ObservedTrustRoot } from '../../src/snapshot/snapshot.js';
import { App } from 'cdk8s';
import { compileObjects, service, snapshot, source, spec, target } from '../fixtures/snapshots.js';

const ROOT_A = readFileSync('test/fixtures/trust-roots/root-a.crt', 'utf8');
const ROOT_B = readFileSync('test/fixtures/trust-roots/root-b.crt', 'utf8');
const [rootA, rootB] = [ROOT_A, ROOT_B].map((pem) => trustRootsOfBundle('test', pem).roots![0]!) as [ObservedTrustRoot, ObservedTrustRoot];

// s mirrors from x and from y; x shares s's root, y does not.
const fleet = spec((f) => {
  const s = new Cluster(f, 's');
  new Link(f, 's-from-x', { source: s, target: new Cluster(f, 'x') });
  new Link(f, 's-from-y', { source: s, target: new Cluster(f, 'y', { trustRootExpiryWarningDays: 90 }) });
});

function fleetSnapshot(roots: { s?: ObservedTrustRoot[]; x?: ObservedTrustRoot[]; y?: ObservedTrustRoot[] }): FleetSnapshot {
  const withRoots = <T extends object>(base: T, r: ObservedTrustRoot[] | undefined): T => (r ? { ...base, trustRoots: r } : base);
  return snapshot(
    { x: withRoots(target([service('default', 'orders')]), roots.x), y: withRoots(target([service('default', 'billing')]), roots.y) },
    { s: withRoots(source(['default']), roots.s) },
  );
}

const mirrors = (objects: Map<string, unknown>): string[] => [...objects.keys()].filter((k) => k.startsWith('s/Service/')).sort();

describe('trust roots as observed', () => {
  test('GIVEN a PEM bundle of two roots, one twice WHEN read THEN each root is kept once with the SHA-256 of its DER, its subject and expiry, sorted by fingerprint', () => {
    const { roots, problems } = trustRootsOfBundle('cluster "x": ConfigMap linkerd/linkerd-identity-trust-roots', `${ROOT_B}\n${ROOT_A}\n${ROOT_B}`);
    assert.deepEqual(problems, []);
    assert.equal(roots?.length, 2);
    const cert = new X509Certificate(ROOT_A);
    const a = roots!.find((r) => r.subject === 'CN=root-a.linkerd.cluster.local')!;
    // The fingerprint is what `openssl x509 -fingerprint -sha256` prints: SHA-256 over the DER.
    const der = cert.raw;
    assert.equal(a.fingerprint, createHash('sha256').update(der).digest('hex').toUpperCase().match(/../g)!.join(':'));
    assert.equal(a.notAfter, new Date(cert.validTo).toISOString());
    assert.deepEqual(roots!.map((r) => r.fingerprint), [...roots!.map((r) => r.fingerprint)].sort());
  });

  test('GIVEN a bundle with a broken block, or none at all WHEN read THEN the problem names where, and an empty bundle gives no roots', () => {
    const broken = trustRootsOfBundle('cluster "x": ConfigMap linkerd/linkerd-identity-trust-roots', `${ROOT_A}\n-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n`);
    assert.equal(broken.roots?.length, 1);
    assert.match(broken.problems.join('\n'), /cluster "x": ConfigMap linkerd\/linkerd-identity-trust-roots: certificate 2 of "ca-bundle.crt" cannot be parsed/);
    const empty = trustRootsOfBundle('cluster "x": ConfigMap linkerd/linkerd-identity-trust-roots', '');
    assert.equal(empty.roots, undefined);
    assert.match(empty.problems.join('\n'), /holds no certificate under "ca-bundle.crt", so the trust-anchor check of this cluster's links is skipped/);
  });
});

describe('the lock holds fingerprints, subjects and expiry only', () => {
  const dir = mkdtempSync(join(tmpdir(), 'mirrorc-trust-lock-'));
  test('GIVEN trust roots in a lock WHEN written and read back THEN they round-trip, and no certificate content is in the text', () => {
    const path = join(dir, 'roots.lock.json');
    const snap = fleetSnapshot({ s: [rootA], x: [rootA, rootB] });
    writeFileSync(path, renderLockFile(snap));
    assert.deepEqual(readLockFile(path), JSON.parse(JSON.stringify(snap)));
    assert.ok(!readFileSync(path, 'utf8').includes('BEGIN CERTIFICATE'));
    const body = ROOT_A.split('\n')[1]!;
    assert.ok(!readFileSync(path, 'utf8').includes(body.slice(0, 20)));
  });

  test('GIVEN an old lock without trust roots WHEN read THEN it loads', () => {
    const path = join(dir, 'old.lock.json');
    writeFileSync(path, renderLockFile(fleetSnapshot({})));
    assert.deepEqual(readLockFile(path).sources.s, source(['default']));
  });

  test('GIVEN a lock whose trust root carries a PEM or a malformed fingerprint WHEN read THEN it is rejected naming the path', () => {
    const path = join(dir, 'bad.lock.json');
    const lock = JSON.parse(renderLockFile(fleetSnapshot({ x: [rootA] })));
    lock.observed.targets.x.trustRoots[0].pem = ROOT_A;
    writeFileSync(path, JSON.stringify(lock));
    assert.throws(() => readLockFile(path), (e: unknown) => e instanceof LockFileError && /\$\.observed\.targets\.x\.trustRoots\[0\]: unknown field "pem"/.test(e.message));
    lock.observed.targets.x.trustRoots[0] = { ...rootA, fingerprint: 'abc' };
    writeFileSync(path, JSON.stringify(lock));
    assert.throws(() => readLockFile(path), (e: unknown) => e instanceof LockFileError && /\$\.observed\.targets\.x\.trustRoots\[0\]\.fingerprint: "abc" is not a SHA-256 fingerprint/.test(e.message));
    rmSync(dir, { recursive: true, force: true });
  });
});

describe('the shared trust-anchor check fails one link, not the fleet', () => {
  test('GIVEN x shares the source\'s root and y does not WHEN compiled THEN only y\'s link is left out, with a warning naming both clusters and the roots\' subjects and expiry', () => {
    const { objects, result } = compileObjects(fleet, fleetSnapshot({ s: [rootA], x: [rootB, rootA], y: [rootB] }));
    assert.deepEqual(mirrors(objects), ['s/Service/default/orders-x']);
    const warning = result.warnings.find((w) => w.startsWith('link fleet/s-from-y:'));
    assert.ok(warning, result.warnings.join('\n'));
    assert.match(warning, /"s" and "y" share no Linkerd trust root/);
    assert.ok(warning.includes(`"s" trusts "CN=root-a.linkerd.cluster.local" (SHA-256 ${rootA.fingerprint.slice(0, 11)}…`), warning);
    assert.ok(warning.includes(`"y" trusts "CN=root-b.linkerd.cluster.local"`), warning);
    assert.ok(warning.includes(`expires ${rootB.notAfter.slice(0, 10)}`), warning);
    assert.match(warning, /the mirrors of this link are not compiled, the other links are updated \(--strict makes this an error\)$/);
    // AND plan shows one row per link
    assert.deepEqual(result.planRows.map((r) => r.replace(/ \(SHA-256.*$/, '')), [
      'trust anchors: link fleet/s-from-x (s ← x): shared "CN=root-a.linkerd.cluster.local"',
      'trust anchors: link fleet/s-from-y (s ← y): FAILED: no shared root',
    ]);
  });

  test('GIVEN the same mismatch WHEN compiled strict THEN it is a compile error naming the link', () => {
    assert.throws(() => compileObjects(fleet, fleetSnapshot({ s: [rootA], x: [rootA], y: [rootB] }), { strict: true }),
      (e: unknown) => e instanceof CompileError && e.problems.length === 1 && e.problems[0]!.startsWith('link fleet/s-from-y: "s" and "y" share no Linkerd trust root'));
  });

  test('GIVEN a cluster without observed roots (old lock, or no ConfigMap) WHEN compiled THEN its links compile unchecked and plan says so', () => {
    const { objects, result } = compileObjects(fleet, fleetSnapshot({ s: [rootA], x: [rootA] }));
    assert.deepEqual(mirrors(objects), ['s/Service/default/billing-y', 's/Service/default/orders-x']);
    assert.ok(!result.warnings.some((w) => w.includes('trust root')), result.warnings.join('\n'));
    assert.ok(result.planRows.includes('trust anchors: link fleet/s-from-y (s ← y): not checked: no trust roots observed in "y"'), result.planRows.join('\n'));
  });

  test('GIVEN roots expiring within a cluster\'s window WHEN compiled with a time THEN each is a warning naming the cluster; outside the window, or without a time, nothing', () => {
    const expiry = Date.parse(rootB.notAfter);
    const snap = fleetSnapshot({ s: [rootA, rootB], x: [rootA], y: [rootB] });
    // y's window is 90 days, s's the default 30: 60 days before expiry only y warns.
    const sixtyDaysBefore = new Date(expiry - 60 * 86_400_000);
    const warned = compileObjects(fleet, snap, { now: sixtyDaysBefore }).result.warnings.filter((w) => w.includes('expires on'));
    assert.deepEqual(warned.map((w) => w.slice(0, w.indexOf(':'))), ['cluster "y"']);
    assert.match(warned[0]!, /Linkerd trust root "CN=root-b.linkerd.cluster.local" \(SHA-256 .*\) expires on .*, within 90 days; add its successor/);
    const expired = compileObjects(fleet, snap, { now: new Date(expiry + 1000) }).result.warnings.filter((w) => w.includes('expired on'));
    // Both fixture roots were made the same minute: past their expiry, every cluster's roots warn.
    assert.deepEqual([...new Set(expired.map((w) => w.slice(0, w.indexOf(':'))))], ['cluster "s"', 'cluster "x"', 'cluster "y"']);
    assert.deepEqual(compileObjects(fleet, snap, { now: new Date(expiry - 100 * 86_400_000) }).result.warnings.filter((w) => w.includes('trust root')), []);
    assert.deepEqual(compileObjects(fleet, snap).result.warnings.filter((w) => w.includes('trust root')), []);
  });
});

describe('a source synth does not plan (its inputs unchanged) keeps its links checked', () => {
  test('GIVEN a failed link and an expiring root WHEN the source is left unplanned THEN it gets no plan, and the fleet-wide trust warnings and plan rows are those of a full plan', () => {
    const expiry = Date.parse(rootB.notAfter);
    const snap = fleetSnapshot({ s: [rootA], x: [rootA], y: [rootB] });
    const now = new Date(expiry - 60 * 86_400_000);
    const full = planFleet(fleet, snap, { now });
    const unplanned = planFleet(fleet, snap, { now, unplanned: new Set(['s']) });
    assert.deepEqual(unplanned.plans, []);
    // the fleet-wide warnings (trust anchors of every link, expiry) are those of the full plan; only the source's own (recorded in the lock) are left out
    const own = new Set(full.plans.flatMap((p) => p.warnings ?? []));
    const fleetWide = full.diagnostics.filter((d) => !own.has(d));
    assert.ok(fleetWide.some((d) => d.message.startsWith('link fleet/s-from-y:')) && fleetWide.some((d) => d.message.includes('expires on')), full.warnings.join('\n'));
    assert.deepEqual(unplanned.diagnostics, fleetWide);
    assert.deepEqual(unplanned.planRows, full.planRows.filter((r) => r.startsWith('trust anchors:')));
    // AND its pinned IPs (none here) and the failed link stay as a full plan has them
    assert.deepEqual(unplanned.pinnedServiceIPs, full.pinnedServiceIPs);
  });
});

describe('least privilege for the trust roots', () => {
  test('GIVEN a cluster in either role WHEN its reader ClusterRole is rendered THEN it may get the one trust-roots ConfigMap by name, and no other ConfigMap', () => {
    for (const roles of [{ source: true, target: false }, { source: false, target: true }, { source: true, target: true }]) {
      const objects = new ReaderRbacChart(new App(), { name: 'x', ...roles }).toJson();
      const rules = objects.find((o) => o.kind === 'ClusterRole').rules as { resources: string[]; resourceNames?: string[]; verbs: string[] }[];
      const configMaps = rules.filter((r) => r.resources.includes('configmaps'));
      assert.deepEqual(configMaps, [{ apiGroups: [''], resources: ['configmaps'], resourceNames: ['linkerd-identity-trust-roots'], verbs: ['get'] }], JSON.stringify(roles));
      assert.deepEqual(observationRules(roles).filter((r) => r.resources.includes('configmaps')), [TRUST_ROOTS_RULE]);
    }
  });
});
