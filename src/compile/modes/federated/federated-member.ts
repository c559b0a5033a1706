/** A member of a federated Service, and the precedence that orders the members. */
import type { LinkSpec } from '../../../model/fleet-spec.js';
import type { ObservedService } from '../../../snapshot/snapshot.js';

/** One Service that joins a federated Service of a source cluster. */
export interface FederatedMember {
  /** The cluster the Service lives in: the source itself for the local member, else a link target. */
  readonly cluster: string;
  /** The link it joins through; undefined for the source's own (local) member. */
  readonly link?: LinkSpec;
  readonly service: ObservedService;
}

/** `svc@cluster`, as Linkerd's `multicluster.linkerd.io/remote-discovery` annotation names a member. */
export function memberId(member: FederatedMember): string {
  return `${member.service.name}@${member.cluster}`;
}

/**
 * The documented precedence, first wins: the source's own member, then the targets in cluster-name
 * order (the order of the fleet's links of that source). Linkerd takes the local member, else the
 * member whose Link is oldest; link age is not a compile input, and cluster-name order does not
 * change when someone reorders the fleet definition.
 */
export function byPrecedence(a: FederatedMember, b: FederatedMember): number {
  if ((a.link === undefined) !== (b.link === undefined)) return a.link === undefined ? -1 : 1;
  return a.cluster < b.cluster ? -1 : a.cluster > b.cluster ? 1 : 0;
}
