/** The exit code of `mirrorc status`: that of the first problem class found, in the order of {@link PROBLEM_CLASS_ORDER}. */
import { ExitCode } from '../errors/exit-codes.js';
import type { StatusProblem, StatusProblemClass } from './status-report.js';

/** The problem classes, most urgent first, each with its exit code (docs/status.md). */
export const PROBLEM_CLASS_ORDER: readonly (readonly [StatusProblemClass, number])[] = [
  ['mirrors-differ', ExitCode.STATUS_MIRRORS_DIFFER],
  ['no-ready-endpoints', ExitCode.STATUS_NO_READY_ENDPOINTS],
  ['gitops-behind', ExitCode.STATUS_GITOPS_BEHIND],
  ['stale', ExitCode.STATUS_STALE],
  ['not-visible', ExitCode.STATUS_NOT_VISIBLE],
  ['gateway-down', ExitCode.STATUS_GATEWAY_DOWN],
];

/** 0 without problems; else the code of the most urgent class among `problems`. */
export function problemExitCode(problems: readonly StatusProblem[]): number {
  for (const [cls, code] of PROBLEM_CLASS_ORDER) if (problems.some((p) => p.class === cls)) return code;
  return ExitCode.OK;
}

/** `problems` sorted by class (in {@link PROBLEM_CLASS_ORDER}), cluster, mirror and message. */
export function sortProblems(problems: readonly StatusProblem[]): StatusProblem[] {
  const rank = (p: StatusProblem): number => PROBLEM_CLASS_ORDER.findIndex(([c]) => c === p.class);
  const key = (p: StatusProblem): string => `${p.cluster}\u0000${p.mirror ?? ''}\u0000${p.message}`;
  return [...problems].sort((a, b) => rank(a) - rank(b) || (key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0));
}
