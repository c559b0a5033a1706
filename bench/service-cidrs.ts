/**
 * Creates the further ServiceCIDRs of a generated fleet (generate-fleet.ts furtherServiceCidrs) in
 * a source's kube-apiserver before the first sync, as a platform team does before declaring
 * `additionalPinnedServiceIPRanges` (docs/modes/headless.md), so that the pins in their static bands
 * are accepted. As test/integration/argocd-fleet-size.test.ts does: a ServiceCIDR's allocator is
 * ready once the API server accepts a ClusterIP in it (a server-side dry run, polled).
 */
import { setTimeout as delay } from 'node:timers/promises';
import type { KubeFleet } from '../test/harness/kube-fleet.js';

/** Name of the n-th ServiceCIDR object the bench creates (0-based). */
export function benchServiceCidrName(index: number): string {
  return `mirrorc-bench-pins-${index + 1}`;
}

/** Polls of the dry-run probe before giving up, 500 ms apart. */
const PROBE_ATTEMPTS = 240;

/** Creates each of `cidrs` (IPv4 /16s of the generated fleet) as a ServiceCIDR of `source` and waits until its allocator takes a ClusterIP. */
export async function createServiceCidrs(fleet: KubeFleet, source: string, cidrs: readonly string[]): Promise<void> {
  if (cidrs.length === 0) return;
  const items = cidrs.map((cidr, i) => ({ apiVersion: 'networking.k8s.io/v1', kind: 'ServiceCIDR', metadata: { name: benchServiceCidrName(i) }, spec: { cidrs: [cidr] } }));
  await fleet.kubectl(source, ['apply', '-f', '-'], JSON.stringify({ apiVersion: 'v1', kind: 'List', items }));
  for (const cidr of cidrs) {
    // An address of the /16 past its static band and pinned block (.1.200), accepted only once the CIDR's allocator exists.
    const [a, b] = cidr.split('.');
    const probe = JSON.stringify({ apiVersion: 'v1', kind: 'Service', metadata: { name: 'cidr-probe', namespace: 'default' }, spec: { clusterIP: `${a}.${b}.1.200`, ports: [{ port: 80 }] } });
    for (let attempt = 0; ; attempt++) {
      const accepted = await fleet.kubectl(source, ['create', '--dry-run=server', '-f', '-'], probe).then(() => true, (e: Error) => (attempt < PROBE_ATTEMPTS ? false : Promise.reject(e)));
      if (accepted) break;
      await delay(500);
    }
  }
}
