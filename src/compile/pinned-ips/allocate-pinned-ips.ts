/**
 * Pins ClusterIPs for per-pod Services at compile time. Pure: the inputs are the source's declared
 * range, the Services that need an IP, the allocation of the previous run (from the lock) and the
 * live Services observed in the range.
 *
 * Rules, in order, per Service:
 * 0. A per-pod mirror taken over from Linkerd's controller (`adopted`) keeps the ClusterIP the
 *    source gave it, inside the range or not: a ClusterIP can never change in place.
 * 1. A live Service of ours with that name keeps its IP: a ClusterIP can never change in place.
 * 2. Otherwise the previous run's IP is kept, so an IP never moves between runs; if another live
 *    Service now holds it, that is a collision, reported through `onFailure` (never a silent clash
 *    at apply time): compile skips that service, or fails under `--strict`.
 * 3. Otherwise the first free address in pin order (pin-order.ts: every address of the blocks
 *    that lies in a static band first, then the rest, each lowest first), skipping live IPs, every IP
 *    kept this run, and every IP the previous run held (an IP released now is not reused in the same
 *    run, because GitOps tools create new objects before they prune old ones).
 * The blocks are `pinnedServiceIPRange` and then `additionalPinnedServiceIPRanges`.
 */
import type { PinnedRangeService } from '../../snapshot/snapshot.js';
import { canonicalIp, parseIpRange, rangeContains } from '../../util/ip-range.js';
import { freeAddresses, pinOrder } from './pin-order.js';
import { compareStrings } from '../../util/order.js';
import type { Diagnostics } from '../diagnostics.js';
import { Diag } from '../../diagnostics/diagnostic-codes.js';

/** A Service that needs a pinned ClusterIP. */
export interface PinnedServiceRequest {
  readonly namespace: string;
  readonly name: string;
  /** What it mirrors, for messages: `paris/data/kafka pod kafka-0`. */
  readonly origin: string;
}

/** Inputs of {@link allocatePinnedIPs}. */
export interface PinnedIPInput {
  /** The source cluster. */
  readonly source: string;
  /** The source's declared `pinnedServiceIPRange`. */
  readonly range: string;
  /** The source's declared `additionalPinnedServiceIPRanges`. @default none */
  readonly additionalRanges?: readonly string[];
  /** The source's declared `serviceCidrs`, which tell which addresses lie in a static band. @default none declared: a block's first 256 addresses count as in a band */
  readonly serviceCidrs?: readonly string[];
  readonly requests: readonly PinnedServiceRequest[];
  /** The previous run's allocation of this source, `namespace/name` → IP. */
  readonly previous: Readonly<Record<string, string>>;
  /** Live Services in the range; undefined when the source was never observed. */
  readonly live: readonly PinnedRangeService[] | undefined;
  /** ClusterIPs of per-pod mirrors adopted from Linkerd's controller, `namespace/name` → IP, read from the source. @default none */
  readonly adopted?: Readonly<Record<string, string>>;
  /** Receives each request that gets no usable IP, with the reason. @default an error in `diagnostics` */
  readonly onFailure?: (request: PinnedServiceRequest, message: string) => void;
}

/** `namespace/name`, the allocation key. */
export function pinnedKey(namespace: string, name: string): string {
  return `${namespace}/${name}`;
}

/** The allocation, `namespace/name` → IP, sorted by key; errors go to `diagnostics`. */
export function allocatePinnedIPs(input: PinnedIPInput, diagnostics: Diagnostics): Record<string, string> {
  const { source } = input;
  const fail = input.onFailure ?? ((_request: PinnedServiceRequest, message: string) => diagnostics.error(Diag.PINNED_IP_UNAVAILABLE, message, { cluster: input.source, namespace: _request.namespace, service: _request.name }));
  const blocks = [input.range, ...(input.additionalRanges ?? [])];
  const ranges = blocks.map(parseIpRange);
  const described = blocks.length === 1 ? `pinnedServiceIPRange ${ranges[0]!.cidr}` : `pinnedServiceIPRange ${ranges[0]!.cidr} with additionalPinnedServiceIPRanges ${blocks.slice(1).join(', ')}`;
  const live = input.live ?? [];
  const liveByIp = new Map(live.map((s) => [s.ip, s]));
  const ourLiveByKey = new Map(live.filter((s) => s.managed).map((s) => [pinnedKey(s.namespace, s.name), s.ip]));
  // Sorted by key (each key made once, not at every comparison; the sort is stable, as before).
  const requests = input.requests.map((request) => ({ request, key: pinnedKey(request.namespace, request.name) })).sort((a, b) => compareStrings(a.key, b.key));

  const allocation = new Map<string, string>();
  const adopted = input.adopted ?? {};
  const taken = new Set<string>([...liveByIp.keys(), ...Object.values(input.previous).map(canonicalIp), ...Object.values(adopted).map(canonicalIp)]);
  const pending: PinnedServiceRequest[] = [];
  for (const { request, key } of requests) {
    const adoptedIp = adopted[key];
    if (adoptedIp !== undefined) {
      allocation.set(key, canonicalIp(adoptedIp));
      continue;
    }
    const liveIp = ourLiveByKey.get(key);
    if (liveIp !== undefined) {
      allocation.set(key, liveIp);
      continue;
    }
    const previousIp = input.previous[key] !== undefined ? canonicalIp(input.previous[key]!) : undefined;
    if (previousIp !== undefined && ranges.some((range) => rangeContains(range, previousIp))) {
      const holder = liveByIp.get(previousIp);
      if (holder) {
        const whose = holder.managed ? `mirrorc's Service ${holder.namespace}/${holder.name} (of an earlier run, not yet pruned)` : `Service ${holder.namespace}/${holder.name}, which mirrorc did not write`;
        fail(
          request,
          `${source}: ClusterIP ${previousIp}, pinned for per-pod mirror ${key} (${request.origin}), is held by ${whose}; ` +
            `free that IP (delete or recreate that Service with another IP), or remove "${key}" from compiled.pinnedServiceIPs.${source} in the lock to pin a new IP`,
        );
      }
      allocation.set(key, previousIp);
      taken.add(previousIp);
      continue;
    }
    pending.push(request);
  }
  for (const ip of allocation.values()) taken.add(ip);

  const next = freeAddresses(pinOrder(blocks, input.serviceCidrs), taken);
  for (const request of pending) {
    const key = pinnedKey(request.namespace, request.name);
    const ip = next();
    if (ip === undefined) {
      fail(
        request,
        `${source}: ${described} has no free address left for per-pod mirror ${key} (${request.origin}); ` +
          `${pending.length} new per-pod Services need IPs; declare a larger block of the Service CIDR, or another block at the bottom of another ServiceCIDR (additionalPinnedServiceIPRanges)`,
      );
      continue;
    }
    allocation.set(key, ip);
    taken.add(ip);
  }
  // Requests were sorted, so the allocation usually is: sorted again only when it is not.
  const entries = [...allocation.entries()];
  if (entries.some(([k], i) => i > 0 && compareStrings(entries[i - 1]![0], k) > 0)) entries.sort(([a], [b]) => compareStrings(a, b));
  // (Assigned one by one: faster than Object.fromEntries for thousands of keys; a key holds a "/", so
  // it is never "__proto__" nor integer-like, and the object keeps the sorted order.)
  const result: Record<string, string> = {};
  for (const [key, ip] of entries) result[key] = ip;
  return result;
}
