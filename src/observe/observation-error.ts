/** Why a cluster could not be observed, in words an operator can act on. */
import { redact } from '../util/redact.js';
import { targetText } from '../util/printable-text.js';

/** The broad cause, which decides the advice given. */
export type ObservationFailure = 'kubeconfig' | 'unreachable' | 'unauthorized' | 'forbidden' | 'api-error' | 'over-budget';

const ADVICE: Record<ObservationFailure, string> = {
  kubeconfig: 'check the cluster\'s access settings in the fleet definition (kubeconfig path and context) or pass --kubeconfig; where there is no cluster access, --offline compiles from the lock alone',
  unreachable: 'check that the API server is up and reachable from where synth runs',
  unauthorized: 'the credentials in the kubeconfig were rejected; refresh the token or certificate',
  forbidden: 'apply the reader identity that synth writes into dist/<cluster>/ (ClusterRole mirrorc-observer), or grant yours the same rules; see docs/reader-rbac.md',
  'api-error': 'the API server answered with an error; retry, and check its health',
  'over-budget': 'its last known state is kept; if the cluster really is this large or slow, raise that field of its observationBudget in the fleet definition (see docs/observation-budgets.md), otherwise check its API server',
};

/**
 * A cluster could not be observed. Never carries credentials: only the cluster, the request and the
 * server's words, redacted; and never a control character or a CI command: the server's words are
 * its own (a Status `message`, a TLS or socket error naming what the server sent), so the detail is
 * {@link targetText}.
 */
export class ObservationError extends Error {
  /** What failed, in the request's and the server's words. */
  public readonly detail: string;

  /**
   * The kubeconfig file itself does not exist on this machine (a fresh clone, a laptop without
   * access): that says nothing about the cluster, so it starts no stale time. A kubeconfig that
   * exists but lacks the context (a wrong context) or cannot be read is a failure like any other.
   */
  public readonly kubeconfigMissing: boolean;

  constructor(
    public readonly cluster: string,
    public readonly failure: ObservationFailure,
    detail: string,
    options: { readonly kubeconfigMissing?: boolean } = {},
  ) {
    const safe = targetText(redact(detail));
    super(`cluster "${cluster}": ${safe}; ${ADVICE[failure]}`);
    this.detail = safe;
    this.kubeconfigMissing = failure === 'kubeconfig' && (options.kubeconfigMissing ?? false);
    this.name = 'ObservationError';
  }
}
