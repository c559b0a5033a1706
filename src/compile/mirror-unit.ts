/**
 * The seam between selection and the mirroring modes: selection decides *which* target services
 * a source mirrors; each mode turns one into a {@link MirrorUnit}; compile checks every unit's
 * names (length, collisions) the same way, whatever its mode, and then renders it.
 */
import type { KubeObject } from './kube-objects.js';
import type { ClusterSpec, LinkSpec } from '../model/fleet-spec.js';
import type { ObservedService, TargetSnapshot } from '../snapshot/snapshot.js';
import type { SlicesBy } from './mirror-slices.js';

/** A target service that a link mirrors into its source. */
export interface MirrorRequest {
  readonly link: LinkSpec;
  readonly target: ClusterSpec;
  readonly targetSnapshot: TargetSnapshot;
  readonly service: ObservedService;
  /** Where a renamed or relocated export is mirrored (gateway mode); absent: `<svc>-<target>` in the service's namespace. */
  readonly placement?: MirrorPlacement;
  /** Whether the current output holds a mirror of origin `target/namespace/service` (a contested generic gateway port stays with it). @default none does */
  readonly established?: (origin: string) => boolean;
  /** Who makes the mirror's EndpointSlices (src/compile/mirror-slices.ts). @default 'mirrorc' */
  readonly slicesBy?: SlicesBy;
}

/** The final namespace and name of a renamed or relocated mirror. */
export interface MirrorPlacement {
  readonly namespace: string;
  /** The final mirror Service name, `<name>-<target>`. */
  readonly name: string;
}

/** The objects one mirrored service becomes in one source cluster. */
export interface MirrorUnit {
  /** The source cluster. */
  readonly source: string;
  /**
   * The one target cluster the unit mirrors from, which decides its delivery unit
   * (src/delivery/delivery-units.ts); absent for units that combine several clusters
   * (`-global`, federated, MCS ServiceImport, the source's own per-pod Services).
   * @default -
   */
  readonly target?: string;
  /** Namespace of every object of the unit. */
  readonly namespace: string;
  /** Where it comes from, for messages: `paris/default/bar`. */
  readonly origin: string;
  /** The mode, for messages: `gateway`. */
  readonly mode: string;
  /** Names of the Services the unit writes (checked for length and collisions). */
  readonly serviceNames: readonly string[];
  /**
   * The link target whose Linkerd-written mirrors this unit may take over in place (its link sets
   * `adoptLinkerdMirrors`): a Service of the unit's name labelled by Linkerd's controller with that
   * `cluster-name` is then not a foreign name but the unit's own. @default none adopted
   */
  readonly adoptsLinkerdMirrorsOf?: string | undefined;
  /** Those of its Services (by name) that need a ClusterIP pinned at compile time. @default none */
  readonly pinnedServiceNames?: readonly string[];
  /** The unit's objects, as written (src/compile/kube-objects.ts), in a fixed order. */
  objects(context: RenderContext): readonly KubeObject[];
}

/** What a unit can look up when it renders, once every unit of its source is planned. */
export interface RenderContext {
  /** The ClusterIP pinned for Service `namespace/name` of this source (one the unit asked for). */
  pinnedIP(namespace: string, name: string): string;
}
