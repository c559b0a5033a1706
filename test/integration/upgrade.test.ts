/**
 * Upgrading mirrorc (issue 39; docs/upgrading.md): the bundled example fleet compiled by an earlier
 * mirrorc, then by this working tree, then the earlier one again.
 *
 * No release is tagged (0.1.0 was published from an unmarked commit, and package.json has said 0.1.0
 * since the first commit), so "the previous version" is a fixed commit of this repository's history:
 * {@link PREVIOUS}, the last one that wrote lock format 4 and the layout before a mirror's objects
 * became one file. Its sources, example fleet and package.json are kept as a fixture made from that
 * commit (test/fixtures/upgrade/, so a shallow clone runs the test too) and run with tsx on this checkout's
 * node_modules (its dependencies are the ones of today; only dev tools were added since): building
 * and packing it would test npm pack, which registry-install.test.ts does, not the upgrade.
 *
 * The fleet repository is those files with `src` a link, so that its fleet file
 * (`import ... from '../src/index.js'`) loads the version being run, like an installed package would.
 */
import assert from 'node:assert/strict';
import { spawnSync, type SpawnSyncReturns } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync, symlinkSync, unlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { after, test } from 'node:test';
import YAML from 'yaml';
import { readTree } from '../../src/emit/read-tree.js';

const REPO = resolve('.');
/** The earlier mirrorc: lock format 4, a mirror's Service, Endpoints and EndpointSlices in files of their own (2026-11-28). */
const PREVIOUS = '50b0ac76056b6fcad6cc31f8124942db99481497';
const TSX = import.meta.resolve('tsx');
const scratch = mkdtempSync(join(tmpdir(), 'mirrorc-upgrade-'));
const fleet = join(scratch, 'fleet');
const LOCK = join(fleet, 'clusters', 'fleet.lock.json');

after(() => rmSync(scratch, { recursive: true, force: true }));

