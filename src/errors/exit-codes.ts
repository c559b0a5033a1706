/** Exit codes of the `mirrorc` CLI (documented in the README). */
export const ExitCode = {
  /** Output written (possibly with warnings, including stale clusters). */
  OK: 0,
  /** An unexpected failure (a bug). */
  INTERNAL: 1,
  /** Bad input: command line, fleet definition or lock file. Nothing was contacted or written. */
  INVALID_INPUT: 2,
  /** Compile found errors in what the clusters hold (with --strict, also per-service problems). Nothing was written. */
  COMPILE_ERROR: 3,
  /** `--strict` and at least one cluster could not be observed, or a target was held back by the removal guard. Nothing was written. */
  STALE: 4,
  /** `check`: dist/ or the lock differs from what synth would write. Nothing was written. */
  CHECK_FAILED: 5,
  /** Another mirrorc run holds the output's run lock (and did not release it in time). Nothing was written. */
  BUSY: 6,
  /** The run would remove more mirrors than the removal guard allows; confirm with --confirm-removals. Nothing was written. */
  REMOVAL_NOT_CONFIRMED: 7,
  /** The output or the lock could not be written (disk full, read-only, permissions). The previous output is in place. */
  WRITE_FAILED: 8,
  /**
   * A cluster has been stale (unobservable, or a target held back by the removal guard) for longer than `--max-stale` or the fleet's
   * StalenessLimit. The output and lock WERE written, with its last known state (stale but safe):
   * the job fails so that people look, while the mirrors stay as they were.
   */
  STALE_LIMIT: 9,
  /**
   * `status`: a mirror of the lock is missing in its source cluster, a managed mirror there is not in
   * the lock, or a data-plane field (ports, ClusterIP pin, endpoint addresses) differs from `dist/`.
   */
  STATUS_MIRRORS_DIFFER: 10,
  /** `status`: a mirror has no ready endpoint in its source cluster (traffic to it fails). */
  STATUS_NO_READY_ENDPOINTS: 11,
  /** `status`: the GitOps tool has not applied the commit holding the lock, or reports a failure. */
  STATUS_GITOPS_BEHIND: 12,
  /** `status`: the lock says a cluster is stale (could not be observed, or a target held back by the removal guard). */
  STATUS_STALE: 13,
  /** `status`: a cluster (or its GitOps objects) could not be read with the reader identity: what status says of it is not known. */
  STATUS_NOT_VISIBLE: 14,
  /** `status`: a target's gateway failed the probe made from where status runs (`gateway.probe`). */
  STATUS_GATEWAY_DOWN: 15,
} as const;
