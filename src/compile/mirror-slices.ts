/**
 * Who makes a Linkerd-mode mirror's EndpointSlices, and the objects that follow from it.
 *
 * - **mirrorc** (the default): the Endpoints say `endpointslice.kubernetes.io/skip-mirror`, and
 *   mirrorc writes the slices itself.
 * - **Kubernetes** (Linkerd's form, links with `adoptLinkerdMirrors`): the Endpoints are left for
 *   Kubernetes' EndpointSlice mirroring controller, which keeps one slice of them, exactly as under
 *   Linkerd's service-mirror controller; mirrorc writes its slices **retired** (same names, tied to
 *   no Service, no endpoints), so that a slice it wrote before is updated away, never deleted.
 *
 * Why: Linkerd's destination keys an address without `targetRef` as `<service>-<ip>-<port>[-<hostname>]`
 * (`port_publisher.go`, `endpointSliceToIDs`), the same for Kubernetes' slice and mirrorc's, and
 * removes every ID of a deleted slice even while another slice lists it (`deleteEndpointSlice`): two
 * slices of the same addresses can live side by side, but deleting either empties the mirror until
 * the destination's informer resyncs (10 minutes). A takeover in Linkerd's form deletes no slice; a
 * retired slice's update and deletion go to no Service (RETIRED_SERVICE_NAME).
 */
import { ENDPOINTSLICE_MANAGED_BY_LABEL, SERVICE_NAME_LABEL, SKIP_MIRROR_LABEL } from '../contract/kubernetes.js';
import { COMPILER_NAME, ENDPOINT_SLICES_LABEL, KUBERNETES_SLICES_VALUE, RETIRED_FROM_LABEL, RETIRED_SERVICE_NAME } from '../contract/mirrorc.js';
import type { SourceSnapshot } from '../snapshot/snapshot.js';
import { endpointSliceName } from './names.js';
import { endpointSliceObject, objectMeta, sortedMap, type EndpointPortJson, type KubeObject, type SliceEndpointJson } from './kube-objects.js';

/** Who makes a mirror's EndpointSlices; see the file comment. */
export type SlicesBy = 'mirrorc' | 'kubernetes';

/** A mirror's labels (Service, Endpoints, slices), marked when Kubernetes makes its slices, so that observation can tell. */
export function mirrorLabels(labels: Readonly<Record<string, string>>, by: SlicesBy): Record<string, string> {
  return sortedMap(by === 'kubernetes' ? { ...labels, [ENDPOINT_SLICES_LABEL]: KUBERNETES_SLICES_VALUE } : labels);
}

/** The labels of a mirror's Endpoints: its labels, plus `skip-mirror` when mirrorc writes the slices. */
export function mirrorEndpointsLabels(labels: Readonly<Record<string, string>>, by: SlicesBy): Record<string, string> {
  return by === 'kubernetes' ? sortedMap(labels) : sortedMap({ ...labels, [SKIP_MIRROR_LABEL]: 'true' });
}

/** What one slice of a mirror holds: its address family, endpoints and ports. */
export interface MirrorSlice {
  readonly addressType: 'IPv4' | 'IPv6';
  readonly endpoints: readonly SliceEndpointJson[];
  readonly ports: readonly EndpointPortJson[];
}

/** Identity of the mirror whose slices these are. */
export interface MirrorSliceOwner {
  readonly namespace: string;
  /** The mirror Service's name. */
  readonly name: string;
  /** The mirror's labels (every object of a mirror carries them). */
  readonly labels: Readonly<Record<string, string>>;
  /** The annotations Linkerd's proxy reads on a live slice (identity, authority). */
  readonly annotations: Readonly<Record<string, string>>;
}

/**
 * The EndpointSlice objects of a mirror: `slices` as written by mirrorc, or, when Kubernetes makes
 * them, the same names retired (tied to RETIRED_SERVICE_NAME, no endpoints, no ports).
 */
export function mirrorSliceObjects(owner: MirrorSliceOwner, slices: readonly MirrorSlice[], by: SlicesBy): KubeObject[] {
  const { namespace, name } = owner;
  if (by === 'kubernetes') {
    const labels = sortedMap({ ...owner.labels, [SERVICE_NAME_LABEL]: RETIRED_SERVICE_NAME, [ENDPOINTSLICE_MANAGED_BY_LABEL]: COMPILER_NAME, [RETIRED_FROM_LABEL]: name });
    return slices.map((s) => endpointSliceObject(objectMeta(endpointSliceName(name, s.addressType), namespace, labels, {}), s.addressType, [], []));
  }
  const labels = sortedMap({ ...owner.labels, [SERVICE_NAME_LABEL]: name, [ENDPOINTSLICE_MANAGED_BY_LABEL]: COMPILER_NAME });
  return slices.map((s) => endpointSliceObject(objectMeta(endpointSliceName(name, s.addressType), namespace, labels, owner.annotations), s.addressType, s.endpoints, s.ports));
}

/**
 * Who makes the slices of a link's Linkerd-mode mirrors: Kubernetes (Linkerd's form) for a link that
 * adopts Linkerd's mirrors, and for a link of which the source already holds a mirror in that form
 * (`kubernetesSlicedTargets`, observed): leaving it would make Kubernetes delete the slice Linkerd's
 * destination reads while mirrorc's carries the same endpoint IDs, which empties the mirror there for
 * up to ten minutes. So the form is kept once taken (`sticky`: the link itself no longer asks for it).
 */
export function linkSlicesBy(link: { readonly target: string; readonly adoptLinkerdMirrors?: boolean | undefined }, source: SourceSnapshot | undefined): { readonly by: SlicesBy; readonly sticky: boolean } {
  if (link.adoptLinkerdMirrors === true) return { by: 'kubernetes', sticky: false };
  const held = source?.kubernetesSlicedTargets?.includes(link.target) === true;
  return { by: held ? 'kubernetes' : 'mirrorc', sticky: held };
}
