/**
 * The blocks where a source pins ClusterIPs: its `pinnedServiceIPRange` first, then its
 * `additionalPinnedServiceIPRanges` in the order declared (see cluster.ts).
 */
import { ipRangeProblem, parseIpRange, rangeWithin, type IpRange } from '../util/ip-range.js';
import type { ClusterSpec } from './fleet-spec.js';

/** The declared pinned blocks of `cluster`, primary first; empty when it declares no `pinnedServiceIPRange`. */
export function pinnedRangesOf(cluster: Pick<ClusterSpec, 'pinnedServiceIPRange' | 'additionalPinnedServiceIPRanges'>): readonly string[] {
  if (cluster.pinnedServiceIPRange === undefined) return [];
  return [cluster.pinnedServiceIPRange, ...(cluster.additionalPinnedServiceIPRanges ?? [])];
}

/** What is wrong with the declared `additionalPinnedServiceIPRanges` of `cluster` (each entry a valid block, no two blocks overlapping, a primary range declared). */
export function additionalPinnedRangesProblems(cluster: Pick<ClusterSpec, 'pinnedServiceIPRange' | 'additionalPinnedServiceIPRanges'>): string[] {
  const more = cluster.additionalPinnedServiceIPRanges;
  if (more === undefined) return [];
  if (!Array.isArray(more)) return [`additionalPinnedServiceIPRanges is not a list of CIDR blocks (e.g. ['10.100.0.0/24'])`];
  if (cluster.pinnedServiceIPRange === undefined) return ['additionalPinnedServiceIPRanges needs pinnedServiceIPRange: declare the first block there'];
  const problems: string[] = [];
  const valid: IpRange[] = [];
  for (const cidr of [cluster.pinnedServiceIPRange, ...more]) {
    const problem = ipRangeProblem(cidr);
    if (problem !== undefined) {
      if (cidr !== cluster.pinnedServiceIPRange) problems.push(`additionalPinnedServiceIPRanges entry ${problem}; give the bottom of another Service CIDR, e.g. ['10.100.0.0/24']`);
      continue;
    }
    const range = parseIpRange(cidr);
    const clash = valid.find((other) => rangeWithin(range, other) || rangeWithin(other, range));
    if (clash) problems.push(`additionalPinnedServiceIPRanges entry ${cidr} overlaps the pinned block ${clash.cidr}; declare blocks that share no address`);
    else valid.push(range);
  }
  return problems;
}
