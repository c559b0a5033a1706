/** mirrorc as a library: the fleet model constructs, and the pipeline stages for custom jobs. */
export * from './model/index.js';
export { compileFleet, type CompileOptions, type CompileResult } from './compile/compile-fleet.js';
export { CompileError } from './compile/diagnostics.js';
export { SourceChart } from './compile/source-chart.js';
export { GatewayMirror, type GatewayMirrorProps } from './compile/modes/gateway/gateway-mirror.js';
export { RemoteDiscoveryMirror, type RemoteDiscoveryMirrorProps } from './compile/modes/remote-discovery/remote-discovery-mirror.js';
export { FederatedService, type FederatedServiceProps } from './compile/modes/federated/federated-service.js';
export type { SecretRequirement } from './compile/modes/remote-discovery/credentials-requirement.js';
export { mirrorServiceName } from './compile/names.js';
export { observeFleet, type FleetObservation, type ObserveOptions, type StaleCluster } from './observe/observe-fleet.js';
export { readLockFile, renderLockFile, LockFileError } from './observe/lock-file.js';
export type * from './snapshot/snapshot.js';
export { TARGET_OBSERVATION_RULES, SOURCE_OBSERVATION_RULES, observationRules } from './observe/observation-rbac.js';
export { renderChartFiles } from './emit/render-files.js';
export { runSynth, type SynthOptions, type SynthResult } from './pipeline/run-synth.js';
export type { RunReport, TargetReport, SourceReport } from './cli/report.js';
export type { FleetDefinition } from './cli/load-fleet.js';
export * from './delivery/index.js';
