/**
 * Checks of a target's gateway before its mirrors point at it. A target team controls its gateway
 * Service, so its address must not be able to send a source's mirrored traffic somewhere inside
 * the source itself: loopback, link-local (the cloud metadata endpoint 169.254.169.254),
 * unspecified, multicast and broadcast addresses are rejected, in IPv4, IPv6, IPv4-mapped and NAT64
 * (`64:ff9b::/96`) IPv6 forms, as is any address inside a linking source's declared Service or pod ranges.
 */
import { isIPv6 } from 'node:net';
import type { ClusterSpec, FleetSpec } from '../model/fleet-spec.js';
import { pinnedRangesOf } from '../model/pinned-ranges.js';
import { dns1123SubdomainProblem, ipLiteralProblem, portNumberProblem, quote } from '../util/k8s-names.js';
import { canonicalIp, ipRangeProblem, parseIpRange, rangeContains, type IpRange } from '../util/ip-range.js';
import type { FleetSnapshot, ObservedGateway, TargetSnapshot } from '../snapshot/snapshot.js';
import { appendAll } from '../util/append-all.js';

/** A declared address range of a source cluster, named for messages. */
export interface DeclaredRange {
  readonly range: IpRange;
  /** `the Service range 10.96.0.0/12 of source cluster "london"`. */
  readonly what: string;
}

const SPECIAL_RANGES: readonly { cidr: string; what: string }[] = [
  { cidr: '0.0.0.0/8', what: 'an unspecified ("this network") address' },
  { cidr: '127.0.0.0/8', what: 'a loopback address' },
  { cidr: '169.254.0.0/16', what: 'a link-local address (169.254.169.254 is the cloud metadata endpoint)' },
  { cidr: '224.0.0.0/4', what: 'a multicast address' },
  { cidr: '255.255.255.255/32', what: 'the broadcast address' },
  { cidr: '::/128', what: 'the unspecified address' },
  { cidr: '::1/128', what: 'the loopback address' },
  { cidr: 'fe80::/10', what: 'a link-local address' },
  { cidr: 'ff00::/8', what: 'a multicast address' },
];
const SPECIAL = SPECIAL_RANGES.map((r) => ({ range: parseIpRange(r.cidr), what: r.what }));
/**
 * IPv6 ranges whose last 32 bits are an IPv4 address the packet reaches: IPv4-mapped addresses (the
 * host's own IPv4 stack) and NAT64's well-known prefix (RFC 6052: the NAT64 gateway forwards to it,
 * so `64:ff9b::a9fe:a9fe` is 169.254.169.254 from where the gateway stands).
 */
const IPV4_EMBEDDING = [parseIpRange('::ffff:0:0/96'), parseIpRange('64:ff9b::/96')];

/** The IPv4 address inside an IPv4-mapped (`::ffff:127.0.0.1`) or NAT64 (`64:ff9b::7f00:1`) IPv6 address, or undefined. */
export function embeddedIPv4(ip: string): string | undefined {
  if (!isIPv6(ip) || !IPV4_EMBEDDING.some((r) => rangeContains(r, ip))) return undefined;
  const hextets = canonicalIp(ip).split(':').slice(-2).map((h) => parseInt(h, 16));
  const [high, low] = [hextets[0] ?? 0, hextets[1] ?? 0];
  return [high >> 8, high & 0xff, low >> 8, low & 0xff].join('.');
}

/** Why a source must not send mirrored traffic to `ip`, or undefined. */
export function gatewayAddressProblem(ip: string, declared: readonly DeclaredRange[] = []): string | undefined {
  const literal = ipLiteralProblem(ip);
  if (literal) return literal;
  const forms = [ip, embeddedIPv4(ip)].filter((f): f is string => f !== undefined);
  for (const form of forms) {
    const mapped = form === ip ? '' : ` (${rangeContains(IPV4_EMBEDDING[0]!, ip) ? 'IPv4-mapped' : 'NAT64 of'} ${form})`;
    const special = SPECIAL.find((s) => rangeContains(s.range, form));
    if (special) return `${ip}${mapped} is ${special.what}`;
    const inside = declared.find((d) => rangeContains(d.range, form));
    if (inside) return `${ip}${mapped} lies inside ${inside.what}`;
  }
  return undefined;
}

/** Every reason to reject `gateway` (addresses, port, identity); empty when it is acceptable. */
export function gatewayProblems(gateway: ObservedGateway, declared: readonly DeclaredRange[]): string[] {
  const problems: string[] = [];
  if (gateway.addresses.length === 0) problems.push('it has no address');
  for (const address of gateway.addresses) {
    const p = gatewayAddressProblem(address, declared);
    if (p) problems.push(`address ${p}`);
  }
  const port = portNumberProblem(gateway.port);
  if (port) problems.push(`port ${port}`);
  if (gateway.identity !== undefined) {
    const identity = dns1123SubdomainProblem(gateway.identity, 'gateway identity');
    if (identity) problems.push(`identity ${identity}`);
  }
  return problems;
}

/** The declared Service and pod ranges (and pinned ranges) of every source that links to `target`. */
export function linkingSourceRanges(fleet: FleetSpec, target: string): DeclaredRange[] {
  const sources = new Set(fleet.links.filter((l) => l.target === target).map((l) => l.source));
  const ranges: DeclaredRange[] = [];
  for (const cluster of fleet.clusters.filter((c) => sources.has(c.name))) appendAll(ranges, declaredRanges(cluster));
  return ranges;
}

