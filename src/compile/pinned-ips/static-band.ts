/**
 * Whether a source's pinned ClusterIPs are safe from the API server's dynamic allocation.
 *
 * kube-apiserver splits each Service CIDR in two (KEP-3070, `calculateRangeOffset` in
 * pkg/registry/core/service/ipallocator): the *static band*, the lowest min(max(16, size/16), 256)
 * addresses after the network address (none for a CIDR of 16 addresses or fewer), and the rest. A
 * Service without a chosen ClusterIP gets a random free address of the rest, and one of the static
 * band only when the rest is full. So only a ClusterIP of the static band is reliably free when a
 * GitOps tool applies a mirror that pins it; any other pinned address may already have been given to
 * another Service ("provided IP is already allocated"). A second ServiceCIDR does not widen a band,
 * but has a band of its own (kube-apiserver v1.36 picks among ServiceCIDRs in no fixed order, and
 * in each prefers the addresses past its band): a source that needs more pins than one band holds
 * declares `additionalPinnedServiceIPRanges`, each checked here like `pinnedServiceIPRange`.
 *
 * Pure: the inputs are the source's declared range and Service CIDRs and the IPs pinned this run.
 */
import { addressAt, offsetOf, parseIpRange, rangeWithin, type IpRange } from '../../util/ip-range.js';
import { pinnableOffsets, STATIC_BAND_MAX, STATIC_BAND_MIN, staticBandSize } from './band.js';

/** Inputs of {@link staticBandProblem}. */
export interface StaticBandInput {
  /** The source cluster. */
  readonly source: string;
  /** One of the source's pinned blocks (validated). */
  readonly range: string;
  /** The field that declares `range`, for messages. @default 'pinnedServiceIPRange' */
  readonly field?: 'pinnedServiceIPRange' | 'additionalPinnedServiceIPRanges';
  /** The source's declared `serviceCidrs` (validated). @default none declared: only what holds for every Service CIDR is checked */
  readonly serviceCidrs?: readonly string[];
  /** The IPs pinned for the source this run, `namespace/name` → IP. */
  readonly pinned: Readonly<Record<string, string>>;
}

/** What a source that needs more pins than one band holds must do. */
const MORE = 'for more per-pod mirrors than one band holds, add a ServiceCIDR of at least 4,096 addresses (each has a band of its own) and declare a block at its bottom in additionalPinnedServiceIPRanges';

const AT_RISK = 'the API server also gives addresses to new Services that chose none, and a per-pod mirror pinned on an address given away is refused at apply ("provided IP is already allocated")';

/**
 * Why pinned ClusterIPs of the source can be taken by dynamic allocation, or undefined when they cannot:
 * - with `serviceCidrs`: the pinnable addresses of the range must lie in the static band of every
 *   declared Service CIDR that holds the range, and the range must lie in one of them;
 * - without: a range with pinnable addresses past its first 256 reaches beyond any static band.
 * IPs pinned outside the range (a mirror taken over from Linkerd's controller, a live mirror of an
 * earlier, wider range) are held by their live Services and are not counted.
 */
