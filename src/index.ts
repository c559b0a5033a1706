/**
 * mirrorc as a library (`import ... from 'mirrorc'`): the fleet model constructs a
 * `clusters/fleet.ts` uses and their props, {@link synthFleet} (a fleet and its lock → the same
 * files as `mirrorc synth --offline`), the lock, the types of the run report with its coded
 * diagnostics, and the construct of each mirroring mode. Nothing else is public: the command line
 * (`mirrorc synth|plan|check|observe|init|access`) and the pipeline stages are not exported, and
 * the package's `exports` map has this entry only. The public API is recorded in
 * api/mirrorc.api.md (`npm run api` regenerates it; a unit test fails when it changes unannounced).
 *
 * @packageDocumentation
 */
// The fleet model: the constructs of a fleet definition and their props.
export { Fleet, FleetDefinitionError, type FleetDefinition } from './model/fleet.js';
export { Cluster, type ClusterProps, type ClusterAccess, type GatewayProps, type GatewayProbeProps, type GatewayKind } from './model/cluster.js';
export { Link, type LinkProps, type NamespaceFilter, type RemoteDiscoveryCredentials } from './model/link.js';
export type { LabelSelector, LabelSelectorRequirement } from './model/label-selector.js';
export { ExplicitExport, type ExplicitExportProps, type MirrorAs } from './model/explicit-export.js';
export { GitOpsDelivery, type GitOpsDeliveryProps, type ArgoCdDeliveryProps, type FluxDeliveryProps } from './model/gitops-delivery.js';
export { StalenessLimit, type StalenessLimitProps } from './model/staleness-limit.js';
export type { ObservationBudgetProps } from './model/observation-budget.js';
// The entry: the files of one synth, byte for byte those the CLI writes.
export { synthFleet, type SynthFleetProps, type FleetFiles } from './pipeline/synth-fleet.js';
// The lock: read, render, start empty.
export { readLockFile, renderLockFile, LockFileError } from './observe/lock-file.js';
export { emptySnapshot, type FleetSnapshot } from './snapshot/snapshot.js';
// The run report (`--report`) and its coded diagnostics (docs/diagnostics.md).
export type { RunReport, TargetReport, SourceReport, ClusterState, ReportCommand } from './report/report.js';
export type { Diagnostic, DiagnosticSubject } from './diagnostics/diagnostic.js';
export type { Severity } from './diagnostics/diagnostic-codes.js';
export { CompileError } from './compile/diagnostics.js';
// Every error a user can cause carries its documented exit code (docs/synth.md).
export { MirrorcError, InvalidInputError } from './errors/mirrorc-error.js';
// The construct of each mirroring mode (what synthFleet composes; docs per mode).
export { GatewayMirror, type GatewayMirrorProps } from './compile/modes/gateway/gateway-mirror.js';
export { RemoteDiscoveryMirror, type RemoteDiscoveryMirrorProps } from './compile/modes/remote-discovery/remote-discovery-mirror.js';
export { HeadlessRootMirror, type HeadlessRootMirrorProps } from './compile/modes/headless/headless-mirror.js';
export type { SlicesBy } from './compile/mirror-slices.js';
export { FederatedService, type FederatedServiceProps } from './compile/modes/federated/federated-service.js';
export { McsImport, type McsImportProps } from './compile/modes/mcs/mcs-import.js';
export { GlobalService, type GlobalServiceProps } from './compile/modes/global/global-service.js';
