/**
 * Where the opt-in gateway probe may send its request (issue 33, item 5). The target's team chooses
 * its gateway's addresses (the load balancer's status, or a host name it controls), so "any address
 * the gateway checks accept" would let it aim synth's GETs at anything private the CI runner
 * reaches: an internal admin port, another cluster's nodes, a VPN peer. The probe therefore goes
 * only to an address the fleet allows for probing:
 *
 * - a **public** address (globally reachable: none of the IANA special-purpose ranges below), where a
 *   load balancer's address normally is;
 * - an address inside a range the fleet file declares (`gateway.probe.allowedCidrs`);
 * - an IP the fleet file names itself (`gateway.addresses`), or `gateway.probe.address` (which replaces
 *   the gateway addresses altogether).
 *
 * Every address also passed the gateway checks first (gateway-checks.ts): loopback, link-local and
 * the source's own ranges are never probed, whatever the fleet declares.
 */
import { isIP } from 'node:net';
import { canonicalIp, parseIpRange, rangeContains, type IpRange } from '../util/ip-range.js';
import { embeddedIPv4 } from './gateway-checks.js';

/** IANA's special-purpose ranges that are not globally reachable (RFC 6890 and its registries), named for messages. */
const NON_PUBLIC: readonly { cidr: string; what: string }[] = [
  { cidr: '0.0.0.0/8', what: 'an unspecified ("this network") address' },
  { cidr: '10.0.0.0/8', what: 'a private address (RFC 1918)' },
  { cidr: '100.64.0.0/10', what: 'a carrier-grade NAT address (RFC 6598)' },
  { cidr: '127.0.0.0/8', what: 'a loopback address' },
  { cidr: '169.254.0.0/16', what: 'a link-local address' },
  { cidr: '172.16.0.0/12', what: 'a private address (RFC 1918)' },
  { cidr: '192.0.0.0/24', what: 'an IETF protocol assignment address (RFC 6890)' },
  { cidr: '192.0.2.0/24', what: 'a documentation address (RFC 5737)' },
  { cidr: '192.88.99.0/24', what: 'a 6to4 relay anycast address (RFC 7526)' },
  { cidr: '192.168.0.0/16', what: 'a private address (RFC 1918)' },
  { cidr: '198.18.0.0/15', what: 'a benchmarking address (RFC 2544)' },
  { cidr: '198.51.100.0/24', what: 'a documentation address (RFC 5737)' },
  { cidr: '203.0.113.0/24', what: 'a documentation address (RFC 5737)' },
  { cidr: '224.0.0.0/4', what: 'a multicast address' },
  { cidr: '240.0.0.0/4', what: 'a reserved address (RFC 1112)' },
  { cidr: '::/96', what: 'an unspecified or IPv4-compatible address (RFC 4291)' },
  { cidr: '::1/128', what: 'the loopback address' },
  { cidr: '64:ff9b:1::/48', what: 'a local-use NAT64 address (RFC 8215)' },
  { cidr: '100::/64', what: 'a discard-only address (RFC 6666)' },
  { cidr: '2001::/23', what: 'an IETF protocol assignment address (RFC 2928)' },
  { cidr: '2001:db8::/32', what: 'a documentation address (RFC 3849)' },
  { cidr: '2002::/16', what: 'a 6to4 address (RFC 3056)' },
  { cidr: '3fff::/20', what: 'a documentation address (RFC 9637)' },
  { cidr: '5f00::/16', what: 'a segment routing address (RFC 9602)' },
  { cidr: 'fc00::/7', what: 'a unique local address (RFC 4193)' },
  { cidr: 'fe80::/10', what: 'a link-local address' },
  { cidr: 'fec0::/10', what: 'a site-local address (RFC 3879)' },
  { cidr: 'ff00::/8', what: 'a multicast address' },
];
const NON_PUBLIC_RANGES = NON_PUBLIC.map((r) => ({ range: parseIpRange(r.cidr), what: r.what }));

/** What kind of address that is not public `ip` is (`a private address (RFC 1918)`), or undefined when it is public. An IPv4-mapped or NAT64 address counts as the IPv4 address inside it. */
export function nonPublicAddress(ip: string): string | undefined {
  if (isIP(ip) === 0) return 'not an IP address';
  const embedded = embeddedIPv4(ip);
  const form = embedded ?? ip;
  const found = NON_PUBLIC_RANGES.find((r) => rangeContains(r.range, form));
  if (!found) return undefined;
  return embedded ? `${found.what} in IPv6 form (${embedded})` : found.what;
}

/** What the fleet allows the probe to reach (`gateway.probe.allowedCidrs`, `gateway.addresses`). */
export interface ProbePolicy {
  /** Ranges in which a gateway address may be probed although it is not public. @default none */
  readonly allowedCidrs?: readonly string[];
  /** Addresses the fleet file names for the gateway; its IP literals may be probed. @default none */
  readonly namedAddresses?: readonly string[];
}

/** The gateway addresses split by {@link ProbePolicy}: those probed, and each refused one with the reason. */
export interface ProbeAddresses {
  readonly allowed: readonly string[];
  readonly refused: readonly { readonly ip: string; readonly why: string }[];
}

/** Which of `ips` (resolved gateway addresses that passed the gateway checks) the probe may reach under `policy`. */
export function probeAddresses(ips: readonly string[], policy: ProbePolicy): ProbeAddresses {
  const ranges: IpRange[] = (policy.allowedCidrs ?? []).map((cidr) => parseIpRange(cidr));
  const named = new Set((policy.namedAddresses ?? []).filter((a) => isIP(a) !== 0).map(canonicalIp));
  const allowed: string[] = [];
  const refused: { ip: string; why: string }[] = [];
  for (const ip of ips) {
    const why = nonPublicAddress(ip);
    const inRange = (form: string): boolean => ranges.some((r) => rangeContains(r, form));
    if (why === undefined || named.has(canonicalIp(ip)) || inRange(ip) || inRange(embeddedIPv4(ip) ?? ip)) allowed.push(ip);
    else refused.push({ ip, why });
  }
  return { allowed, refused };
}
