/**
 * The thresholds of the removal guard, defined once. A run is stopped (or a target's observation
 * held back) when it would remove more mirrors at once than ordinary export changes do; the user
 * confirms a real large removal with `--confirm-removals`. The README's Safety section gives the reasons.
 */

/** A target listing no exported services is suspect when the lock held at least this many. */
export const SUSPECT_EMPTY_MINIMUM = 2;
/** Removing every mirror of one target from a source needs confirmation when it had at least this many. */
export const WHOLE_TARGET_MINIMUM = 2;
/** Removing more than this share of a source's mirror Services needs confirmation... */
export const SOURCE_SHARE_LIMIT = 0.25;
/** ...when that is at least this many Services (small folders change by single services). */
export const SOURCE_SHARE_MINIMUM = 5;
