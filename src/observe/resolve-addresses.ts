/** Gateway host names become IPs at observation time, so compile sees only IPs (Endpoints take no host names). */
import { lookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import { compareStrings } from '../util/order.js';

/** The outcome of resolving a list of addresses. */
export interface ResolvedAddresses {
  /** Unique IPs, sorted as strings (as Linkerd sorts them). */
  readonly ips: string[];
  /** Entries that did not resolve, with the resolver's reason. */
  readonly failures: string[];
}

/** Resolves IPs and host names to IPs (A and AAAA); partial failures are reported, not fatal. */
export async function resolveAddresses(entries: readonly string[]): Promise<ResolvedAddresses> {
  const ips = new Set<string>();
  const failures: string[] = [];
  for (const entry of entries) {
    const trimmed = entry.trim();
    if (isIP(trimmed)) {
      ips.add(trimmed);
      continue;
    }
    try {
      for (const { address } of await lookup(trimmed, { all: true, verbatim: true })) ips.add(address);
    } catch (e) {
      failures.push(`${trimmed}: ${(e as NodeJS.ErrnoException).code ?? String(e)}`);
    }
  }
  return { ips: [...ips].sort(compareStrings), failures };
}
