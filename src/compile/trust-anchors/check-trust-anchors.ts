/**
 * The shared trust-anchor check: Linkerd proxies of a link's source verify the target's gateway and
 * pods against their own trust roots, so linked clusters must share at least one root. A link whose
 * clusters share none would only fail at runtime (TLS errors); it fails here instead, alone. Pure:
 * the time for the expiry warning is an input.
 */
import type { ClusterSpec, FleetSpec, LinkSpec } from '../../model/fleet-spec.js';
import type { FleetSnapshot, ObservedTrustRoot } from '../../snapshot/snapshot.js';
import { compareStrings } from '../../util/order.js';
import type { Diagnostics } from '../diagnostics.js';
import { Diag } from '../../diagnostics/diagnostic-codes.js';

const DAY_MS = 24 * 60 * 60 * 1000;

/** What the check decided. */
export interface TrustAnchorCheck {
  /** Paths of the links that failed: their mirrors are not compiled (an error instead, with `strict`). */
  readonly failedLinks: ReadonlySet<string>;
  /** One `plan` row per link: the shared roots, the failure, or why it was not checked. */
  readonly planRows: readonly string[];
}

/** The trust roots observed for `cluster` in either role; undefined when none were found. */
export function trustRootsOf(snapshot: FleetSnapshot, cluster: string): readonly ObservedTrustRoot[] | undefined {
  return snapshot.targets[cluster]?.trustRoots ?? snapshot.sources[cluster]?.trustRoots;
}

/** `"CN=root.linkerd.cluster.local" (SHA-256 8A:1F:…:C2, expires 2027-01-31)`. */
export function describeRoot(root: ObservedTrustRoot): string {
  const fp = root.fingerprint;
  return `"${root.subject}" (SHA-256 ${fp.slice(0, 11)}…${fp.slice(-5)}, expires ${root.notAfter.slice(0, 10)})`;
}

/**
 * Checks every link whose two clusters both have observed trust roots, and warns of roots expiring
 * within each cluster's `trustRootExpiryWarningDays` of `now` (skipped without `now`).
 */
export function checkTrustAnchors(fleet: FleetSpec, snapshot: FleetSnapshot, options: { readonly strict: boolean; readonly now?: Date }, diagnostics: Diagnostics): TrustAnchorCheck {
  const failedLinks = new Set<string>();
  const planRows: string[] = [];
  for (const link of fleet.links) {
    const row = checkLink(link, snapshot, options.strict, diagnostics);
    planRows.push(`trust anchors: link ${link.path} (${link.source} ← ${link.target}): ${row.text}`);
    if (row.failed) failedLinks.add(link.path);
  }
  if (options.now) {
    const linked = new Set(fleet.links.flatMap((l) => [l.source, l.target]));
    for (const cluster of fleet.clusters.filter((c) => linked.has(c.name))) expiryWarnings(cluster, snapshot, options.now, diagnostics);
  }
  return { failedLinks, planRows };
}

function checkLink(link: LinkSpec, snapshot: FleetSnapshot, strict: boolean, diagnostics: Diagnostics): { text: string; failed: boolean } {
  const sourceRoots = trustRootsOf(snapshot, link.source);
  const targetRoots = trustRootsOf(snapshot, link.target);
  const unknown = [[link.source, sourceRoots], [link.target, targetRoots]].filter(([, r]) => r === undefined).map(([c]) => `"${c as string}"`);
  if (unknown.length > 0) return { text: `not checked: no trust roots observed in ${unknown.join(' and ')}`, failed: false };
  const targetPrints = new Set(targetRoots!.map((r) => r.fingerprint));
  const shared = sourceRoots!.filter((r) => targetPrints.has(r.fingerprint));
  if (shared.length > 0) return { text: `shared ${shared.map(describeRoot).join(', ')}`, failed: false };
  const message =
    `link ${link.path}: "${link.source}" and "${link.target}" share no Linkerd trust root, so the proxies of "${link.source}" cannot verify "${link.target}" (its mirrors would fail with TLS errors); ` +
    `"${link.source}" trusts ${sourceRoots!.map(describeRoot).join(', ')}; "${link.target}" trusts ${targetRoots!.map(describeRoot).join(', ')}; ` +
    `issue both clusters' identity from a common trust anchor (during a rotation, put both roots in each bundle)`;
  if (strict) diagnostics.error(Diag.NO_SHARED_TRUST_ROOT, message, { cluster: link.source, target: link.target });
  else diagnostics.warn(Diag.NO_SHARED_TRUST_ROOT, `${message}; the mirrors of this link are not compiled, the other links are updated (--strict makes this an error)`, { cluster: link.source, target: link.target });
  return { text: 'FAILED: no shared root', failed: true };
}

function expiryWarnings(cluster: ClusterSpec, snapshot: FleetSnapshot, now: Date, diagnostics: Diagnostics): void {
  const days = cluster.trustRootExpiryWarningDays;
  for (const root of [...(trustRootsOf(snapshot, cluster.name) ?? [])].sort((a, b) => compareStrings(a.notAfter, b.notAfter))) {
    const left = Date.parse(root.notAfter) - now.getTime();
    if (left > days * DAY_MS) continue;
    const when = left <= 0 ? `expired on ${root.notAfter}` : `expires on ${root.notAfter}, within ${days} days`;
    diagnostics.warn(Diag.TRUST_ROOT_EXPIRING, `cluster "${cluster.name}": Linkerd trust root ${describeRoot(root)} ${when}; add its successor to the trust bundle of every linked cluster before then (trustRootExpiryWarningDays sets this window)`, { cluster: cluster.name });
  }
}
