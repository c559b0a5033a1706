/** How a run prints its findings for people: grouped (group-diagnostics.ts), each with its code. */
import type { StaleCluster } from '../observe/observe-fleet.js';
import type { Diagnostic } from './diagnostic.js';
import { groupedLines } from './group-diagnostics.js';
import { staleDiagnostics } from './run-diagnostics.js';

/** Where the lines go: `always` at every verbosity, `detail` with --verbose. */
export interface DiagnosticSink {
  always(line: string): void;
  detail(line: string): void;
}

/** The run's warnings, `warning: <message> [MRCnnnn]`, repeated codes grouped. */
export function printWarnings(log: DiagnosticSink, warnings: readonly Diagnostic[]): void {
  const { lines, details } = groupedLines(warnings, 'warning: ');
  for (const line of lines) log.always(line);
  for (const line of details) log.detail(line);
}

/** The block about clusters that could not be observed: a headline, then their causes grouped. */
export function printStaleClusters(log: DiagnosticSink, stale: readonly StaleCluster[], lockFile: string): void {
  log.always('');
  log.always(`WARNING: ${stale.length} cluster observation${stale.length === 1 ? '' : 's'} failed; the last known state from ${lockFile} is kept for ${stale.length === 1 ? 'it' : 'them'} (stale):`);
  const { lines, details } = groupedLines(staleDiagnostics(stale), '  - ');
  for (const line of lines) log.always(line);
  for (const line of details) log.detail(line);
  log.always('');
}
