/** Fleets and locks of the write-path safety cases: offline synth from a generated lock, no apiserver. */
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import YAML from 'yaml';
import { runSynth, type SynthOptions, type SynthResult } from '../../src/pipeline/run-synth.js';
import type { SafetyRepo } from './support.js';

/** Source `a` mirrors target `b` through its gateway. */
export const FLEET_A = `const a = new Cluster(fleet, 'a'); const b = new Cluster(fleet, 'b'); new Link(fleet, 'a-from-b', { source: a, target: b });`;
/** The same link, leaving out namespaces ns-1 and ns-2 (so its dist/ differs from {@link FLEET_A}'s). */
export const FLEET_B = `const a = new Cluster(fleet, 'a'); const b = new Cluster(fleet, 'b'); new Link(fleet, 'a-from-b', { source: a, target: b, namespaces: { exclude: ['ns-1', 'ns-2'] } });`;

/** One exported Service of target `b` as the lock records it. */
export function service(namespace: string, name: string, port = 80): object {
  return { namespace, name, labels: { 'mirror.linkerd.io/exported': 'true' }, annotations: {}, type: 'ClusterIP', headless: false, ports: [{ name: 'http', protocol: 'TCP', port }] };
}

/** A lock where target `b` exports `services` and source `a` has `namespaces`. */
export function lockWith(services: readonly object[], namespaces: readonly string[]): object {
  return {
    format: 1,
    targets: { b: { selectors: ['mirror.linkerd.io/exported=remote-discovery', 'mirror.linkerd.io/exported=true', 'mirror.linkerd.io/federated=member'], services, missingExplicitExports: [], gateway: { addresses: ['203.0.113.7'], port: 4143, identity: 'gw.example' } } },
    sources: { a: { namespaces, foreignServices: [] } },
  };
}

/** `count` services spread over namespaces ns-0..ns-3 (one file each in dist/a/: a mirror's objects share one). */
export function generatedLock(count: number): object {
  const services = Array.from({ length: count }, (_, i) => service(`ns-${i % 4}`, `svc-${String(i).padStart(3, '0')}`));
  return lockWith(services, ['ns-0', 'ns-1', 'ns-2', 'ns-3']);
}

/** Before a change: web and api in default, old in legacy. */
export const LOCK_OLD = lockWith([service('default', 'api'), service('default', 'web'), service('legacy', 'old')], ['default', 'legacy', 'pay']);
/**
 * After it: web's port changed, old gone (its folder too), fresh added in a new folder. Written
 * with 4-space indentation (not canonical), so synth also rewrites the lock.
 */
export const LOCK_NEW_TEXT = `${JSON.stringify(lockWith([service('default', 'api'), service('default', 'web', 8080), service('pay', 'fresh')], ['default', 'legacy', 'pay']), null, 4)}\n`;

/** Runs synth in this process on `repo` (faster than the CLI; the same code path), collecting its log. */
export function synthInProcess(repo: SafetyRepo, mode: SynthOptions['mode'], extra: Partial<SynthOptions> = {}): Promise<SynthResult & { log: string[] }> {
  const log: string[] = [];
  return runSynth({ fleetFile: repo.fleetFile, lockFile: repo.lockFile, outDir: repo.outDir, offline: true, mode, log: (l) => log.push(l), print: (l) => log.push(l), ...extra })
    .then((r) => ({ ...r, log }));
}

/** Every `kustomization.yaml` below `outDir` whose resources name a file that does not exist (should be none). */
export function danglingKustomizationEntries(outDir: string): string[] {
  const dangling: string[] = [];
  const walk = (dir: string): void => {
    for (const e of readdirSync(dir)) {
      const abs = join(dir, e);
      if (statSync(abs).isDirectory()) walk(abs);
      else if (e === 'kustomization.yaml') {
        for (const r of (YAML.parse(readFileSync(abs, 'utf8')) as { resources?: string[] }).resources ?? []) {
          try {
            statSync(join(dir, r));
          } catch {
            dangling.push(`${abs}: ${r}`);
          }
        }
      }
    }
  };
  try {
    walk(outDir);
  } catch {
    // no dist/ at all: nothing dangles (the caller checks the state itself)
  }
  return dangling;
}

/** Leftovers of the write path beside dist/ or the lock (transaction, staging, holder info, temp files). */
export function writeLeftovers(repo: SafetyRepo): string[] {
  return [...readdirSync(repo.dir), ...readdirSync(join(repo.dir, 'clusters')).map((e) => `clusters/${e}`)]
    .filter((e) => /\.dist\.|mirrorc-staged|\.tmp$/.test(e));
}
