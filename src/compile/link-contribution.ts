/**
 * What one link's mirrors give the source-wide steps of a plan (docs/incremental-planning.md,
 * "Planning the changed links alone"): a digest of everything name isolation, the pinned IPs, the
 * `-global` Services, the credentials requirements, the base unit's Namespaces and the federated
 * Services read from the link. When every changed link of a partially planned source gives the
 * digest its record holds, the source-wide outcome is the recorded one, and only those links are
 * planned.
 *
 * Those steps read, of each planned mirror: its mode, namespace, origin, Service names and per-pod
 * names, and of a headless mirror that joins `-global`, its pod set; of the link: the Namespaces it
 * creates and its target's federated candidates. The digest takes all of them.
 */
import { createHash } from 'node:crypto';
import type { LinkSpec } from '../model/fleet-spec.js';
import type { TargetSnapshot } from '../snapshot/snapshot.js';
import { canonicalJson } from '../util/canonical-json.js';
import { compareStrings } from '../util/order.js';
import type { HeadlessUnit } from './modes/headless/plan-headless.js';
import { federatedCandidates } from './modes/federated/plan-federated.js';
import type { MirrorRequest, MirrorUnit } from './mirror-unit.js';
import type { PlanMemo } from './plan-memo.js';

/** What one link gave the source-wide steps of its source's plan. */
export interface LinkGiven {
  /** Its planned units. */
  readonly units: readonly MirrorUnit[];
  /** The Namespaces it creates. */
  readonly namespaces: ReadonlySet<string>;
  /** Its MCS requests. */
  readonly requests: readonly MirrorRequest[];
}

/** The digest of what `link` gave (`given`). */
export function linkContribution(link: LinkSpec, targetSnapshot: TargetSnapshot | undefined, given: LinkGiven, memo: PlanMemo): string {
  const { units, namespaces, requests } = given;
  const hash = createHash('sha256');
  // One line per mirror (hashed in large pieces: an update per mirror costs more than the line).
  let lines = '';
  for (const unit of units) {
    // NUL and newline appear in no name, mode or origin: the fields cannot run into each other.
    lines += `${unit.mode}\0${unit.namespace}\0${unit.origin}\0${unit.serviceNames.join('\0')}\0\0${(unit.pinnedServiceNames ?? []).join('\0')}\0\0`;
    const headless = unit as Partial<HeadlessUnit>;
    if (unit.mode === 'headless' && headless.joinsGlobal) lines += canonicalJson(headless.podSet);
    lines += '\n';
    if (lines.length > 65536) {
      hash.update(lines);
      lines = '';
    }
  }
  hash.update(lines);
  hash.update(`namespaces\0${[...namespaces].sort(compareStrings).join('\0')}\n`);
  hash.update(`mcs\0${requests.map((r) => `${r.service.namespace}/${r.service.name}`).join('\0')}\n`);
  hash.update(`federated\0${targetSnapshot ? federatedDigest(link, targetSnapshot, memo) : 'unobserved'}\n`);
  return hash.digest('hex');
}

/** The digest of the federated candidates of `link` in its target (worked out once per target and link policy). */
function federatedDigest(link: LinkSpec, targetSnapshot: TargetSnapshot, memo: PlanMemo): string {
  return memo.shared(targetSnapshot, `federated digest\n${JSON.stringify([link.namespaces, link.federatedServiceSelector])}`, () =>
    createHash('sha256').update(canonicalJson(federatedCandidates(link, targetSnapshot, memo))).digest('hex'),
  );
}
