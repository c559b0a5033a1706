/** Prints one line per observed cluster (and, verbose, when each starts and how long it took). */
import type { ObservationProgress } from '../observe/observation-progress.js';
import type { RunLog } from './run-log.js';

const plural = (n: number, word: string): string => `${n} ${word}${n === 1 ? '' : 's'}`;

/** A progress callback for observeFleet that writes to `log`; `clock` only serves the verbose timings. */
export function observationProgressPrinter(log: RunLog, clock: () => Date): (event: ObservationProgress) => void {
  const started = new Map<string, number>();
  return (event) => {
    const key = `${event.role} ${event.cluster}`;
    if (event.kind === 'started') {
      started.set(key, clock().getTime());
      log.detail(`  observing ${key}…`);
      return;
    }
    const begin = started.get(key);
    const took = log.verbosity === 'verbose' && begin !== undefined ? ` (${clock().getTime() - begin} ms)` : '';
    if (event.error) {
      log.info(`  ${key}: not observed (${event.error.failure}); its last known state is kept${took}`);
    } else if (event.role === 'target') {
      log.info(`  ${key}: ${plural(event.services ?? 0, 'exported service')}${took}`);
    } else {
      log.info(`  ${key}: ${plural(event.namespaces ?? 0, 'namespace')}${took}`);
    }
  };
}
