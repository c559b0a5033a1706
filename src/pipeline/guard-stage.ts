/**
 * Stage 5, guard: what must stop or fail a run that otherwise succeeded. Before anything is
 * written: a removal of more mirrors than ordinary export changes cause (src/guard/removal-guard.ts),
 * unless confirmed. After the output is written: a cluster stale for longer than the staleness limit.
 * (Two guards act earlier, where their input is: a target that suddenly lists no exports is held
 * back by the observe stage, a target whose new observation removes many mirrors by the compile stage.)
 */
import { RemovalNotConfirmedError, StaleLimitError } from '../errors/mirrorc-error.js';
import { largeRemovalMessage, largeRemovals, type LargeRemoval } from '../guard/removal-guard.js';
import { clustersOverStaleLimit, staleLimitMessage } from '../guard/stale-limit.js';
import type { FleetSnapshot } from '../snapshot/snapshot.js';
import type { UnitRecords } from '../state/lock-document.js';
import type { Loaded } from './load-stage.js';
import type { RunContext } from './run-context.js';

/**
 * The large removals from the lock's unit inventories (`before`: what `dist/` holds) to those of the
 * run (`after`); none when removals are confirmed. `causes` names why a removal happens (the link or
 * selector change), for the message.
 * @throws RemovalNotConfirmedError when there are any and the run would write (synth, observe);
 * plan and check only show them
 */
export function removalGuard(run: RunContext, before: UnitRecords, after: UnitRecords, causes?: (removal: LargeRemoval) => readonly string[]): readonly LargeRemoval[] {
  const removals = run.options.confirmRemovals ? [] : largeRemovals(before, after);
  if (removals.length > 0 && (run.mode === 'write' || run.mode === 'observe')) throw new RemovalNotConfirmedError(largeRemovalMessage(removals, causes));
  return removals;
}

/** What the staleness limit's message says about the run. */
export interface StaleLimitContext {
  /** What was written. */
  readonly wrote: string;
  /** The targets the removal guard held back this run (stale, though observed). */
  readonly heldBack: readonly string[];
}

/**
 * Fails a run whose output is in place when a cluster of `snapshot` has been stale (unobservable or
 * held back) for longer than the staleness limit.
 * @throws StaleLimitError
 */
export function staleLimitGuard(run: RunContext, loaded: Loaded, snapshot: FleetSnapshot, context: StaleLimitContext): void {
  const limit = loaded.staleLimit;
  if (!limit) return;
  const over = clustersOverStaleLimit(snapshot.staleSince, limit, run.now());
  if (over.length > 0) throw new StaleLimitError(staleLimitMessage(over, limit, context.wrote, new Set(context.heldBack)));
}
