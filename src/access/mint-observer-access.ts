/**
 * `mirrorc access`: from an admin identity, ensure each cluster's observer identity (the reader
 * RBAC that synth also writes into dist/<cluster>/: namespace, ServiceAccount, ClusterRole,
 * ClusterRoleBinding) and mint a short-lived token for it with the TokenRequest API, then write one
 * kubeconfig (mode 0600) with a context per cluster named as the fleet expects. Read-only access:
 * the ClusterRole holds exactly the observation rules. Nothing secret is returned for printing.
 */
import { closeSync, existsSync, fsyncSync, lstatSync, openSync, readFileSync, renameSync, rmSync, writeSync } from 'node:fs';
import { homedir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { App } from 'cdk8s';
import * as k8s from '@kubernetes/client-node';
import { OBSERVER_NAME, OBSERVER_NAMESPACE } from '../contract/mirrorc.js';
import { observedClusters } from '../delivery/observed-clusters.js';
import { ReaderRbacChart } from '../delivery/reader-rbac-chart.js';
import type { FleetSpec } from '../model/fleet-spec.js';
import { redact } from '../util/redact.js';
import { targetText } from '../util/printable-text.js';
import { observerKubeconfigYaml, type MintedCluster } from './observer-kubeconfig.js';
import { ExitCode } from '../errors/exit-codes.js';
import { MirrorcError, type ExitCodeValue } from '../errors/mirrorc-error.js';

/** Why access could not be minted; `exitCode` is what the CLI exits with. */
export class AccessError extends MirrorcError {
  constructor(message: string, public readonly exitCode: ExitCodeValue) {
    super(redact(message));
    this.name = 'AccessError';
  }
}

/** Exit codes used here: invalid input, or a cluster could not be reached or refused (the code of a stale cluster). */
const INVALID_INPUT = ExitCode.INVALID_INPUT;
const CLUSTER_FAILED = ExitCode.STALE;

/** Options of {@link mintObserverAccess}. */
export interface MintAccessOptions {
  readonly spec: FleetSpec;
  /** Clusters to mint for. @default every cluster at either end of a link */
  readonly clusters?: readonly string[];
  /** Admin kubeconfig; each cluster's admin context is the fleet's access context. @default the cluster's own access.kubeconfig, else `$KUBECONFIG`, else `~/.kube/config` */
  readonly adminKubeconfig?: string;
  /** Token lifetime in seconds (the API server may shorten it; at least 600). */
  readonly expirationSeconds: number;
  /** The kubeconfig file to write (entries of other clusters in it are kept). */
  readonly outFile: string;
  /** Told about each cluster as it is done (no secrets). */
  readonly onCluster?: (line: string) => void;
}

/** What was minted: per cluster its context and the token's expiry (nothing secret). */
export interface MintedAccess {
  readonly clusters: readonly { readonly cluster: string; readonly context: string; readonly expires: string }[];
  readonly outFile: string;
}

/** Mints the observer kubeconfig; writes nothing unless every cluster succeeded. */
export async function mintObserverAccess(options: MintAccessOptions): Promise<MintedAccess> {
  const observed = observedClusters(options.spec);
  const known = new Set(observed.map((c) => c.name));
  const wanted = options.clusters && options.clusters.length > 0 ? options.clusters : [...known];
  const unknown = wanted.filter((c) => !known.has(c));
  if (unknown.length > 0) {
    throw new AccessError(`--cluster ${unknown.join(', ')}: not a cluster of any link in the fleet (known: ${[...known].join(', ') || 'none'})`, INVALID_INPUT);
  }
  if (wanted.length === 0) throw new AccessError('the fleet has no links, so no cluster needs an observer identity', INVALID_INPUT);
  outFileProblem(options.outFile);

  const minted: MintedCluster[] = [];
  const report: { cluster: string; context: string; expires: string }[] = [];
  for (const name of wanted) {
    const observedCluster = observed.find((c) => c.name === name)!;
    const access = options.spec.clusters.find((c) => c.name === name)!.access;
    const kc = adminConfig(name, access.kubeconfig ?? options.adminKubeconfig, access.context);
    const ensured = await ensureReaderIdentity(name, kc, observedCluster);
    const { token, expires } = await requestToken(name, kc, options.expirationSeconds);
    const c = kc.getCurrentCluster()!;
    const caPem = c.caData ? Buffer.from(c.caData, 'base64').toString('utf8') : c.caFile ? readFileSync(c.caFile, 'utf8') : undefined;
    minted.push({
      cluster: name, context: access.context, server: c.server, token,
      ...(caPem !== undefined ? { caPem } : {}),
      ...(c.tlsServerName ? { tlsServerName: c.tlsServerName } : {}),
      ...(c.skipTLSVerify ? { insecureSkipTlsVerify: true } : {}),
    });
    report.push({ cluster: name, context: access.context, expires });
    options.onCluster?.(`${name}: ${ensured}; token for ServiceAccount ${OBSERVER_NAMESPACE}/${OBSERVER_NAME} valid until ${expires}${c.skipTLSVerify ? ' (warning: the admin context skips TLS verification, and so will this one)' : ''}`);
  }
  const existing = existsSync(options.outFile) ? readFileSync(options.outFile, 'utf8') : undefined;
  writePrivateFile(options.outFile, observerKubeconfigYaml(minted, existing));
  return { clusters: report, outFile: options.outFile };
}

/** The admin KubeConfig of one cluster, its current context set. */
function adminConfig(cluster: string, file: string | undefined, context: string): k8s.KubeConfig {
  const kc = new k8s.KubeConfig();
  const where = file ?? (process.env.KUBECONFIG || join(homedir(), '.kube', 'config'));
  try {
    if (file !== undefined) kc.loadFromFile(file);
    else if (process.env.KUBECONFIG) kc.loadFromDefault();
    else kc.loadFromFile(where);
  } catch {
    throw new AccessError(`cluster "${cluster}": the admin kubeconfig ${where} does not exist or is not a kubeconfig; pass --kubeconfig <file> with an admin context per cluster`, INVALID_INPUT);
  }
  if (!kc.getContextObject(context)) {
    throw new AccessError(`cluster "${cluster}": the admin kubeconfig ${where} has no context "${context}" (the fleet's access context for it); add it, or set the cluster's access in the fleet file`, INVALID_INPUT);
  }
  kc.setCurrentContext(context);
  return kc;
}

/** Server-side applies the reader RBAC (the same objects as dist/<cluster>/); returns what it did, in words. */
async function ensureReaderIdentity(cluster: string, kc: k8s.KubeConfig, observed: ReturnType<typeof observedClusters>[number]): Promise<string> {
  const objects = new ReaderRbacChart(new App({ outdir: 'unused' }), observed).toJson() as k8s.KubernetesObject[];
  const client = k8s.KubernetesObjectApi.makeApiClient(kc);
  for (const obj of objects) {
    try {
      await client.patch(obj, undefined, undefined, 'mirrorc-access', true, k8s.PatchStrategy.ServerSideApply);
    } catch (e) {
      throw clusterFailure(cluster, `apply ${obj.kind} ${obj.metadata?.namespace ? `${obj.metadata.namespace}/` : ''}${obj.metadata?.name}`, e);
    }
  }
  return `reader identity applied (${objects.map((o) => o.kind).join(', ')})`;
}

async function requestToken(cluster: string, kc: k8s.KubeConfig, expirationSeconds: number): Promise<{ token: string; expires: string }> {
  const core = kc.makeApiClient(k8s.CoreV1Api);
  let answer: k8s.AuthenticationV1TokenRequest;
  try {
    answer = await core.createNamespacedServiceAccountToken({
      name: OBSERVER_NAME,
      namespace: OBSERVER_NAMESPACE,
      body: { apiVersion: 'authentication.k8s.io/v1', kind: 'TokenRequest', spec: { audiences: [], expirationSeconds } },
    });
  } catch (e) {
    throw clusterFailure(cluster, `request a token for ServiceAccount ${OBSERVER_NAMESPACE}/${OBSERVER_NAME}`, e);
  }
  const token = answer.status?.token;
  if (typeof token !== 'string' || token === '') throw new AccessError(`cluster "${cluster}": the TokenRequest answer holds no token`, CLUSTER_FAILED);
  const expires = answer.status?.expirationTimestamp;
  return { token, expires: expires instanceof Date ? expires.toISOString().replace(/\.\d{3}Z$/, 'Z') : String(expires) };
}

function clusterFailure(cluster: string, what: string, e: unknown): AccessError {
  if (e instanceof k8s.ApiException) {
    const code = e.code;
    const hint = code === 401 ? 'the admin credentials were rejected; refresh them'
      : code === 403 ? 'the admin context may not do this; use an identity that can manage RBAC and ServiceAccount tokens (cluster-admin)'
        : 'the API server answered with an error';
    let reason = '';
    try {
      reason = (JSON.parse(String(e.body)) as { message?: string }).message ?? '';
    } catch { /* no JSON body */ }
    return new AccessError(`cluster "${cluster}": ${what}: HTTP ${code}${reason ? ` (${targetText(reason)})` : ''}; ${hint}`, CLUSTER_FAILED);
  }
  const err = e as NodeJS.ErrnoException;
  return new AccessError(`cluster "${cluster}": ${what}: ${targetText(String(err.code ?? err.message ?? e))}; check that the API server is up and reachable from here`, CLUSTER_FAILED);
}

/** The output file must be a regular file or absent, in an existing folder. */
function outFileProblem(file: string): void {
  let st;
  try {
    st = lstatSync(file);
  } catch {
    if (!existsSync(dirname(file) || '.')) throw new AccessError(`--kubeconfig-out ${file}: its folder does not exist`, INVALID_INPUT);
    return;
  }
  if (!st.isFile()) throw new AccessError(`--kubeconfig-out ${file}: exists and is not a regular file; name a file`, INVALID_INPUT);
}

/** Writes `text` to `file` with mode 0600 from the first byte, atomically (a temp file in the same folder, then rename). */
function writePrivateFile(file: string, text: string): void {
  const temp = join(dirname(file), `.${basename(file)}.${process.pid}.tmp`);
  rmSync(temp, { force: true });
  const fd = openSync(temp, 'w', 0o600);
  try {
    writeSync(fd, text);
    fsyncSync(fd);
  } catch (e) {
    closeSync(fd);
    rmSync(temp, { force: true });
    throw e;
  }
  closeSync(fd);
  renameSync(temp, file);
}
