/**
 * A read-only client for one cluster: per-request timeouts, retries with backoff on transient
 * errors only, pagination that restarts when the continue token expires, and errors mapped to
 * {@link ObservationError}. One KubeConfig per cluster, because client-node reads the *current*
 * context at request time.
 */
import { homedir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import * as k8s from '@kubernetes/client-node';
import type { ClusterAccessSpec } from '../model/fleet-spec.js';
import { MCS_API_GROUP, MCS_SERVICE_EXPORT_VERSION, MCS_SERVICE_EXPORTS_RESOURCE } from '../contract/kubernetes.js';
import { ObservationError } from './observation-error.js';

/** Tuning of a {@link ClusterClient}. */
export interface ClusterClientOptions {
  /** Client-side timeout of one HTTP request, in milliseconds. @default 10000 */
  readonly requestTimeoutMs?: number;
  /** Attempts per request, the first included, for transient errors. @default 3 */
  readonly attempts?: number;
  /** First backoff delay in milliseconds; doubles each retry. @default 250 */
  readonly backoffMs?: number;
  /** Items per page of a list. @default 500 */
  readonly pageSize?: number;
  /** Up to this many services of a target, each one's EndpointSlices are listed; above it, every EndpointSlice in one list (small values exercise that path). @default 32 */
  readonly perServiceSliceLists?: number;
  /** Kubeconfig used when the cluster's access names none. @default `$KUBECONFIG`, else `~/.kube/config` */
  readonly defaultKubeconfig?: string;
}

const TRANSIENT_HTTP = new Set([408, 429, 500, 502, 503, 504]);
const TRANSIENT_NET = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH', 'ECONNABORTED']);

interface Page<T> {
  items: T[];
  metadata?: { _continue?: string };
}

/** A read-only API client for one cluster. */
export class ClusterClient {
  /**
   * Builds a client from the cluster's access settings.
   * @throws ObservationError when the kubeconfig or context cannot be used
   */
  public static fromAccess(cluster: string, access: ClusterAccessSpec, options: ClusterClientOptions = {}): ClusterClient {
    const kc = new k8s.KubeConfig();
    const file = access.kubeconfig ?? options.defaultKubeconfig;
    try {
      if (file !== undefined) kc.loadFromFile(file);
      else if (process.env.KUBECONFIG) kc.loadFromDefault();
      else kc.loadFromFile(join(homedir(), '.kube', 'config'));
    } catch (e) {
      const where = file ?? (process.env.KUBECONFIG || '~/.kube/config');
      const missing = (e as NodeJS.ErrnoException).code === 'ENOENT';
      const why = missing ? 'does not exist' : 'cannot be read as a kubeconfig';
      throw new ObservationError(cluster, 'kubeconfig', `kubeconfig ${where} ${why}`, { kubeconfigMissing: missing });
    }
    if (!kc.getContextObject(access.context)) {
      const where = file ?? (process.env.KUBECONFIG || '~/.kube/config');
      throw new ObservationError(cluster, 'kubeconfig', `kubeconfig ${where} has no context "${access.context}"`);
    }
    kc.setCurrentContext(access.context);
    return new ClusterClient(cluster, kc, options);
  }

  private readonly core: k8s.CoreV1Api;
  private readonly discovery: k8s.DiscoveryV1Api;
  private readonly custom: k8s.CustomObjectsApi;
  private readonly timeoutMs: number;
  private readonly attempts: number;
  private readonly backoffMs: number;
  private readonly pageSize: number;
  /** See {@link ClusterClientOptions.perServiceSliceLists}. */
  public readonly perServiceSliceLists: number;

  private constructor(public readonly cluster: string, kc: k8s.KubeConfig, options: ClusterClientOptions) {
    this.core = kc.makeApiClient(k8s.CoreV1Api);
    this.discovery = kc.makeApiClient(k8s.DiscoveryV1Api);
    this.custom = kc.makeApiClient(k8s.CustomObjectsApi);
    this.timeoutMs = options.requestTimeoutMs ?? 10_000;
    this.attempts = options.attempts ?? 3;
    this.backoffMs = options.backoffMs ?? 250;
    this.pageSize = options.pageSize ?? 500;
    this.perServiceSliceLists = options.perServiceSliceLists ?? 32;
  }

  /** Services in all namespaces, optionally filtered by a label selector. */
  public listServices(labelSelector?: string): Promise<k8s.V1Service[]> {
    const what = `list services in all namespaces${labelSelector ? ` with selector "${labelSelector}"` : ''}`;
    return this.paginate(what, (cont) =>
      this.core.listServiceForAllNamespaces({ labelSelector, limit: this.pageSize, _continue: cont }, this.callOptions()),
    );
  }

  /** One Service, or undefined when it does not exist. */
  public async readService(namespace: string, name: string): Promise<k8s.V1Service | undefined> {
    try {
      return await this.request(`get service ${namespace}/${name}`, () =>
        this.core.readNamespacedService({ namespace, name }, this.callOptions()),
      );
    } catch (e) {
      if (e instanceof NotFound) return undefined;
      throw e;
    }
  }

  /** One ConfigMap, or undefined when it (or its namespace) does not exist. */
  public async readConfigMap(namespace: string, name: string): Promise<k8s.V1ConfigMap | undefined> {
    try {
      return await this.request(`get configmap ${namespace}/${name}`, () =>
        this.core.readNamespacedConfigMap({ namespace, name }, this.callOptions()),
      );
    } catch (e) {
      if (e instanceof NotFound) return undefined;
      throw e;
    }
  }

  /** Names of all namespaces. */
  public listNamespaces(): Promise<k8s.V1Namespace[]> {
    return this.paginate('list namespaces', (cont) =>
      this.core.listNamespace({ limit: this.pageSize, _continue: cont }, this.callOptions()),
    );
  }

  /** EndpointSlices of one Service. */
  public listEndpointSlices(namespace: string, serviceName: string): Promise<k8s.V1EndpointSlice[]> {
    return this.paginate(`list endpointslices of service ${namespace}/${serviceName}`, (cont) =>
      this.discovery.listNamespacedEndpointSlice(
        { namespace, labelSelector: `kubernetes.io/service-name=${serviceName}`, limit: this.pageSize, _continue: cont },
        this.callOptions(),
      ),
    );
  }

  /** EndpointSlices of every Service in all namespaces (those with a `kubernetes.io/service-name` label). */
  public listAllEndpointSlices(): Promise<k8s.V1EndpointSlice[]> {
    return this.paginate('list endpointslices in all namespaces', (cont) =>
      this.discovery.listEndpointSliceForAllNamespaces({ labelSelector: 'kubernetes.io/service-name', limit: this.pageSize, _continue: cont }, this.callOptions()),
    );
  }

  /**
   * The `namespace/name` of every MCS `ServiceExport` in all namespaces, or undefined when the API
   * server does not serve the resource (its CRD is not installed: HTTP 404).
   */
  public async listServiceExports(): Promise<string[] | undefined> {
    const what = `list ${MCS_SERVICE_EXPORTS_RESOURCE}.${MCS_API_GROUP} in all namespaces`;
    try {
      const items = await this.paginate<{ metadata?: { namespace?: string; name?: string } }>(what, (cont) =>
        this.custom.listClusterCustomObject(
          { group: MCS_API_GROUP, version: MCS_SERVICE_EXPORT_VERSION, plural: MCS_SERVICE_EXPORTS_RESOURCE, limit: this.pageSize, _continue: cont },
          this.callOptions(),
        ) as Promise<Page<{ metadata?: { namespace?: string; name?: string } }>>,
      true);
      return items.map((i) => `${i.metadata?.namespace ?? ''}/${i.metadata?.name ?? ''}`);
    } catch (e) {
      if (e instanceof NotFound) return undefined;
      throw e;
    }
  }

  private callOptions(): k8s.ConfigurationOptions<k8s.ObservableMiddleware> {
    const timeoutMs = this.timeoutMs;
    return {
      middleware: [
        {
          pre: (ctx: k8s.RequestContext) => {
            ctx.setSignal(AbortSignal.timeout(timeoutMs));
            return new k8s.Observable(Promise.resolve(ctx));
          },
          post: (ctx: k8s.ResponseContext) => new k8s.Observable(Promise.resolve(ctx)),
        },
      ],
      middlewareMergeStrategy: 'append',
    };
  }

  /** All pages of a list; restarts from the beginning when the continue token has expired (HTTP 410). `passNotFound`: HTTP 404 is thrown as NotFound for the caller. */
  private async paginate<T>(what: string, fetchPage: (cont: string | undefined) => Promise<Page<T>>, passNotFound = false): Promise<T[]> {
    for (let restart = 0; ; restart++) {
      const items: T[] = [];
      let cont: string | undefined;
      try {
        do {
          const page = await this.request(what, () => fetchPage(cont));
          if (!Array.isArray(page?.items)) {
            throw new ObservationError(this.cluster, 'api-error', `${what}: the answer is not a list (does the kubeconfig's server URL name the API server itself, without a path or query?)`);
          }
          items.push(...page.items);
          cont = page.metadata?._continue || undefined;
        } while (cont);
        return items;
      } catch (e) {
        if (e instanceof Expired && restart < 3) continue;
        if (e instanceof Expired) throw new ObservationError(this.cluster, 'api-error', `${what}: the list kept expiring (HTTP 410) while paging`);
        // A list is never "not found" on a conforming server; one without the resource's API (no discovery.k8s.io/v1 before Kubernetes 1.21) says so.
        if (e instanceof NotFound && passNotFound) throw e;
        if (e instanceof NotFound) throw new ObservationError(this.cluster, 'api-error', `${what}: HTTP 404 (does this API server serve the resource? mirrorc needs Kubernetes 1.21 or later)`);
        throw e;
      }
    }
  }

  /** One request with retries on transient failures, errors mapped to ObservationError. */
  private async request<T>(what: string, call: () => Promise<T>): Promise<T> {
    let lastError: unknown;
    for (let attempt = 1; attempt <= this.attempts; attempt++) {
      try {
        return await call();
      } catch (e) {
        lastError = e;
        const code = httpCode(e);
        if (code === 404) throw new NotFound();
        if (code === 410) throw new Expired();
        if (!isTransient(e) || attempt === this.attempts) break;
        await sleep(this.backoffMs * 2 ** (attempt - 1));
      }
    }
    throw this.toObservationError(what, lastError);
  }

  private toObservationError(what: string, e: unknown): ObservationError {
    const code = httpCode(e);
    if (code === 401) return new ObservationError(this.cluster, 'unauthorized', `${what}: unauthorized (HTTP 401)`);
    if (code === 403) return new ObservationError(this.cluster, 'forbidden', `${what}: permission denied: ${statusMessage(e) ?? 'forbidden'}`);
    if (code !== undefined) return new ObservationError(this.cluster, 'api-error', `${what}: HTTP ${code}${statusMessage(e) ? `: ${statusMessage(e)}` : ''}`);
    if (isAbort(e)) return new ObservationError(this.cluster, 'unreachable', `${what}: no answer within ${this.timeoutMs} ms`);
    const net = (e as { code?: string })?.code;
    const msg = e instanceof Error ? e.message : String(e);
    return new ObservationError(this.cluster, 'unreachable', `${what}: ${net ? `${net}: ` : ''}${msg.replace(/\s+/g, ' ')}`);
  }
}

class NotFound extends Error {}
class Expired extends Error {}

function httpCode(e: unknown): number | undefined {
  return e instanceof k8s.ApiException ? e.code : undefined;
}

function isAbort(e: unknown): boolean {
  return (e as { name?: string })?.name === 'AbortError' || (e as { type?: string })?.type === 'aborted';
}

function isTransient(e: unknown): boolean {
  const code = httpCode(e);
  if (code !== undefined) return TRANSIENT_HTTP.has(code);
  if (isAbort(e)) return true;
  const net = (e as { code?: string; errno?: string })?.code ?? (e as { errno?: string })?.errno;
  return net !== undefined && TRANSIENT_NET.has(net);
}

/** The `message` of a Kubernetes Status body, if the error carries one. */
function statusMessage(e: unknown): string | undefined {
  if (!(e instanceof k8s.ApiException)) return undefined;
  const body: unknown = e.body;
  try {
    const parsed = typeof body === 'string' ? JSON.parse(body) : body;
    return typeof parsed?.message === 'string' ? parsed.message : undefined;
  } catch {
    return undefined;
  }
}
