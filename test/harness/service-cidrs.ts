/**
 * Adds ServiceCIDR objects to one cluster of a kube fleet and waits until each can hand out
 * ClusterIPs, as a platform team adds a Service CIDR before pinning in its static band
 * (docs/modes/headless.md, `additionalPinnedServiceIPRanges`). A ServiceCIDR's allocator is ready
 * once the API server accepts a ClusterIP in it: a server-side dry run of a Service at an address
 * past the CIDR's static band (offset 456: x.y.1.200 of a CIDR at x.y.0.0), polled. Used by
 * test/integration/argocd-fleet-size.test.ts and the bench's Flux and Argo CD phases.
 */
import { setTimeout as delay } from 'node:timers/promises';
import { addressAt, parseIpRange } from '../../src/util/ip-range.js';
import type { KubeFleet } from './kube-fleet.js';

/** One ServiceCIDR object: its name and its one IPv4 CIDR (a /23 or wider). */
export interface ServiceCidrObject {
  readonly name: string;
  readonly cidr: string;
}

/** Polls of the dry-run probe before giving up, 500 ms apart. */
const PROBE_ATTEMPTS = 240;
/** The probe's offset in each CIDR: past every pinned block of the tests and the bench, and past the static band of a /23 or wider. */
const PROBE_OFFSET = 456n;

/** Creates `objects` as ServiceCIDRs of `cluster` and waits until the allocator of each takes a ClusterIP. */
export async function addServiceCidrs(fleet: KubeFleet, cluster: string, objects: readonly ServiceCidrObject[]): Promise<void> {
  if (objects.length === 0) return;
  const items = objects.map(({ name, cidr }) => ({ apiVersion: 'networking.k8s.io/v1', kind: 'ServiceCIDR', metadata: { name }, spec: { cidrs: [cidr] } }));
  await fleet.kubectl(cluster, ['apply', '-f', '-'], JSON.stringify({ apiVersion: 'v1', kind: 'List', items }));
  for (const { cidr } of objects) {
    const probe = JSON.stringify({ apiVersion: 'v1', kind: 'Service', metadata: { name: 'cidr-probe', namespace: 'default' }, spec: { clusterIP: addressAt(parseIpRange(cidr), PROBE_OFFSET), ports: [{ port: 80 }] } });
    for (let attempt = 0; ; attempt++) {
      const accepted = await fleet.kubectl(cluster, ['create', '--dry-run=server', '-f', '-'], probe).then(() => true, (e: Error) => (attempt < PROBE_ATTEMPTS ? false : Promise.reject(e)));
      if (accepted) break;
      await delay(500);
    }
  }
}
