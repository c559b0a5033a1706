/** The options and the result of a synth run (the CLI's `synth`, `plan`, `check` and `observe`). */
import type { Diagnostic } from '../diagnostics/diagnostic.js';
import type { ClusterChanges } from '../emit/diff-trees.js';
import type { FsHost } from '../emit/fs-host.js';
import type { FleetDefinition } from '../load/load-fleet.js';
import type { StaleCluster } from '../observe/observe-fleet.js';
import type { RunReport } from '../report/report.js';
import type { Verbosity } from '../report/run-log.js';
import type { SynthStage } from './stage-timer.js';

/** What a run does: `write` replaces dist/ and the lock; `plan` reports; `check` fails on a difference; `observe` writes only the lock. */
export type SynthMode = 'write' | 'plan' | 'check' | 'observe';

/** Options of `runSynth` (src/pipeline/run-synth.ts). */
export interface SynthOptions {
  /** Module whose default export defines the fleet. Either this or `define`. */
  readonly fleetFile?: string;
  /** The fleet definition itself (tests, embedding). */
  readonly define?: FleetDefinition;
  /** The lock file. @default `<fleetFile without .ts>.lock.json` */
  readonly lockFile?: string;
  /** Output directory. @default 'dist' */
  readonly outDir?: string;
  /** Directory of the GitOps delivery manifests (only written when the fleet has a GitOpsDelivery). @default `delivery` beside outDir */
  readonly deliveryDir?: string;
  /** Compile from the lock alone, contacting no cluster. @default false */
  readonly offline?: boolean;
  /** Fail (and write nothing) when any cluster cannot be observed, or when one mirror cannot be compiled (instead of skipping it). @default false */
  readonly strict?: boolean;
  /** Accept removals the removal guard would stop, and targets that suddenly list no exports. @default false */
  readonly confirmRemovals?: boolean;
  /** Start from an empty lock although the output directory has content (a new fleet). @default false */
  readonly newFleet?: boolean;
  /** Kubeconfig for clusters whose access names none. @default `$KUBECONFIG` or `~/.kube/config` */
  readonly kubeconfig?: string;
  /** Client-side timeout of one API request. @default 10000 */
  readonly requestTimeoutMs?: number;
  /** Items per page when listing (small values exercise pagination). @default 500 */
  readonly pageSize?: number;
  /** Above this many services of a target, its EndpointSlices are read in one list instead of one per service (small values exercise that path). @default 32 */
  readonly perServiceSliceLists?: number;
  /**
   * `write` replaces dist/ and the lock; `plan` only reports what would change; `check` fails when
   * anything would; `observe` observes and compiles but writes only the lock (the first step of a sharded run). @default 'write'
   */
  readonly mode?: SynthMode;
  /** Compile only these source clusters and leave every other folder of `outDir` as it is (sharding); needs `offline`. @default every source */
  readonly sources?: readonly string[];
  /** Write the JSON run report to this file, whatever the outcome. @default no report */
  readonly reportFile?: string;
  /** How much goes to `log`: errors and warnings only, plus progress and summary, or plus fields and timings. @default 'normal' */
  readonly verbosity?: Verbosity;
  /** The clock, read only to record when a cluster became stale and for verbose timings. @default the system clock */
  readonly now?: () => Date;
  /** Where progress and warnings go. @default stderr */
  readonly log?: (line: string) => void;
  /** Where a plan or check report goes. @default stdout */
  readonly print?: (line: string) => void;
  /** synth/observe: how long to wait for another run holding the output's run lock, in seconds; 0 refuses at once (exit 6). @default 60 */
  readonly waitSeconds?: number;
  /**
   * The most objects of one delivery unit (docs/delivery-units.md). Smaller units only cost more
   * Kustomizations; plan/check must be given the same value as synth.
   * @default 500
   */
  readonly maxUnitObjects?: number;
  /** Told how long each stage took, in milliseconds (the benchmark's stage times). @default none */
  readonly onStage?: (stage: SynthStage, ms: number) => void;
  /**
   * Fail with exit 9 (after writing the stale-but-safe output) when a cluster has been stale for
   * longer than this duration (`24h`, `90m`, `1d12h`); `off` turns the fleet's StalenessLimit off.
   * Only for runs that observe (not offline). @default the fleet's StalenessLimit, else none
   */
  readonly maxStale?: string;
  /**
   * The file system of the write path: `dist/`, `delivery/`, the lock, the transaction folder, the
   * run lock's holder file (tests wrap it to inject faults: test/fixtures/faulting-host.ts).
   * @default the real one (node:fs)
   */
  readonly host?: FsHost;
  /** Environment read for `GITHUB_STEP_SUMMARY`, where the job summary is appended (the CLI passes its own). @default none: no job summary */
  readonly env?: NodeJS.ProcessEnv;
}

/** What a run did. */
export interface SynthResult {
  readonly exitCode: number;
  readonly changes: readonly ClusterChanges[];
  /** The warnings' messages (each the `message` of one of {@link diagnostics}). */
  readonly warnings: readonly string[];
  /** The warnings as coded data (docs/diagnostics.md). */
  readonly diagnostics: readonly Diagnostic[];
  readonly stale: readonly StaleCluster[];
  /** The error message when the run failed. */
  readonly error?: string;
  /** The machine-readable report (also written to `reportFile` when given). */
  readonly report: RunReport;
}
