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

/** The warning for a suspect target. */
export function suspectTargetWarning(s: SuspectTarget): string {
  return (
    `cluster "${s.cluster}" lists no exported services, but the lock holds ${s.kept}: keeping its last known services (suspect: ` +
    `a wiped namespace, a changed selector or lost read permissions look the same). If "${s.cluster}" really stopped exporting them all, run again with --confirm-removals`
  );
}
