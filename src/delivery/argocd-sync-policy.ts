/**
 * How each generated Application compares and syncs: the properties a platform team expects of an
 * Application it did not write, kept apart from how the output is split into Applications.
 */
import { COMPARE_OPTIONS_ANNOTATION, COMPARE_OPTION_SERVER_SIDE_DIFF } from '../contract/argocd.js';

/**
 * Annotations of every generated Application. Server-Side Diff: Argo CD 3.1–3.5 otherwise compare
 * with the structured-merge diff, where `endpoints: []` in git against no list live is a known
 * false OutOfSync; 3.6 and later diff server-side already, and the annotation changes nothing there.
 */
export const APPLICATION_ANNOTATIONS: Readonly<Record<string, string>> = {
  [COMPARE_OPTIONS_ANNOTATION]: COMPARE_OPTION_SERVER_SIDE_DIFF,
};

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
    // Server-side apply: no last-applied annotation copy on every mirror.
    syncOptions: ['ServerSideApply=true'],
    retry: { limit: APPLICATION_SYNC_RETRY.limit, backoff: { ...APPLICATION_SYNC_RETRY.backoff }, refresh: APPLICATION_SYNC_RETRY.refresh },
  };
}
