/**
 * Synth's part for `delivery/` and the reader identity: kept apart from run-synth.ts so that the run
 * itself only calls these few functions.
 */
import { compareStrings } from '../util/order.js';
import type { App, Chart } from 'cdk8s';
import { diffTrees } from '../emit/diff-trees.js';
import { readCommittedTree, replaceDirectory } from '../emit/write-output.js';
import type { FsHost } from '../emit/fs-host.js';
import type { FileTree } from '../emit/render-files.js';
import type { FleetSpec } from '../model/fleet-spec.js';
import { renderDeliveryFiles } from '../delivery/delivery-files.js';
import { observedClusters } from '../delivery/observed-clusters.js';
import { ReaderRbacChart } from '../delivery/reader-rbac-chart.js';
import { readStockArgoCdConfigMapData } from '../delivery/stock-argocd-cm.js';

/** One {@link ReaderRbacChart} per observed cluster, added to `app`. */
export function addReaderRbacCharts(app: App, fleet: FleetSpec): ReaderRbacChart[] {
  return observedClusters(fleet).map((cluster) => new ReaderRbacChart(app, cluster));
}

/** Charts grouped by the cluster folder they belong to, folders sorted. */
export function chartsByCluster(charts: readonly (Chart & { readonly cluster: string })[]): Map<string, Chart[]> {
  const byCluster = new Map<string, Chart[]>();
  for (const chart of charts) byCluster.set(chart.cluster, [...(byCluster.get(chart.cluster) ?? []), chart]);
  return new Map([...byCluster.entries()].sort(([a], [b]) => compareStrings(a, b)));
}

/**
 * The `delivery/` tree the fleet asks for; undefined when it has no GitOpsDelivery (then `delivery/` is left alone).
 * `output`: the whole `dist/` tree being written.
 */
export function deliveryTree(fleet: FleetSpec, output: FileTree): FileTree | undefined {
  return fleet.delivery ? renderDeliveryFiles(fleet, readStockArgoCdConfigMapData(), output) : undefined;
}

/** The `delivery/` folder of a run: its path, its rendered files, and whether the run writes it or compares it. */
export interface DeliveryOutput {
  readonly mode: 'write' | 'plan' | 'check';
  readonly dir: string;
  readonly tree: FileTree;
}

/** Writes `delivery/` (write mode) or reports whether it differs (plan/check); returns whether anything differs. */
export function emitDelivery(host: FsHost, output: DeliveryOutput, log: (line: string) => void): boolean {
  const { mode, dir, tree } = output;
  const changes = diffTrees(new Map([...readCommittedTree(dir, dir, host)].map(([p, c]) => [`delivery/${p}`, c])), new Map([...tree].map(([p, c]) => [`delivery/${p}`, c])));
  const change = changes[0];
  if (mode === 'write') replaceDirectory(dir, tree, host);
  if (!change) return false;
  const verb = mode === 'write' ? '' : 'would be ';
  log(`${dir}/: ${change.added.length} ${verb}added, ${change.changed.length} ${verb}changed, ${change.removed.length} ${verb}removed`);
  for (const f of change.added) log(`  + ${f}`);
  for (const f of change.changed) log(`  ~ ${f}`);
  for (const f of change.removed) log(`  - ${f}`);
  return true;
}