export function staticBandProblem(input: StaticBandInput): string | undefined {
  const { source } = input;
  const field = input.field ?? 'pinnedServiceIPRange';
  const range = parseIpRange(input.range);
  const pinnable = pinnableOffsets(range);
  if (pinnable.last < pinnable.first) return undefined;
  const pinnedInRange = Object.values(input.pinned).filter((ip) => {
    const offset = offsetOf(range, ip);
    return offset !== undefined && offset >= 0n && offset < range.size;
  });
  const pinnedNow = (outside: number): string => (pinnedInRange.length === 0 ? '' : `; ${outside} of the ${pinnedInRange.length} ClusterIPs pinned now lie there`);
  const width = range.family === 4 ? 32 : 128;

  if (input.serviceCidrs === undefined || input.serviceCidrs.length === 0) {
    if (pinnable.last <= STATIC_BAND_MAX) return undefined;
    const outside = pinnedInRange.filter((ip) => offsetOf(range, ip)! > STATIC_BAND_MAX).length;
    return (
      `${source}: ${field} ${range.cidr} has ${pinnable.last - pinnable.first + 1n} addresses to pin, more than the static band of any Service CIDR holds (its lowest ` +
      `min(max(16, size/16), 256) addresses, the only ones the API server keeps for ClusterIPs chosen by the client): past the first ${STATIC_BAND_MAX} addresses of the range, ` +
      `${AT_RISK}${pinnedNow(outside)}. Declare a block of at most ${STATIC_BAND_MAX} addresses at the bottom of the Service CIDR ` +
      `(${addressAt(range, 0n)}/${width - 8} if the Service CIDR starts at ${addressAt(range, 0n)}), and the cluster's serviceCidrs so that the range is checked against the exact band; ` +
      MORE
    );
  }

  const cidrs = input.serviceCidrs.map(parseIpRange);
  const holding = cidrs.filter((cidr) => rangeWithin(range, cidr));
  if (holding.length === 0) {
    const sameFamily = cidrs.find((cidr) => cidr.family === range.family);
    const example = sameFamily ? ` (e.g. ${bandBlock(sameFamily) ?? sameFamily.cidr})` : '';
    return (
      `${source}: ${field} ${range.cidr} does not lie wholly in any of the cluster's serviceCidrs (${input.serviceCidrs.join(', ')}); the API server refuses a ClusterIP ` +
      `outside its Service CIDRs ("provided IP is not in the valid range"), and keeps only the lowest addresses of each (its static band) for ClusterIPs chosen by the client. ` +
      `Declare the range at the bottom of the Service CIDR${example}, or add the Service CIDR it lies in to serviceCidrs`
    );
  }
  for (const cidr of holding) {
    const band = staticBandSize(cidr);
    // The band is offsets 1..band of the Service CIDR (its network address is never handed out).
    const inBand = (ip: string): boolean => {
      const offset = offsetOf(cidr, ip)!;
      return offset >= 1n && offset <= band;
    };
    const start = range.first - cidr.first;
    if (start + pinnable.first >= 1n && start + pinnable.last <= band) continue;
    const outside = pinnedInRange.filter((ip) => !inBand(ip)).length;
    if (band === 0n) {
      return (
        `${source}: the cluster's Service CIDR ${cidr.cidr}, which holds ${field} ${range.cidr}, has no static band (a Service CIDR of ${STATIC_BAND_MIN} addresses or fewer ` +
        `has none, so the API server keeps none of its addresses for ClusterIPs chosen by the client): ${AT_RISK}${pinnedNow(outside)}. Give the cluster a Service CIDR of more than ${STATIC_BAND_MIN} addresses`
      );
    }
    return (
      `${source}: ${field} ${range.cidr} reaches beyond the static band of the cluster's Service CIDR ${cidr.cidr} ` +
      `(${addressAt(cidr, 1n)}-${addressAt(cidr, band)}, its lowest ${band} addresses, the only ones the API server keeps for ClusterIPs chosen by the client): outside it, ` +
      `${AT_RISK}${pinnedNow(outside)}. Declare ${field}: '${bandBlock(cidr)!}', which lies in the band; ` +
      MORE
    );
  }
  return undefined;
}

/** The largest CIDR block at the bottom of `serviceCidr` whose pinnable addresses lie in its static band, or undefined when it has none. */
function bandBlock(serviceCidr: IpRange): string | undefined {
  const band = staticBandSize(serviceCidr);
  if (band === 0n) return undefined;
  // The band's size is a power of two; a block of that size at the bottom pins offsets 1..band-1 at most.
  const hostBits = band.toString(2).length - 1;
  return `${addressAt(serviceCidr, 0n)}/${(serviceCidr.family === 4 ? 32 : 128) - hostBits}`;
}
