/**
 * The delivery columns of the benchmark: how the output of one fleet is split into delivery units
 * (docs/delivery-units.md) and how long kustomize — what Flux and Argo CD's repo-server run on
 * every unit — takes to render the largest one, with the harness's kubectl (kustomize v5.8.1).
 */
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { DOCUMENT_START } from '../src/emit/output-names.js';
import { REPO_ROOT } from './generate-fleet.js';
import { count, formatTable, seconds } from './format-table.js';

/** The delivery units of one fleet's output. */
export interface DeliveryMeasurement {
  readonly size: string;
  /** Unit folders of all clusters. */
  readonly units: number;
  /** The most units of one cluster. */
  readonly maxUnitsPerCluster: number;
  /** The largest unit: `<cluster>/<unit>` and its objects. */
  readonly largest: string;
  readonly largestObjects: number;
  /** `kubectl kustomize` of the largest unit, ms; undefined when no kubectl could be had. */
  readonly kustomizeMs?: number;
  /** Why it was not timed. */
  readonly kustomizeError?: string;
}

/** Objects under `dir`: the documents of every .yaml but kustomization.yaml. */
function unitObjects(dir: string): number {
  let n = 0;
  for (const entry of readdirSync(dir)) {
    const path = join(dir, entry);
    if (statSync(path).isDirectory()) n += unitObjects(path);
    // A mirror's file holds its objects as documents (src/emit/render-units.ts).
    else if (entry.endsWith('.yaml') && entry !== 'kustomization.yaml') n += readFileSync(path, 'utf8').split(DOCUMENT_START).length;
  }
  return n;
}

let kubectl: string | undefined | Error;

/**
 * The harness's kubectl (`KUBECTL` overrides it), built by test/harness/build-kube-bins.sh. Never
 * builds it (a first build takes tens of minutes): without it the build time is not measured, and
 * the table says how to build it.
 */
function harnessKubectl(): string {
  if (kubectl === undefined) {
    try {
      const out = process.env.KUBECTL ?? execFileSync('bash', [join(REPO_ROOT, 'test/harness/build-kube-bins.sh')], {
        encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, KUBE_TEST_BINS_CHECK_ONLY: '1' },
      });
      kubectl = process.env.KUBECTL ?? join(out.trim().split('\n').pop()!, 'kubectl');
    } catch {
      kubectl = new Error('kubectl not built: run bash test/harness/build-kube-bins.sh');
    }
  }
  if (kubectl instanceof Error) throw kubectl;
  return kubectl;
}

/** Measures the delivery units of `outDir` (after a cold synth). */
export function measureDelivery(size: string, outDir: string): DeliveryMeasurement {
  let units = 0;
  let maxUnitsPerCluster = 0;
  let largest = '';
  let largestObjects = -1;
  for (const cluster of readdirSync(outDir).sort()) {
    if (!statSync(join(outDir, cluster)).isDirectory()) continue;
    const unitDirs = readdirSync(join(outDir, cluster)).filter((u) => statSync(join(outDir, cluster, u)).isDirectory()).sort();
    units += unitDirs.length;
    maxUnitsPerCluster = Math.max(maxUnitsPerCluster, unitDirs.length);
    for (const unit of unitDirs) {
      const n = unitObjects(join(outDir, cluster, unit));
      if (n > largestObjects) [largest, largestObjects] = [`${cluster}/${unit}`, n];
    }
  }
  const base = { size, units, maxUnitsPerCluster, largest, largestObjects };
  try {
    const k = harnessKubectl();
    const started = performance.now();
    execFileSync(k, ['kustomize', join(outDir, largest)], { stdio: ['ignore', 'ignore', 'pipe'], maxBuffer: 1 << 30 });
    return { ...base, kustomizeMs: performance.now() - started };
  } catch (e) {
    return { ...base, kustomizeError: (e as Error).message.split('\n')[0] };
  }
}

/** One row per fleet: units, the largest unit and its kustomize build time. */
export function deliveryTable(results: readonly DeliveryMeasurement[]): string {
  const header = ['size', 'largest unit', 'units', 'max units/cluster', 'largest unit objects', 'kustomize build s'];
  return formatTable(header, results.map((d) => [d.size, d.largest, count(d.units), count(d.maxUnitsPerCluster), count(d.largestObjects), d.kustomizeMs === undefined ? `- (${d.kustomizeError ?? '?'})` : seconds(d.kustomizeMs)]));
}
