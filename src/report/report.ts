/**
 * The machine-readable report of a run (`--report <file>`): per target and source cluster whether
 * it was reached and since when it is stale (a target the removal guard held back: why), per source the files added, changed and removed, the
 * warnings, every finding as coded data (`diagnostics`, docs/diagnostics.md) and the exit code. Canonical JSON with no clock reading of its own, so the same inputs
 * give the same report (`staleSince` comes from the lock). The format is documented in the README.
 */
import { lstatSync, writeFileSync, writeSync } from 'node:fs';
import type { ClusterChanges } from '../emit/diff-trees.js';
import type { FileTree } from '../emit/render-files.js';
import { writeFileAtomically } from '../emit/durable-fs.js';
import { heldBackReason, type HeldBackTarget } from '../guard/hold-back-targets.js';
import { suspectReason, type SuspectTarget } from '../guard/suspect-targets.js';
import type { FleetSpec } from '../model/fleet-spec.js';
import type { StaleCluster } from '../observe/observe-fleet.js';
import type { FleetSnapshot } from '../snapshot/snapshot.js';
import { canonicalJson } from '../util/canonical-json.js';
import { printableJson } from '../util/printable-text.js';
import { sortedUnique } from '../util/order.js';
import { ownVersion } from '../util/own-version.js';
import { redactServerAddresses } from '../util/redact.js';
import type { RunLog } from './run-log.js';
import type { DiagnosticDefinition } from '../diagnostics/diagnostic-codes.js';
import type { Diagnostic } from '../diagnostics/diagnostic.js';
import { runErrorDiagnostic, staleDiagnostics } from '../diagnostics/run-diagnostics.js';

/** Version of the report format; bumped on incompatible changes. */
export const REPORT_FORMAT = 1;

/** The commands that produce a report. */
export type ReportCommand = 'synth' | 'plan' | 'check' | 'observe';

/** How one cluster fared in one role this run. */
export interface ClusterState {
  /** The cluster's name. */
  readonly cluster: string;
  /** Whether this run tried to observe it (false when offline). */
  readonly observed: boolean;
  /** Whether it answered; null when not observed this run. */
  readonly reachable: boolean | null;
  /** Whether its state in the lock is older than its last failed observation. */
  readonly stale: boolean;
  /** When it was first found unobservable (from the lock), or null. */
  readonly staleSince: string | null;
  /** Why this run could not observe it, or null. */
  readonly error: string | null;
}

/** A target cluster in the report. */
export interface TargetReport extends ClusterState {
  /** Exported services in the state compiled from; null when it was never observed. */
  readonly exportedServices: number | null;
  /**
   * Why the removal guard held it back this run: it answered, but its last observation was kept and
   * it is stale (`stale` is true and `staleSince` runs). Present only for a held-back target.
   */
  readonly heldBack?: string;
}

/** A source cluster in the report: what happens (or would happen) to `<out>/<cluster>/`. */
export interface SourceReport extends ClusterState {
  /** Whether it was compiled (false: outside the shard, or the run failed before). */
  readonly compiled: boolean;
  /** Files added under `<out>/<cluster>/`, relative to it. */
  readonly added: readonly string[];
  /** Files whose content changed. */
  readonly changed: readonly string[];
  /** Files removed. */
  readonly removed: readonly string[];
  /** Files compiled exactly as they are on disk. */
  readonly unchanged: number;
}

/** The whole report. */
export interface RunReport {
  /** The report format's version (1); bumped on incompatible changes. */
  readonly reportFormat: typeof REPORT_FORMAT;
  /** The version of mirrorc that wrote the report (its package.json's `version`). */
  readonly mirrorcVersion: string;
  /** The command that ran. */
  readonly command: ReportCommand;
  /** The run's exit code (documented with the CLI). */
  readonly exitCode: number;
  /** The error that ended the run, or null. */
  readonly error: string | null;
  /** Whether the run compiled from the lock alone (`--offline`). */
  readonly offline: boolean;
  /** The source clusters compiled with `--source`, or null for all. */
  readonly shard: readonly string[] | null;
  /** Whether the lock file changed (synth, observe) or would change (plan, check). */
  readonly lockChanged: boolean;
  /** Every link target, by name. */
  readonly targets: readonly TargetReport[];
  /** Every link source, by name. */
  readonly sources: readonly SourceReport[];
  /** The warnings' messages, for people (each is the `message` of a warning in `diagnostics`). */
  readonly warnings: readonly string[];
  /**
   * Every finding as data, for CI to filter on: clusters not observed, warnings, and the errors that
   * ended the run, each with its stable code (docs/diagnostics.md), severity, cluster/service and hint.
   */
  readonly diagnostics: readonly Diagnostic[];
}

/** What a run knows when it ends; fields stay undefined when the run stopped before reaching them. */
export interface RunFacts {
  readonly command: ReportCommand;
  readonly exitCode: number;
  readonly error?: string;
  readonly offline: boolean;
  readonly shard?: readonly string[];
  readonly spec?: FleetSpec;
  /** The snapshot compiled from (the lock after this run's observation). */
  readonly snapshot?: FleetSnapshot;
  readonly stale: readonly StaleCluster[];
  /** The targets the removal guard held back. @default none */
  readonly heldBack?: readonly HeldBackTarget[];
  /** The targets held back because they suddenly list no exports. @default none */
  readonly suspects?: readonly SuspectTarget[];
  readonly changes: readonly ClusterChanges[];
  /** The complete output tree the run wrote or compared; absent when it did not compile. */
  readonly tree?: FileTree;
  /** Files per cluster folder after the run (kept units included), when `tree` holds only what the run rendered. @default counted in `tree` */
  readonly filesPerCluster?: ReadonlyMap<string, number>;
  readonly lockChanged: boolean;
  /** The run's warnings (observation, compile, guards, delivery) as coded data. */
  readonly diagnostics: readonly Diagnostic[];
  /** The errors behind `error`, when the run knows them one by one (compile's). @default none */
  readonly errorDiagnostics?: readonly Diagnostic[];
  /** The code of `error` when more exact than its exit code's. @default by exit code */
  readonly errorCode?: DiagnosticDefinition;
}

