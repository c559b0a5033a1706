/**
 * mirrorc as a library (`import ... from 'mirrorc'`): the fleet model constructs a `clusters/fleet.ts`
 * uses, {@link synthFleet} (a fleet and its lock → the same files as `mirrorc synth --offline`), and
 * the types of the lock. The command line (`mirrorc synth|plan|check|observe|init`) is a shell over
 * these and is not exported. See README "Library API".
 */
// The fleet model: Fleet, Cluster, Link, ExplicitExport, GitOpsDelivery, their props and FleetSpec.
export * from './model/index.js';
// The entry: the files of one synth, byte for byte those the CLI writes.
export { synthFleet, type SynthFleetProps, type FleetFiles } from './pipeline/synth-fleet.js';
export type { FleetDefinition } from './load/load-fleet.js';
// The lock: read, render, and its types.
export { readLockFile, renderLockFile, LockFileError } from './observe/lock-file.js';
export { emptySnapshot, SNAPSHOT_FORMAT } from './snapshot/snapshot.js';
export type * from './snapshot/snapshot.js';
// Live observation (the step before synthFleet when not compiling from the lock), and the read access it needs.
export { observeFleet, type FleetObservation, type ObserveOptions, type StaleCluster } from './observe/observe-fleet.js';
export { TARGET_OBSERVATION_RULES, SOURCE_OBSERVATION_RULES, observationRules } from './observe/observation-rbac.js';
// Lower level: the compiled charts only (no kustomization.yaml, no reader RBAC; synthFleet adds them).
export { compileFleet, type CompileOptions, type CompileResult } from './compile/compile-fleet.js';
export { CompileError } from './compile/diagnostics.js';
export { SourceChart } from './compile/source-chart.js';
export { GatewayMirror, type GatewayMirrorProps } from './compile/modes/gateway/gateway-mirror.js';
export { RemoteDiscoveryMirror, type RemoteDiscoveryMirrorProps } from './compile/modes/remote-discovery/remote-discovery-mirror.js';
export { FederatedService, type FederatedServiceProps } from './compile/modes/federated/federated-service.js';
export type { SecretRequirement } from './compile/modes/remote-discovery/credentials-requirement.js';
export { mirrorServiceName } from './compile/names.js';
// GitOps delivery manifests (Flux Kustomizations, Argo CD ApplicationSet and argocd-cm change) and the reader RBAC chart.
export * from './delivery/index.js';
