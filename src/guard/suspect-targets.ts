/**
 * Suspect observations: a target that suddenly lists no exported services where the lock has
 * several. A wiped namespace, a changed selector, a lost permission or a half-restored cluster all
 * look like that, and each would otherwise remove every mirror of the target fleet-wide. Such a
 * target keeps its last known services (stale-but-safe) until the user confirms.
 */
import type { FleetSnapshot, TargetSnapshot } from '../snapshot/snapshot.js';
import { SUSPECT_EMPTY_MINIMUM } from './removal-policy.js';

/** A target whose empty observation was set aside. */
export interface SuspectTarget {
  readonly cluster: string;
  /** Services in the lock, kept. */
  readonly kept: number;
}

/** `observed` with every suspect target put back to its `previous` state, and which they were. */
export function holdBackSuspectTargets(previous: FleetSnapshot, observed: FleetSnapshot): { snapshot: FleetSnapshot; suspects: SuspectTarget[] } {
  const suspects: SuspectTarget[] = [];
  const targets: Record<string, TargetSnapshot> = { ...observed.targets };
  for (const [cluster, now] of Object.entries(observed.targets)) {
    const before = previous.targets[cluster];
    if (!before || now === before) continue;
    if (now.services.length === 0 && before.services.length >= SUSPECT_EMPTY_MINIMUM) {
      // The gateway, its probe and the trust roots are observed independently of the exports: keep the fresh ones.
      const { gatewayProbe: _oldProbe, trustRoots: _oldRoots, ...kept } = before;
      targets[cluster] = {
        ...kept,
        ...(now.gateway ? { gateway: now.gateway } : {}),
        ...(now.gatewayProbe ? { gatewayProbe: now.gatewayProbe } : {}),
        ...(now.trustRoots ? { trustRoots: now.trustRoots } : {}),
      };
      suspects.push({ cluster, kept: before.services.length });
    }
  }
  return { snapshot: suspects.length > 0 ? { ...observed, targets } : observed, suspects };
}

/** Why a suspect target is held back, in one line (the report's `heldBack`, the summaries' cell). */
export function suspectReason(s: SuspectTarget): string {
  return `it lists no exported services, but the lock holds ${s.kept} (suspect: a wiped namespace, a changed selector or lost read permissions look the same)`;
}

/**
 * The warning for a suspect target. It is held back like a target the removal guard holds back:
 * stale (staleSince, `--strict`, `--max-stale`), never silent.
 */
export function suspectTargetWarning(s: SuspectTarget): string {
  return (
    `cluster "${s.cluster}" is HELD BACK: ${suspectReason(s)}; keeping its last known services, it is stale until it is let through (staleSince, --strict and --max-stale count it). ` +
    `If "${s.cluster}" really stopped exporting them all, run again with --confirm-removals`
  );
}