/** Builds the report of a run; credentials and API server addresses are redacted from every message in it. */
export function buildRunReport(facts: RunFacts): RunReport {
  const spec = facts.spec;
  const state = (cluster: string, role: 'target' | 'source'): ClusterState => {
    const failed = facts.stale.find((s) => s.cluster === cluster && s.role === role);
    const since = (role === 'target' ? facts.snapshot?.staleSince?.targets : facts.snapshot?.staleSince?.sources)?.[cluster] ?? null;
    const observed = !facts.offline && facts.snapshot !== undefined;
    return {
      cluster,
      observed,
      reachable: observed ? failed === undefined : null,
      stale: since !== null || failed !== undefined,
      staleSince: since,
      error: failed ? redactServerAddresses(failed.error.message) : null,
    };
  };
  const compiled = (cluster: string): boolean => facts.tree !== undefined && (facts.shard === undefined || facts.shard.includes(cluster));
  const targets = sortedUnique(spec?.links.map((l) => l.target) ?? []).map((cluster): TargetReport => ({
    ...state(cluster, 'target'),
    exportedServices: facts.snapshot?.targets[cluster]?.services.length ?? null,
    ...heldBackOf(facts, cluster),
  }));
  const sources = sortedUnique(spec?.links.map((l) => l.source) ?? []).map((cluster): SourceReport => {
    const change = facts.changes.find((c) => c.cluster === cluster);
    const added = change?.added ?? [];
    const changed = change?.changed ?? [];
    const files = facts.filesPerCluster?.get(cluster) ?? [...(facts.tree?.keys() ?? [])].filter((p) => p.startsWith(`${cluster}/`)).length;
    return {
      ...state(cluster, 'source'),
      compiled: compiled(cluster),
      added,
      changed,
      removed: change?.removed ?? [],
      unchanged: compiled(cluster) ? files - added.length - changed.length : 0,
    };
  });
  return {
    reportFormat: REPORT_FORMAT,
    mirrorcVersion: ownVersion(),
    command: facts.command,
    exitCode: facts.exitCode,
    error: facts.error !== undefined ? redactServerAddresses(facts.error) : null,
    offline: facts.offline,
    shard: facts.shard ? sortedUnique(facts.shard) : null,
    lockChanged: facts.lockChanged,
    targets,
    sources,
    warnings: facts.diagnostics.map((d) => redactServerAddresses(d.message)),
    diagnostics: [
      ...staleDiagnostics(facts.stale),
      ...facts.diagnostics,
      ...(facts.errorDiagnostics ?? []),
      ...(facts.error !== undefined ? [runErrorDiagnostic(facts.exitCode, facts.error, facts.errorCode)] : []),
    ].map((d) => ({ ...d, message: redactServerAddresses(d.message) })),
  };
}

/** The report's `heldBack` field of `cluster`: why it was held back (redacted), when it was. */
function heldBackOf(facts: Pick<RunFacts, 'heldBack' | 'suspects'>, cluster: string): { heldBack?: string } {
  const suspect = facts.suspects?.find((s) => s.cluster === cluster);
  if (suspect) return { heldBack: redactServerAddresses(suspectReason(suspect)) };
  const held = facts.heldBack?.find((h) => h.target === cluster);
  return held ? { heldBack: redactServerAddresses(heldBackReason(held)) } : {};
}

/** The `--report` path that means stdout. */
export const REPORT_TO_STDOUT = '-';

/**
 * Writes the report as canonical JSON: `-` to stdout; a new path or a regular file atomically (a
 * temporary file renamed over it: a CI step never reads half a report); anything else (a device
 * such as /dev/stdout, a pipe, a symbolic link) in place, through the path, so that it stays what it
 * is: a rename would replace a device node or a link with a plain file.
 */
export function writeReportFile(path: string, report: RunReport): void {
  // Exact values; the characters a terminal or CI log would act on written as \u escapes (src/util/printable-text.ts).
  const text = printableJson(canonicalJson(report));
  if (path === REPORT_TO_STDOUT) {
    writeAllSync(1, text);
    return;
  }
  let regularOrNew: boolean;
  try {
    regularOrNew = lstatSync(path).isFile();
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
    regularOrNew = true;
  }
  if (regularOrNew) writeFileAtomically(path, text);
  else writeFileSync(path, text);
}

/** Writes all of `text` to the file descriptor `fd` (a pipe may take it in parts). */
function writeAllSync(fd: number, text: string): void {
  const bytes = Buffer.from(text, 'utf8');
  for (let at = 0; at < bytes.length; ) {
    try {
      at += writeSync(fd, bytes, at);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EAGAIN') throw e;
    }
  }
}

/** {@link writeReportFile}, telling `log` instead of throwing when the file cannot be written; false then. */
export function writeReportOrLog(path: string, report: RunReport, log: Pick<RunLog, 'always'>): boolean {
  try {
    writeReportFile(path, report);
    return true;
  } catch (e) {
    log.always(`error: the report ${path} could not be written: ${(e as Error).message ?? String(e)}`);
    return false;
  }
}