function run(command: string, args: readonly string[], cwd: string): SpawnSyncReturns<string> {
  const r = spawnSync(command, args, { cwd, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
  if (r.error) throw r.error;
  return r;
}

/** The fleet repository's mirrorc becomes `src` (the earlier version's sources or this working tree's). */
function use(src: string): void {
  unlinkSync(join(fleet, 'src'));
  symlinkSync(src, join(fleet, 'src'));
}

/** `mirrorc <args>` of the version `use` chose, in the fleet repository. */
const mirrorc = (...args: string[]): SpawnSyncReturns<string> => run(process.execPath, ['--import', TSX, join(fleet, 'src', 'cli', 'main.ts'), ...args], fleet);

/** Every Kubernetes object below `dir`, by `<cluster folder> <kind> <namespace>/<name>`, whatever file holds it. */
function objects(dir: string): Map<string, { kind: string; spec?: { clusterIP?: string } }> {
  const out = new Map<string, { kind: string; spec?: { clusterIP?: string } }>();
  for (const [file, text] of readTree(dir)) {
    for (const doc of YAML.parseAllDocuments(text)) {
      const o = doc.toJS() as { kind: string; metadata?: { name?: string; namespace?: string }; spec?: { clusterIP?: string } } | null;
      if (o) out.set(`${file.split('/')[0]} ${o.kind} ${o.metadata?.namespace ?? ''}/${o.metadata?.name ?? ''}`, o);
    }
  }
  return out;
}

const json = (text: string): { format: number; observed: unknown; compiled: { pinnedServiceIPs?: unknown } } => JSON.parse(text) as never;

test('the example fleet upgraded from an earlier mirrorc: the lock migrates (format 4 to 5) keeping every observation and pinned IP, no object is dropped, and the earlier mirrorc refuses the new lock without touching it', () => {
  // GIVEN the example fleet as the earlier mirrorc (PREVIOUS) compiles it, offline, from its lock
  const tar = join(REPO, 'test', 'fixtures', 'upgrade', `mirrorc-${PREVIOUS.slice(0, 7)}.tar.gz`);
  mkdirSync(fleet);
  assert.equal(run('tar', ['-xzf', tar, '-C', fleet], scratch).status, 0, 'tar -x');
  symlinkSync(join(REPO, 'node_modules'), join(fleet, 'node_modules'));
  const previousSrc = join(fleet, '.previous-src');
  renameSync(join(fleet, 'src'), previousSrc);
  symlinkSync(previousSrc, join(fleet, 'src'));
  rmSync(join(fleet, 'dist'), { recursive: true, force: true });
  rmSync(join(fleet, 'delivery'), { recursive: true, force: true });
  const before = mirrorc('synth', '--offline');
  assert.equal(before.status, 0, `the earlier mirrorc: synth --offline\n${before.stderr}`);
  const oldLock = readFileSync(LOCK, 'utf8');
  assert.equal(json(oldLock).format, 4, 'the earlier mirrorc writes lock format 4');
  const [oldDist, oldDelivery] = [objects(join(fleet, 'dist')), objects(join(fleet, 'delivery'))];

  // WHEN the fleet repository upgrades to this working tree and synthesizes (offline: from the lock alone)
  use(join(REPO, 'src'));
  const upgraded = mirrorc('synth', '--offline');
  assert.equal(upgraded.status, 0, `this mirrorc: synth --offline after the upgrade\n${upgraded.stderr}`);

  // THEN the lock is format 5 with the same observations and the same pinned service IPs
  const newLockText = readFileSync(LOCK, 'utf8');
  const [was, now] = [json(oldLock), json(newLockText)];
  assert.equal(now.format, 5);
  assert.deepEqual(now.observed, was.observed, 'what the clusters were last seen to hold is kept');
  assert.ok(was.compiled.pinnedServiceIPs, 'the example pins service IPs');
  assert.deepEqual(now.compiled.pinnedServiceIPs, was.compiled.pinnedServiceIPs, 'no pinned IP changes (a changed clusterIP recreates the Service)');
  // AND dist/ and delivery/ hold the same objects (files merged and moved, as CHANGELOG.md says), every Service with its clusterIP
  const [newDist, newDelivery] = [objects(join(fleet, 'dist')), objects(join(fleet, 'delivery'))];
  assert.deepEqual([...newDist.keys()].sort(), [...oldDist.keys()].sort(), 'objects in dist/ (per cluster, kind, namespace/name)');
  assert.deepEqual([...newDelivery.keys()].sort(), [...oldDelivery.keys()].sort(), 'objects in delivery/');
  const ips = (m: typeof oldDist): string[] => [...m].filter(([, o]) => o.kind === 'Service').map(([k, o]) => `${k} ${o.spec?.clusterIP ?? ''}`).sort();
  assert.ok(ips(oldDist).length > 20, 'the example fleet has mirrors');
  assert.deepEqual(ips(newDist), ips(oldDist), 'every mirror Service keeps its clusterIP');
  // AND the upgraded repository is up to date for this mirrorc
  const check = mirrorc('check', '--offline');
  assert.equal(check.status, 0, `check --offline after the upgrade\n${check.stderr}`);

  // WHEN the earlier mirrorc runs again on the upgraded repository (a downgrade, or a teammate's older install)
  const distAfter = readTree(join(fleet, 'dist'));
  use(previousSrc);
  const downgraded = mirrorc('synth', '--offline');
  // THEN it refuses (exit 2) by the lock's format number, and neither the lock nor dist/ changes
  assert.equal(downgraded.status, 2, `the earlier mirrorc on a format 5 lock\n${downgraded.stderr}`);
  assert.match(downgraded.stderr, /has format 5, but this version reads formats 1, 2, 3 and 4/);
  assert.equal(readFileSync(LOCK, 'utf8'), newLockText, 'the lock is untouched');
  assert.deepEqual(readTree(join(fleet, 'dist')), distAfter, 'dist/ is untouched');
});

test('this mirrorc refuses a lock of a later format as written by a later mirrorc (MRC1004, exit 2), and leaves it as it is', () => {
  // GIVEN the example fleet with this mirrorc, its lock rewritten by a later mirrorc (format 6)
  const repo = join(scratch, 'later');
  mkdirSync(repo);
  cpSync(join(REPO, 'clusters'), join(repo, 'clusters'), { recursive: true });
  symlinkSync(join(REPO, 'src'), join(repo, 'src'));
  const lock = join(repo, 'clusters', 'fleet.lock.json');
  const later = `${JSON.stringify({ ...json(readFileSync(lock, 'utf8')), format: 6 }, null, 2)}\n`;
  writeFileSync(lock, later);
  // WHEN this mirrorc synthesizes
  const r = run(process.execPath, ['--import', TSX, join(REPO, 'src', 'cli', 'main.ts'), 'synth', '--offline', '--report', join(scratch, 'report.json')], repo);
  // THEN exit 2, the message says which mirrorc to run and not to delete the lock; the report has MRC1004; the lock is as it was
  assert.equal(r.status, 2, r.stderr);
  assert.match(r.stderr, /has format 6, written by a later mirrorc: this one \(\S+\) reads formats 1, 2, 3, 4 and 5; install the mirrorc that wrote it/);
  assert.match(r.stderr, /do not delete the lock/);
  assert.match(readFileSync(join(scratch, 'report.json'), 'utf8'), /"MRC1004"/);
  assert.equal(readFileSync(lock, 'utf8'), later);
});
