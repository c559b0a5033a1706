/**
 * Creates the further ServiceCIDRs of a generated fleet (generate-fleet.ts furtherServiceCidrs) in
 * a source's kube-apiserver before the first sync, as a platform team does before declaring
 * `additionalPinnedServiceIPRanges` (docs/modes/headless.md), so that the pins in their static bands
 * are accepted (test/harness/service-cidrs.ts waits until each allocator is ready).
 */
import type { KubeFleet } from '../test/harness/kube-fleet.js';
import { addServiceCidrs } from '../test/harness/service-cidrs.js';

/** Name of the n-th ServiceCIDR object the bench creates (0-based). */
export function benchServiceCidrName(index: number): string {
  return `mirrorc-bench-pins-${index + 1}`;
}

/** Creates each of `cidrs` (IPv4 /16s of the generated fleet) as a ServiceCIDR of `source` and waits until its allocator takes a ClusterIP. */
export async function createServiceCidrs(fleet: KubeFleet, source: string, cidrs: readonly string[]): Promise<void> {
  await addServiceCidrs(fleet, source, cidrs.map((cidr, i) => ({ name: benchServiceCidrName(i), cidr })));
}
