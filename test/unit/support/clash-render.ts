/**
 * A compile with a name clash, a previous owner, foreign Services and pinned per-pod IPs, rendered to
 * the exact files of dist/ plus its warnings and pinned IPs, as one JSON text: what
 * test/unit/compile-isolation.test.ts compares across input orders and processes. Run as a script
 * (`node --import tsx clash-render.ts [reversed]`) it prints its time zone and locale on the first
 * line, then that text, for a run in another process with another time zone and locale.
 */
import { App } from 'cdk8s';
import { compileFleet } from '../../../src/compile/compile-fleet.js';
import { renderChartFiles } from '../../../src/emit/render-files.js';
import { Cluster, Link } from '../../../src/model/index.js';
import type { FleetSnapshot } from '../../../src/snapshot/snapshot.js';
import { DEFAULT_SELECTOR_QUERIES, service, snapshot, source, spec, statefulService, target } from '../../fixtures/snapshots.js';

// s mirrors x-y and y: foo of "x-y" and foo-x of "y" are both mirrored as foo-x-y (a clash).
const fleet = spec((f) => {
  const s = new Cluster(f, 's', { pinnedServiceIPRange: '10.96.0.0/28' });
  const xy = new Cluster(f, 'x-y');
  const y = new Cluster(f, 'y');
  new Link(f, 's-xy', { source: s, target: xy });
  new Link(f, 's-y', { source: s, target: y });
});

/** The snapshot, with every list and record in the order observation writes it (sorted). */
function sortedSnapshot(): FleetSnapshot {
  const snap = snapshot(
    {
      'x-y': target([service('apps', 'web'), service('default', 'foo'), statefulService('default', 'kafka', ['kafka-0', 'kafka-1']), service('default', 'keep'), service('default', 'taken')], { selectors: DEFAULT_SELECTOR_QUERIES }),
      y: target([service('default', 'foo-x'), service('default', 'other'), statefulService('default', 'zk', ['zk-0', 'zk-1', 'zk-2'])], { selectors: DEFAULT_SELECTOR_QUERIES }),
    },
    {},
  );
  return {
    ...snap,
    sources: { s: { ...source(['apps', 'default'], [{ namespace: 'default', name: 'other-y' }, { namespace: 'default', name: 'taken-x-y' }]), pinnedRangeServices: [] } },
  };
}

/** The same snapshot with every list and record in the reverse order. */
function reversedSnapshot(): FleetSnapshot {
  const sorted = sortedSnapshot();
  const reverseRecord = <V>(r: Record<string, V>, f: (v: V) => V): Record<string, V> => Object.fromEntries(Object.entries(r).reverse().map(([k, v]) => [k, f(v)]));
  return {
    format: sorted.format,
    sources: reverseRecord(sorted.sources, (s) => ({ ...s, namespaces: [...s.namespaces].reverse(), foreignServices: [...s.foreignServices].reverse() })),
    targets: reverseRecord(sorted.targets, (t) => ({ ...t, selectors: [...t.selectors].reverse(), services: [...t.services].reverse().map((svc) => ({ ...svc, hostnames: svc.hostnames && [...svc.hostnames].reverse() })) })),
  };
}

/** The rendered files of every chart, the warnings and the pinned IPs, as one JSON text. */
export function renderClash(order: 'sorted' | 'reversed'): string {
  const snap = order === 'sorted' ? sortedSnapshot() : reversedSnapshot();
  const result = compileFleet(new App(), fleet, snap, { previousOwners: { s: { 'default/foo-x-y': 'y/default/foo-x' } } });
  const files = result.charts.map((chart) => [chart.cluster, [...renderChartFiles(chart)]]);
  return JSON.stringify({ files, warnings: result.warnings, pinnedServiceIPs: result.pinnedServiceIPs }, null, 1);
}

if (process.argv[1] && import.meta.filename === process.argv[1]) {
  const { timeZone, locale } = Intl.DateTimeFormat().resolvedOptions();
  process.stdout.write(`${timeZone} ${locale}\n${renderClash(process.argv[2] === 'reversed' ? 'reversed' : 'sorted')}`);
}