/** A cluster's declared ranges: `serviceCidrs` (with `pinnedServiceIPRange`) and `podCidrs`. */
export function declaredRanges(cluster: ClusterSpec): DeclaredRange[] {
  const ranges: DeclaredRange[] = [];
  const add = (cidr: string, what: string): void => {
    if (ipRangeProblem(cidr) !== undefined) return; // reported by fleet validation
    ranges.push({ range: parseIpRange(cidr), what: `the ${what} ${cidr} of source cluster "${cluster.name}"` });
  };
  for (const cidr of cluster.serviceCidrs ?? []) add(cidr, 'Service range');
  for (const cidr of pinnedRangesOf(cluster)) add(cidr, 'pinned Service range');
  for (const cidr of cluster.podCidrs ?? []) add(cidr, 'pod range');
  return ranges;
}

/** `203.0.113.7,203.0.113.8:4143 (identity x)`: a gateway as messages show it. */
export function describeGateway(gateway: ObservedGateway): string {
  // Shown as JSON when not plain names, so a hostile value cannot break the message into lines.
  const shown = (value: unknown, plain: boolean): string => (plain ? String(value) : quote(value));
  const addresses = gateway.addresses.map((a) => shown(a, ipLiteralProblem(a) === undefined)).join(',');
  const identity = gateway.identity !== undefined ? `identity ${shown(gateway.identity, dns1123SubdomainProblem(gateway.identity) === undefined)}` : 'no identity';
  return `${addresses}:${shown(gateway.port, typeof gateway.port === 'number')} (${identity})`;
}

/**
 * Problems of the gateways a lock holds against the fleet's declared ranges (the lock schema
 * cannot know the ranges): one line per target, naming what to do.
 */
export function lockGatewayProblems(fleet: FleetSpec, snapshot: FleetSnapshot): string[] {
  const problems: string[] = [];
  for (const [target, observed] of Object.entries(snapshot.targets)) {
    if (!observed.gateway || !fleet.clusters.some((c) => c.name === target)) continue;
    const found = gatewayProblems(observed.gateway, linkingSourceRanges(fleet, target));
    if (found.length > 0) {
      problems.push(`$.targets.${target}.gateway: ${found.join('; ')}; delete this gateway entry (the next synth with cluster access observes it again), or correct the fleet's declared ranges`);
    }
  }
  return problems;
}

/**
 * Why `gateway` must not be used (nor probed): every check {@link checkedGateway} makes, with
 * `last` the gateway the lock knows. Empty when it is acceptable. Observation asks this before
 * the opt-in probe sends a request, so the probe never goes where the checks say no.
 */
export function gatewayRejections(gateway: ObservedGateway, last: ObservedGateway | undefined, ranges: readonly DeclaredRange[]): string[] {
  const problems = gatewayProblems(gateway, ranges);
  if (last?.identity !== undefined && gateway.identity === undefined) problems.push(`it lost its identity ${last.identity}`);
  return problems;
}

/**
 * The target snapshot with an acceptable gateway: a gateway whose address, port or identity is
 * rejected is dropped (the caller then keeps the last known one), and so is one that lost the
 * identity the lock knew (a downgrade of transport security is never automatic). A changed port
 * or identity is taken, with a warning, so it shows in plan output.
 */
export function checkedGateway(target: string, snapshot: TargetSnapshot, last: ObservedGateway | undefined, ranges: readonly DeclaredRange[], warnings: string[]): TargetSnapshot {
  const gateway = snapshot.gateway;
  if (!gateway) return snapshot;
  const { gateway: _dropped, ...withoutGateway } = snapshot;
  const keeping = last && gatewayProblems(last, ranges).length === 0
    ? `keeping the last known gateway ${describeGateway(last)}`
    : 'no earlier gateway is known, so its gateway-mode mirrors are not compiled';
  const problems = gatewayProblems(gateway, ranges);
  if (problems.length > 0) {
    warnings.push(
      `cluster "${target}": REJECTED its gateway ${describeGateway(gateway)}: ${problems.join('; ')}; ${keeping}; ` +
        'fix the gateway Service (its load-balancer address, "mc-gateway" port and identity annotation) or the gateway settings of the model',
    );
    return withoutGateway;
  }
  if (!last) return snapshot;
  if (last.identity !== undefined && gateway.identity === undefined) {
    warnings.push(
      `cluster "${target}": REJECTED its gateway ${describeGateway(gateway)}: it lost its identity ${last.identity}, so proxies could no longer verify it; ${keeping}; ` +
        'restore the gateway identity annotation, or set gateway.identity in the model',
    );
    return withoutGateway;
  }
  if (gateway.port !== last.port) warnings.push(`cluster "${target}": its gateway port changed from ${last.port} to ${gateway.port}; mirrors now send traffic to port ${gateway.port}`);
  if (gateway.identity !== last.identity && last.identity !== undefined) {
    warnings.push(`cluster "${target}": its gateway identity changed from ${last.identity} to ${gateway.identity}; proxies now require the new identity`);
  }
  return snapshot;
}
