/**
 * How each generated Application compares and syncs: the properties a platform team expects of an
 * Application it did not write, kept apart from how the output is split into Applications.
 */
import { SYNC_OPTION_APPLY_OUT_OF_SYNC_ONLY, SYNC_OPTION_SERVER_SIDE_APPLY } from '../contract/argocd.js';

/**
 * Annotations every generated Application carries besides its `manifest-generate-paths`: none.
 * In particular no `compare-options: ServerSideDiff=true`: a server-side diff dry-runs every object of
 * the Application against the API server at every comparison the diff cache cannot answer (each new
 * commit, each requested refresh), ~6 min for 6,473 objects here (issue 35). Without it Argo CD 3.6
 * diffs in the controller (structured-merge diff, because the Applications sync with server-side
 * apply), and `endpoints: []` in git against no list live stays Synced (the real Argo CD test).
 * A controller started with `--server-side-diff-enabled` still diffs server-side.
 */
export const APPLICATION_ANNOTATIONS: Readonly<Record<string, string>> = {};

/**
 * The `syncPolicy.retry` of every generated Application. Auto-sync never retries a failed sync of
 * the same commit by itself ("Skipping auto-sync: failed previous sync attempt"): without this, a
 * sync that fails for a passing reason (an admission webhook or quota refusing for a moment, an API
 * server restart) stays failed until the next commit. Five attempts 10 s, 20 s, 40 s, 80 s, 160 s
 * apart (at most 3 min) cover a few minutes; after that the Application shows the failure.
 * `refresh`: a retry syncs the newest commit, so a fix pushed meanwhile is not held up behind the
 * failed one (Argo CD ≥ 3.x reads it; older versions drop the field and retry the same commit).
 */
export const APPLICATION_SYNC_RETRY = {
  limit: 5,
  backoff: { duration: '10s', factor: 2, maxDuration: '3m' },
  refresh: true,
} as const;

/** The `syncPolicy` of every generated Application. */
export function applicationSyncPolicy(): object {
  return {
    // prune: a mirror removed from git is deleted from its cluster; selfHeal: hand edits are reverted.
    automated: { prune: true, selfHeal: true },
    // Server-side apply: no last-applied annotation copy on every mirror. ApplyOutOfSyncOnly: a sync
    // applies what is OutOfSync (and prunes), not every object of the Application.
    syncOptions: [SYNC_OPTION_SERVER_SIDE_APPLY, SYNC_OPTION_APPLY_OUT_OF_SYNC_ONLY],
    retry: { limit: APPLICATION_SYNC_RETRY.limit, backoff: { ...APPLICATION_SYNC_RETRY.backoff }, refresh: APPLICATION_SYNC_RETRY.refresh },
  };
}
