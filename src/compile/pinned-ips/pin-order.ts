/**
 * The order in which new pins take the addresses of a source's pinned blocks: first every address
 * that lies in a static band (block by block, in the order declared, lowest first), then the rest
 * (block by block, lowest first). A pin in a static band cannot be taken by a Service that chose no
 * ClusterIP while its Service CIDR has room past the band; a pin past it can (see band.ts). With one
 * block at the bottom of its Service CIDR this is simply lowest first.
 *
 * Which addresses lie in a band: with the cluster's `serviceCidrs` declared, those in the band of
 * every declared Service CIDR that holds the block (none when none holds it); without, the block's
 * first 256 (no band is larger, so nothing past them can be in one).
 */
import { addressAt, parseIpRange, rangeWithin, type IpRange } from '../../util/ip-range.js';
import { pinnableOffsets, STATIC_BAND_MAX, staticBandSize } from './band.js';

/** Offsets `first` to `last` (inclusive) of `range`. */
export interface PinSegment {
  readonly range: IpRange;
  readonly first: bigint;
  readonly last: bigint;
  /** The segment lies in a static band. */
  readonly inBand: boolean;
}

/** The pinnable offsets of `range` that lie in a static band, as one span (`last < first` when none). */
export function bandSpan(range: IpRange, serviceCidrs: readonly IpRange[] | undefined): { readonly first: bigint; readonly last: bigint } {
  const pinnable = pinnableOffsets(range);
  if (serviceCidrs === undefined || serviceCidrs.length === 0) return { first: pinnable.first, last: pinnable.last < STATIC_BAND_MAX ? pinnable.last : STATIC_BAND_MAX };
  const holding = serviceCidrs.filter((cidr) => rangeWithin(range, cidr));
  if (holding.length === 0) return { first: 1n, last: 0n };
  let first = pinnable.first;
  let last = pinnable.last;
  for (const cidr of holding) {
    // The band is offsets 1..band of the Service CIDR; the block starts `start` addresses into it.
    const start = range.first - cidr.first;
    const bandFirst = 1n - start;
    const bandLast = staticBandSize(cidr) - start;
    if (bandFirst > first) first = bandFirst;
    if (bandLast < last) last = bandLast;
  }
  return { first, last };
}

/** The segments new pins take, in order: the band spans of all blocks, then what is left of each block. */
export function pinOrder(ranges: readonly string[], serviceCidrs?: readonly string[]): PinSegment[] {
  const cidrs = serviceCidrs?.map(parseIpRange);
  const blocks = ranges.map(parseIpRange).map((range) => ({ range, pinnable: pinnableOffsets(range), band: bandSpan(range, cidrs) }));
  const inBand: PinSegment[] = [];
  const rest: PinSegment[] = [];
  const push = (to: PinSegment[], segment: PinSegment): void => {
    if (segment.first <= segment.last) to.push(segment);
  };
  for (const { range, pinnable, band } of blocks) {
    if (band.first > band.last) {
      push(rest, { range, first: pinnable.first, last: pinnable.last, inBand: false });
      continue;
    }
    push(inBand, { range, first: band.first, last: band.last, inBand: true });
    push(rest, { range, first: pinnable.first, last: band.first - 1n, inBand: false });
    push(rest, { range, first: band.last + 1n, last: pinnable.last, inBand: false });
  }
  return [...inBand, ...rest];
}

/** Walks `segments` in order: each call gives the next address not in `taken` (read at each call), undefined once none is left. */
export function freeAddresses(segments: readonly PinSegment[], taken: ReadonlySet<string>): () => string | undefined {
  let segment = 0;
  let offset = segments[0]?.first ?? 0n;
  return () => {
    for (; segment < segments.length; segment++, offset = segments[segment]?.first ?? 0n) {
      const { range, last } = segments[segment]!;
      for (; offset <= last; offset++) {
        const ip = addressAt(range, offset);
        if (!taken.has(ip)) return ip;
      }
    }
    return undefined;
  };
}
