/**
 * IPv4 and IPv6 CIDR arithmetic on bigints: enough to pin Service ClusterIPs inside a declared range
 * and to tell whether a live ClusterIP falls into it.
 */
import { isIPv4, isIPv6 } from 'node:net';

/** A parsed CIDR block. */
export interface IpRange {
  readonly family: 4 | 6;
  /** First address of the block (the network address). */
  readonly first: bigint;
  /** Number of addresses in the block. */
  readonly size: bigint;
  /** The CIDR as written, normalised (`10.96.0.0/24`). */
  readonly cidr: string;
}

/** Why `cidr` is not a usable CIDR block, or undefined. */
export function ipRangeProblem(cidr: string): string | undefined {
  const m = /^([^/]+)\/(\d{1,3})$/.exec(typeof cidr === 'string' ? cidr : '');
  if (!m) return `"${String(cidr)}" is not a CIDR block such as 10.96.0.0/24`;
  const [, ip, bits] = m as unknown as [string, string, string];
  const family = isIPv4(ip) ? 4 : isIPv6(ip) ? 6 : undefined;
  if (!family) return `"${cidr}": ${ip} is not an IP address`;
  const width = family === 4 ? 32 : 128;
  const prefix = Number(bits);
  if (prefix > width) return `"${cidr}": the prefix length ${prefix} is longer than ${width}`;
  const value = ipToBigInt(ip);
  const hostBits = BigInt(width - prefix);
  if (value & ((1n << hostBits) - 1n)) return `"${cidr}": ${ip} is not the first address of a /${prefix} block`;
  return undefined;
}

/**
 * Parses a CIDR block.
 * @throws Error when {@link ipRangeProblem} finds a problem (validate first)
 */
export function parseIpRange(cidr: string): IpRange {
  const problem = ipRangeProblem(cidr);
  if (problem) throw new Error(problem);
  const [ip, bits] = cidr.split('/') as [string, string];
  const family = isIPv4(ip) ? 4 : 6;
  const width = family === 4 ? 32 : 128;
  const first = ipToBigInt(ip);
  return { family, first, size: 1n << BigInt(width - Number(bits)), cidr: `${bigIntToIp(first, family)}/${bits}` };
}

/** Whether `ip` lies inside `range`. */
export function rangeContains(range: IpRange, ip: string): boolean {
  if ((range.family === 4 ? !isIPv4(ip) : !isIPv6(ip))) return false;
  const value = ipToBigInt(ip);
  return value >= range.first && value < range.first + range.size;
}

/** Whether every address of `inner` lies in `outer` (both of one family). */
export function rangeWithin(inner: IpRange, outer: IpRange): boolean {
  return inner.family === outer.family && inner.first >= outer.first && inner.first + inner.size <= outer.first + outer.size;
}

/** How far `ip` lies from the start of `range` (negative below it); undefined for an IP of the other family. */
export function offsetOf(range: IpRange, ip: string): bigint | undefined {
  if (range.family === 4 ? !isIPv4(ip) : !isIPv6(ip)) return undefined;
  return ipToBigInt(ip) - range.first;
}

/** The address at `offset` from the start of `range`. */
export function addressAt(range: IpRange, offset: bigint): string {
  return bigIntToIp(range.first + offset, range.family);
}

/** The canonical text form of an IP (IPv6 compressed, lower case), so equal addresses compare equal. */
export function canonicalIp(ip: string): string {
  // A dotted quad that isIPv4 accepts is canonical already (no leading zeros, each part at most 255).
  if (isIPv4(ip)) return ip;
  return bigIntToIp(ipToBigInt(ip), isIPv4(ip) ? 4 : 6);
}

function ipToBigInt(ip: string): bigint {
  if (isIPv4(ip)) {
    // Four decimal parts (isIPv4 checked them): read digit by digit, no array per address (a large
    // fleet's pinned ranges and static bands convert tens of thousands of them per run).
    let value = 0;
    let part = 0;
    for (let i = 0; i < ip.length; i++) {
      const c = ip.charCodeAt(i);
      if (c === 46) {
        value = value * 256 + part;
        part = 0;
      } else part = part * 10 + (c - 48);
    }
    return BigInt(value * 256 + part);
  }
  let text = ip.toLowerCase();
  // An embedded IPv4 tail (::ffff:1.2.3.4) becomes two hextets.
  const v4 = /(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (v4) {
    const n = ipToBigInt(v4[1]!);
    text = text.slice(0, -v4[1]!.length) + `${(n >> 16n).toString(16)}:${(n & 0xffffn).toString(16)}`;
  }
  const [head, tail] = text.includes('::') ? (text.split('::') as [string, string]) : [text, undefined];
  const headParts = head ? head.split(':') : [];
  const tailParts = tail ? tail.split(':') : [];
  const missing = 8 - headParts.length - tailParts.length;
  const parts = tail === undefined ? headParts : [...headParts, ...Array(missing).fill('0'), ...tailParts];
  return parts.reduce((acc, part) => (acc << 16n) | BigInt(parseInt(part, 16)), 0n);
}

function bigIntToIp(value: bigint, family: 4 | 6): string {
  if (family === 4) return [24n, 16n, 8n, 0n].map((s) => String((value >> s) & 0xffn)).join('.');
  const parts = [112n, 96n, 80n, 64n, 48n, 32n, 16n, 0n].map((s) => ((value >> s) & 0xffffn).toString(16));
  // Compress the longest run of zero hextets (RFC 5952), the first one on a tie.
  let bestStart = -1;
  let bestLength = 0;
  for (let i = 0; i < 8; ) {
    if (parts[i] !== '0') { i++; continue; }
    let j = i;
    while (j < 8 && parts[j] === '0') j++;
    if (j - i > bestLength && j - i > 1) { bestStart = i; bestLength = j - i; }
    i = j;
  }
  if (bestStart < 0) return parts.join(':');
  return `${parts.slice(0, bestStart).join(':')}::${parts.slice(bestStart + bestLength).join(':')}`;
}
