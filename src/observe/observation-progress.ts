/** Progress events of an observation, for operators watching a long run (the CLI prints them). */
import type { ObservationError } from './observation-error.js';

/** A cluster's observation in one role has started. */
export interface ObservationStarted {
  readonly kind: 'started';
  readonly cluster: string;
  readonly role: 'target' | 'source';
}

/** A cluster's observation in one role has ended, with what was found or why it failed. */
export interface ObservationFinished {
  readonly kind: 'finished';
  readonly cluster: string;
  readonly role: 'target' | 'source';
  /** Exported services found (targets). */
  readonly services?: number;
  /** Namespaces found (sources). */
  readonly namespaces?: number;
  /** Why it failed; the cluster keeps its last known state. */
  readonly error?: ObservationError;
}

/** One progress event. */
export type ObservationProgress = ObservationStarted | ObservationFinished;
