/**
 * The Flux side of a source cluster: the mirrorc Kustomizations in Flux's namespace (those with the
 * managed label: the entry, `mirrorc-units` and one per delivery unit), read with the reader
 * identity (`list kustomizations`, which a fleet delivered by Flux adds to it). Each is compared with
 * the commit that last changed the lock: it is behind when the revision it last applied is not that
 * commit nor one after it (git decides, in the lock's clone), and failing when its Ready condition
 * is not True (its message is the last error). No Kustomization readable is said, with why.
 */
import { spawnSync } from 'node:child_process';
import { dirname, resolve } from 'node:path';
import { FLUX_KUSTOMIZATION_VERSION, FLUX_KUSTOMIZATIONS_RESOURCE, FLUX_KUSTOMIZE_API_GROUP, FLUX_READY_CONDITION } from '../contract/flux.js';
import { MANAGED_LABEL, MANAGED_VALUE } from '../contract/mirrorc.js';
import type { FluxDeliverySpec } from '../model/gitops-delivery.js';
import type { ClusterClient } from '../observe/cluster-client.js';
import { compareStrings } from '../util/order.js';
import type { GitOpsStatus, KustomizationStatus, StatusProblem } from './status-report.js';

/** The commit that last changed the lock, or null when it is not known (not a git clone, or the lock is not committed). */
export type LockCommit = string | null;

/** What {@link fluxStatus} reads. */
export interface FluxStatusInputs {
  readonly cluster: string;
  readonly client: ClusterClient | Error;
  readonly flux: FluxDeliverySpec;
  readonly lockFile: string;
  /** @default asked of git in the lock's folder */
  readonly lockCommit?: LockCommit;
}

/** The Flux status of a source and its problems. */
export interface FluxOutcome {
  readonly status: GitOpsStatus;
  readonly problems: readonly StatusProblem[];
}

/** `git <args>` in `cwd`: its exit status and stdout. */
function git(cwd: string, args: readonly string[]): { status: number | null; out: string } {
  const run = spawnSync('git', args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] });
  return { status: run.error ? null : run.status, out: (run.stdout ?? '').trim() };
}

/** The commit that last changed `lockFile`, by git in its folder; null outside a clone or when it is not committed. */
export function lockCommitOf(lockFile: string): LockCommit {
  const path = resolve(lockFile);
  const run = git(dirname(path), ['log', '-1', '--format=%H', '--', path]);
  return run.status === 0 && /^[0-9a-f]{40,64}$/.test(run.out) ? run.out : null;
}

/** Whether `applied` is `lockCommit` or comes after it, in the lock's clone: true, false, or null when git cannot tell (the commit is not in the clone). */
function appliedIncludes(lockFile: string, applied: string, lockCommit: string): boolean | null {
  if (applied === lockCommit) return true;
  const run = git(dirname(resolve(lockFile)), ['merge-base', '--is-ancestor', lockCommit, applied]);
  return run.status === 0 ? true : run.status === 1 ? false : null;
}

interface LiveKustomization {
  readonly metadata?: { readonly name?: string };
  readonly status?: { readonly lastAppliedRevision?: string; readonly conditions?: readonly { readonly type?: string; readonly status?: string; readonly message?: string }[] };
}

/** One Kustomization's status. */
function kustomizationStatus(k: LiveKustomization): KustomizationStatus {
  const ready = k.status?.conditions?.find((c) => c.type === FLUX_READY_CONDITION);
  return {
    name: k.metadata?.name ?? '',
    ready: ready?.status ?? null,
    lastAppliedRevision: k.status?.lastAppliedRevision ?? null,
    lastError: ready !== undefined && ready.status !== 'True' ? (ready.message ?? null) : null,
  };
}

/** The problems of one Kustomization against the lock's commit. */
function kustomizationProblems(cluster: string, k: KustomizationStatus, lockFile: string, lockCommit: LockCommit): StatusProblem[] {
  const out: StatusProblem[] = [];
  if (k.ready !== 'True') out.push({ class: 'gitops-behind', cluster, message: `Kustomization ${k.name} in "${cluster}" is not Ready (${k.ready ?? 'no condition yet'})${k.lastError !== null ? `: ${k.lastError}` : ''}` });
  if (lockCommit === null) return out;
  const applied = /@sha1:([0-9a-f]{40})$/.exec(k.lastAppliedRevision ?? '')?.[1];
  if (applied === undefined) {
    out.push({ class: 'gitops-behind', cluster, message: `Kustomization ${k.name} in "${cluster}" has applied no git revision yet; the lock is at ${lockCommit}` });
    return out;
  }
  const includes = appliedIncludes(lockFile, applied, lockCommit);
  if (includes === false) out.push({ class: 'gitops-behind', cluster, message: `Kustomization ${k.name} in "${cluster}" applied ${applied}, before the lock's last change ${lockCommit}: Flux is behind` });
  if (includes === null) out.push({ class: 'not-visible', cluster, message: `Kustomization ${k.name} in "${cluster}" applied ${applied}, which this clone does not hold: fetch to tell whether it is behind the lock's last change ${lockCommit}` });
  return out;
}

/** Reads the source's mirrorc Kustomizations and compares them with the lock's commit. */
export async function fluxStatus(inputs: FluxStatusInputs): Promise<FluxOutcome> {
  const { cluster, client, flux, lockFile } = inputs;
  const lockCommit = inputs.lockCommit !== undefined ? inputs.lockCommit : lockCommitOf(lockFile);
  const unseen = (error: string): FluxOutcome => ({
    status: { tool: 'flux', visible: false, error, lockCommit, kustomizations: [] },
    problems: [{ class: 'not-visible', cluster, message: `the Flux side of "${cluster}" cannot be read: ${error}` }],
  });
  let items;
  try {
    if (client instanceof Error) throw client;
    items = await client.listNamespacedCustomObjects({ group: FLUX_KUSTOMIZE_API_GROUP, version: FLUX_KUSTOMIZATION_VERSION, plural: FLUX_KUSTOMIZATIONS_RESOURCE }, flux.namespace, `${MANAGED_LABEL}=${MANAGED_VALUE}`);
  } catch (e) {
    return unseen((e as Error).message);
  }
  if (items === undefined) return unseen(`its API server does not serve ${FLUX_KUSTOMIZATIONS_RESOURCE}.${FLUX_KUSTOMIZE_API_GROUP} (Flux is not installed there)`);
  const kustomizations = items.map((i) => kustomizationStatus(i as LiveKustomization)).sort((a, b) => compareStrings(a.name, b.name));
  const problems = kustomizations.flatMap((k) => kustomizationProblems(cluster, k, lockFile, lockCommit));
  if (kustomizations.length === 0) problems.push({ class: 'gitops-behind', cluster, message: `no mirrorc Kustomization in namespace ${flux.namespace} of "${cluster}": apply delivery/flux/${cluster}/kustomization-mirrorc.yaml once (docs/flux.md)` });
  return { status: { tool: 'flux', visible: true, error: null, lockCommit, kustomizations }, problems };
}
