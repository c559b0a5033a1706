/**
 * MRC5102: a unit family whose objects reach the cap of one Argo CD Application
 * (src/delivery/family-size.ts): counted as rendered, else read from disk, and read only when the
 * family could reach the cap.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { ExitCode } from '../../src/errors/exit-codes.js';
import { renderLockFile } from '../../src/observe/lock-file.js';
import { runSynth } from '../../src/pipeline/run-synth.js';
import { ARGOCD_FAMILY_OBJECT_CAP, countObjects, oversizedFamilies, oversizedFamilyMessage } from '../../src/delivery/family-size.js';
import type { UnitRecord } from '../../src/state/lock-document.js';
import { App } from 'cdk8s';
import { Cluster, Fleet, GitOpsDelivery, Link } from '../../src/model/index.js';
import { synthFleet } from '../../src/index.js';
import { service, snapshot, source, target } from '../fixtures/snapshots.js';

const files = { count: 1, bytes: 1, digest: '0'.repeat(64) };
/** A unit record listing `mirrors` mirrors. */
const unit = (mirrors: number): UnitRecord => ({ files, mirrors: Object.fromEntries(Array.from({ length: mirrors }, (_, i) => [`ns/s${i}-paris`, `paris/ns/s${i}`])) });

describe('countObjects', () => {
  test('one object per YAML document, whatever the separators and comments', () => {
    assert.equal(countObjects('# generated\napiVersion: v1\nkind: Service\nmetadata:\n  name: a\n---\napiVersion: v1\nkind: Endpoints\n---\napiVersion: discovery.k8s.io/v1\nkind: EndpointSlice\n'), 3);
    assert.equal(countObjects('resources:\n- a.yaml\n'), 0);
  });
});

describe('oversizedFamilies', () => {
  test('a family at the cap is reported with its count; one below it, and base, are not', () => {
    const units = { london: { base: unit(0), 'from-paris': unit(300), 'from-paris.1': unit(300), 'from-rome': unit(10) } };
    const counts: Record<string, number> = { 'london/from-paris': 2000, 'london/from-paris.1': 2000, 'london/from-rome': 3999, 'london/base': 9000 };
    const found = oversizedFamilies({ units, rendered: (c, u) => counts[`${c}/${u}`], onDisk: () => assert.fail('nothing is read: every unit was rendered') });
    assert.deepEqual(found, [{ cluster: 'london', family: 'from-paris', objects: 4000, units: 2 }]);
    assert.match(oversizedFamilyMessage(found[0]!), /^london: unit family "from-paris" holds 4000 objects in 2 units, at least 4000: its Argo CD Application \(mirrorc-london\.from-paris\)/);
  });

  test('units not rendered this run: read from disk only when the family could reach the cap (500 per unit of two or more mirrors; unbounded with one)', () => {
    const read: string[] = [];
    const onDisk = (c: string, u: string): number => (read.push(`${c}/${u}`), 600);
    // 4 kept units of many mirrors: at most 2,000 objects, never read
    const small = { london: Object.fromEntries(['from-paris', 'from-paris.1', 'from-paris.2', 'from-paris.3'].map((u) => [u, unit(100)])) };
    assert.deepEqual(oversizedFamilies({ units: small, rendered: () => undefined, onDisk }), []);
    assert.deepEqual(read, []);
    // 8 kept units: up to 4,000, so read (8 × 600 = 4,800 objects, reported)
    const large = { london: Object.fromEntries(Array.from({ length: 8 }, (_, i) => [i === 0 ? 'from-paris' : `from-paris.${i}`, unit(100)])) };
    assert.deepEqual(oversizedFamilies({ units: large, rendered: () => undefined, onDisk }), [{ cluster: 'london', family: 'from-paris', objects: 4800, units: 8 }]);
    assert.equal(read.length, 8);
    // one kept unit of a single mirror (a StatefulSet of thousands of pods can exceed 500): read
    read.length = 0;
    assert.deepEqual(oversizedFamilies({ units: { london: { 'from-paris': unit(1) } }, rendered: () => undefined, onDisk }), []);
    assert.deepEqual(read, ['london/from-paris']);
  });

  test('the cap is 4,000 objects, below etcd\'s ~4,700 per Application', () => {
    assert.equal(ARGOCD_FAMILY_OBJECT_CAP, 4000);
  });
});

/** london mirrors `services` gateway services of paris, delivered by Argo CD or Flux. */
const defineFleet = (argoCd: boolean) => (fleet: Fleet): void => {
  const london = new Cluster(fleet, 'london');
  new Link(fleet, 'london-from-paris', { source: london, target: new Cluster(fleet, 'paris') });
  new GitOpsDelivery(fleet, 'delivery', { repoUrl: 'https://git.example/fleet.git', ...(argoCd ? { argoCd: {} } : { flux: {} }) });
};
const observed = (services: number) => snapshot({ paris: target(Array.from({ length: services }, (_, i) => service('shop', `s${String(i).padStart(4, '0')}`))) }, { london: source(['shop']) });

describe('synth reports a family past the cap (MRC5102)', () => {
  const synth = (services: number, argoCd: boolean) => {
    const fleet = new Fleet(new App(), 'fleet');
    defineFleet(argoCd)(fleet);
    return synthFleet({ fleet, snapshot: observed(services) });
  };

  test('GIVEN 1,400 gateway mirrors of one target (three objects each) THEN the family is reported with the number of objects its files hold; Flux delivery is not concerned', () => {
    const files = synth(1400, true);
    const objects = [...files.output].filter(([path]) => /^london\/from-paris(\.[0-9]+)?\//.test(path) && !path.endsWith('/kustomization.yaml')).reduce((n, [, text]) => n + countObjects(text), 0);
    assert.ok(objects >= ARGOCD_FAMILY_OBJECT_CAP, `objects: ${objects}`);
    const units = new Set([...files.output.keys()].filter((path) => /^london\/from-paris(\.[0-9]+)?\/kustomization\.yaml$/.test(path))).size;
    const found = files.diagnostics.filter((d) => d.code === 'MRC5102');
    assert.deepEqual(found.map((d) => [d.cluster, d.message.split(':')[1]]), [['london', ` unit family "from-paris" holds ${objects} objects in ${units} units, at least 4000`]]);
    assert.deepEqual(synth(1400, false).diagnostics.filter((d) => d.code === 'MRC5102'), []);
  });

  test('GIVEN the same fleet synthesised again with nothing changed (every unit kept, none rendered) THEN the run warns exactly as the first did', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'mirrorc-family-size-'));
    try {
      const lockFile = join(dir, 'fleet.lock.json');
      writeFileSync(lockFile, renderLockFile(observed(1400)));
      const run = () => runSynth({ define: defineFleet(true), lockFile, outDir: join(dir, 'dist'), offline: true, log: () => {}, print: () => {} });
      const first = await run();
      assert.equal(first.exitCode, ExitCode.OK, first.error);
      const warned = first.diagnostics.filter((d) => d.code === 'MRC5102');
      assert.equal(warned.length, 1);
      const second = await run();
      assert.equal(second.exitCode, ExitCode.OK, second.error);
      assert.deepEqual(second.changes.flatMap((c) => [...c.added, ...c.changed, ...c.removed]), [], 'the second run renders and writes nothing');
      assert.deepEqual(second.diagnostics.filter((d) => d.code === 'MRC5102'), warned);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
