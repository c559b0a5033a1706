/**
 * The observation snapshot: everything compile needs to know about the clusters, as plain,
 * sorted, JSON-serialisable data with no volatile field (no resourceVersion, uid or timestamp).
 * It is persisted as the lock file, so offline compiles reproduce a live run byte for byte.
 * Observe produces it, compile reads it: it lives here so that neither imports the other.
 *
 * Its types are inferred from its schema (snapshot-schema.ts), which documents every field: the
 * schema is the one description of the lock's observed part. They are read-only at every depth.
 */
import type { z } from 'zod';
import type {
  fleetSnapshotSchema,
  foreignServiceSchema,
  observedEndpointPortSchema,
  observedGatewayProbeSchema,
  observedGatewaySchema,
  observedPortSchema,
  observedServiceSchema,
  observedTrustRootSchema,
  pinnedRangeServiceSchema,
  sourceSnapshotSchema,
  staleSinceSchema,
  targetSnapshotSchema,
} from './snapshot-schema.js';
import { SNAPSHOT_FORMAT } from './snapshot-schema.js';

/** `T` with every field, array and record read-only, at every depth: what compile reads, it may not change. */
export type DeepReadonly<T> = T extends readonly (infer E)[] ? readonly DeepReadonly<E>[] : T extends object ? { readonly [K in keyof T]: DeepReadonly<T[K]> } : T;

/** Version of the snapshot format; bumped on incompatible changes (defined with the schema that checks it). */
export { SNAPSHOT_FORMAT };

/** First failed observation per cluster and role ({@link staleSinceSchema}). */
export type StaleSince = DeepReadonly<z.infer<typeof staleSinceSchema>>;
/** A Service port as the target defines it ({@link observedPortSchema}). */
export type ObservedPort = DeepReadonly<z.infer<typeof observedPortSchema>>;
/** A port of a Service's endpoints ({@link observedEndpointPortSchema}). */
export type ObservedEndpointPort = DeepReadonly<z.infer<typeof observedEndpointPortSchema>>;
/** An exported Service of a target cluster ({@link observedServiceSchema}). */
export type ObservedService = DeepReadonly<z.infer<typeof observedServiceSchema>>;
/** Where a target's gateway receives multicluster traffic ({@link observedGatewaySchema}). */
export type ObservedGateway = DeepReadonly<z.infer<typeof observedGatewaySchema>>;
/** What synth's probe of a target's gateway found ({@link observedGatewayProbeSchema}). */
export type ObservedGatewayProbe = DeepReadonly<z.infer<typeof observedGatewayProbeSchema>>;
/** One trust root of a cluster's Linkerd identity ({@link observedTrustRootSchema}). */
export type ObservedTrustRoot = DeepReadonly<z.infer<typeof observedTrustRootSchema>>;
/** What was observed of a cluster in its role as a link target ({@link targetSnapshotSchema}). */
export type TargetSnapshot = DeepReadonly<z.infer<typeof targetSnapshotSchema>>;
/** A Service of a source cluster whose name a mirror could take ({@link foreignServiceSchema}). */
export type ForeignService = DeepReadonly<z.infer<typeof foreignServiceSchema>>;
/** A live Service of a source whose ClusterIP lies in one of the source's pinned blocks ({@link pinnedRangeServiceSchema}). */
export type PinnedRangeService = DeepReadonly<z.infer<typeof pinnedRangeServiceSchema>>;
/** What was observed of a cluster in its role as a link source ({@link sourceSnapshotSchema}). */
export type SourceSnapshot = DeepReadonly<z.infer<typeof sourceSnapshotSchema>>;
/** The whole observation; maps are sorted by cluster name. Inferred from `fleetSnapshotSchema` (src/snapshot/snapshot-schema.ts), which documents each field. */
export type FleetSnapshot = DeepReadonly<z.infer<typeof fleetSnapshotSchema>>;

/** An empty snapshot: nothing known yet. */
export function emptySnapshot(): FleetSnapshot {
  return { format: SNAPSHOT_FORMAT, targets: {}, sources: {} };
}
