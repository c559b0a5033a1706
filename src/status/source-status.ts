/** A source cluster's status: its mirrors in the lock and `dist/` against the ones it holds live, and what the lock says of its last observation. */
import type { FileTree } from '../emit/render-files.js';
import type { ClusterClient } from '../observe/cluster-client.js';
import type { FleetSnapshot } from '../snapshot/snapshot.js';
import type { UnitRecords } from '../state/lock-document.js';
import { formatDuration } from '../util/duration.js';
import { committedMirrors } from './committed-mirrors.js';
import { compareMirrors } from './compare-mirrors.js';
import { liveMirrors } from './live-mirrors.js';
import type { GitOpsStatus, SourceStatus, StatusProblem } from './status-report.js';

/** What the status of a source is computed from. */
export interface SourceInputs {
  readonly cluster: string;
  /** Its client, or why there is none (the kubeconfig lacks its context, ...). */
  readonly client: ClusterClient | Error;
  readonly snapshot: FleetSnapshot;
  readonly units: UnitRecords;
  /** `dist/` as committed. */
  readonly tree: FileTree;
  readonly now: Date;
}

/** A source's status and its problems. */
export interface SourceOutcome {
  readonly status: Omit<SourceStatus, 'gitops'> & { readonly gitops: GitOpsStatus | null };
  readonly problems: readonly StatusProblem[];
}

/** Reads the source's mirrors live and compares them with the lock and `dist/`. */
export async function sourceStatus(inputs: SourceInputs): Promise<SourceOutcome> {
  const { cluster, client, snapshot, now } = inputs;
  const since = snapshot.staleSince?.sources?.[cluster] ?? null;
  const problems: StatusProblem[] = [];
  if (since !== null) {
    problems.push({ class: 'stale', cluster, message: `source "${cluster}" is stale in the lock since ${since} (${formatDuration(now.getTime() - Date.parse(since))}): its last synth could not observe it` });
  }
  let live;
  try {
    if (client instanceof Error) throw client;
    live = await liveMirrors(client);
  } catch (e) {
    const error = (e as Error).message;
    problems.push({ class: 'not-visible', cluster, message: `source "${cluster}": its mirrors cannot be read with the reader identity: ${error}` });
    return { status: { cluster, visible: false, error, staleSince: since, mirrors: [], gitops: null }, problems };
  }
  const compared = compareMirrors(cluster, committedMirrors(inputs.tree, inputs.units, cluster), live);
  return { status: { cluster, visible: true, error: null, staleSince: since, mirrors: compared.mirrors, gitops: null }, problems: [...problems, ...compared.problems] };
}
