/**
 * The static band of a Service CIDR (KEP-3070, `calculateRangeOffset` in kube-apiserver's
 * pkg/registry/core/service/ipallocator): its lowest min(max(16, size/16), 256) addresses after the
 * network address, which the API server hands to Services without a chosen ClusterIP only when the
 * rest of that CIDR is full. Every ServiceCIDR object has its own band. And the offsets of a pinned
 * block that new pins may take.
 */
import type { IpRange } from '../../util/ip-range.js';

/** The fewest addresses of a static band (a Service CIDR of this size or smaller has none). */
export const STATIC_BAND_MIN = 16n;
/** The most addresses of a static band, whatever the Service CIDR's size. */
export const STATIC_BAND_MAX = 256n;
/** The static band takes one address in this many of the Service CIDR, between the two bounds. */
export const STATIC_BAND_STEP = 16n;

/** How many addresses of `serviceCidr` form its static band: min(max(16, size/16), 256), and 0 for a CIDR of 16 addresses or fewer. */
export function staticBandSize(serviceCidr: IpRange): bigint {
  if (serviceCidr.size <= STATIC_BAND_MIN) return 0n;
  const share = serviceCidr.size / STATIC_BAND_STEP;
  return share < STATIC_BAND_MIN ? STATIC_BAND_MIN : share > STATIC_BAND_MAX ? STATIC_BAND_MAX : share;
}

/**
 * The offsets of `range` that new pins take, `first` to `last` inclusive (`last < first` when none):
 * the first address of the block (a network address) and, for IPv4, the last (broadcast) are never handed out.
 */
export function pinnableOffsets(range: IpRange): { readonly first: bigint; readonly last: bigint } {
  return { first: 1n, last: range.family === 4 ? range.size - 2n : range.size - 1n };
}
