/** Exit codes of the `mirrorc` CLI (documented in the README). */
export const ExitCode = {
  /** Output written (possibly with warnings, including stale clusters). */
  OK: 0,
  /** An unexpected failure (a bug, or the file system refused a write). */
  INTERNAL: 1,
  /** Bad input: command line, fleet definition or lock file. Nothing was contacted or written. */
  INVALID_INPUT: 2,
  /** Compile found errors in what the clusters hold (name too long, collision). Nothing was written. */
  COMPILE_ERROR: 3,
  /** `--strict` and at least one cluster could not be observed. Nothing was written. */
  STALE: 4,
  /** `check`: dist/ or the lock differs from what synth would write. Nothing was written. */
  CHECK_FAILED: 5,
} as const;
