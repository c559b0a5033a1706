/**
 * A read-only client for one cluster: per-request timeouts, retries with backoff on transient
 * errors only, pagination that restarts when the continue token expires, and errors mapped to
 * {@link ObservationError}. One KubeConfig per cluster, because client-node reads the *current*
 * context at request time. Every request spends the cluster's observation budget
 * (src/model/observation-budget.ts): requests, pages, items, values and bytes per list, nesting
 * and string size, counted as the bytes arrive (before anything parses them), and one deadline
 * that aborts whatever is in flight; a cluster over budget is an {@link ObservationError} of kind
 * `over-budget` naming the budget.
 */
import { homedir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import * as k8s from '@kubernetes/client-node';
import type { ClusterAccessSpec } from '../model/fleet-spec.js';
import { MCS_API_GROUP, MCS_SERVICE_EXPORT_VERSION, MCS_SERVICE_EXPORTS_RESOURCE, MCS_SERVICE_IMPORTS_RESOURCE } from '../contract/kubernetes.js';
import { DEFAULT_OBSERVATION_BUDGET, type ObservationBudgetSpec } from '../model/observation-budget.js';
import { boundedHttpLibrary, ResponseTooLargeError, type BodyCounts } from './bounded-http.js';
import { JsonScanLimitError, type JsonScanLimit } from './json-budget-scanner.js';
import { ObservationError } from './observation-error.js';

/** Tuning of a {@link ClusterClient}. */
export interface ClusterClientOptions {
  /** Client-side timeout of one HTTP request, in milliseconds. @default 10000 */
  readonly requestTimeoutMs?: number;
  /** Attempts per request, the first included, for transient errors. @default 3 */
  readonly attempts?: number;
  /** First backoff delay in milliseconds; doubles each retry. @default 250 */
  readonly backoffMs?: number;
  /** Items per page of a list, for every cluster (tests); otherwise each cluster's `observationBudget.listPageSize`. @default the budget's */
  readonly pageSize?: number;
  /** The cluster's observation budget. @default {@link DEFAULT_OBSERVATION_BUDGET} */
  readonly budget?: ObservationBudgetSpec;
  /** Up to this many services of a target, each one's EndpointSlices are listed; above it, every EndpointSlice in one list (small values exercise that path). @default 32 */
  readonly perServiceSliceLists?: number;
  /** Kubeconfig used when the cluster's access names none. @default `$KUBECONFIG`, else `~/.kube/config` */
  readonly defaultKubeconfig?: string;
}

const TRANSIENT_HTTP = new Set([408, 429, 500, 502, 503, 504]);
const TRANSIENT_NET = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH', 'ECONNABORTED']);

/**
 * One page of a list. Typed lists come through client-node's deserializer, which renames the
 * continue token to `_continue`; custom-object lists come back as the raw JSON, `continue`.
 */
interface Page<T> {
  items: T[];
  metadata?: { _continue?: string; continue?: string };
}

/** The continue token of a page, typed or raw. */
export function continueToken(page: { metadata?: { _continue?: unknown; continue?: unknown } } | undefined): string | undefined {
  const token = page?.metadata?._continue ?? page?.metadata?.continue;
  return typeof token === 'string' && token !== '' ? token : undefined;
}

/** Request options for client-node's calls: the bounded transport. */
type CallOptions = k8s.ConfigurationOptions<k8s.ObservableMiddleware>;

/** What a request's answer may still hold of its list's budget, and where what it held is counted. */
interface BodyLimit {
  readonly maxBytes: number;
  readonly maxItems: number;
  readonly maxValues: number;
  readonly onBody?: (body: BodyCounts) => void;
}

/** A cluster went over one of its observation budgets. */
export class OverBudget extends Error {
  constructor(public readonly field: keyof ObservationBudgetSpec, public readonly limit: number, detail: string) {
    super(`over its observation budget ${field} (${limit}${field.endsWith('Seconds') ? ' s' : ''}): ${detail}`);
    this.name = 'OverBudget';
  }
}

/** What one observation of a cluster (one role) has spent, and its deadline. */
class BudgetMeter {
  public requests = 0;
  private readonly controller = new AbortController();
  /** Aborted, with an {@link OverBudget} reason, when the deadline passes. */
  public readonly signal = this.controller.signal;

  constructor(public readonly budget: ObservationBudgetSpec) {
    const seconds = budget.deadlineSeconds;
    const timer = setTimeout(() => this.controller.abort(new OverBudget('deadlineSeconds', seconds, `observing it took longer than ${seconds} s (a stalled or slow API server)`)), seconds * 1000);
    timer.unref();
  }

  /** The deadline's error, when it has passed. */
  public get overDeadline(): OverBudget | undefined {
    return this.signal.aborted && this.signal.reason instanceof OverBudget ? this.signal.reason : undefined;
  }
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
  private readonly meter: BudgetMeter;

  private constructor(public readonly cluster: string, private readonly kc: k8s.KubeConfig, private readonly options: ClusterClientOptions) {
    this.core = kc.makeApiClient(k8s.CoreV1Api);
    this.discovery = kc.makeApiClient(k8s.DiscoveryV1Api);
    this.custom = kc.makeApiClient(k8s.CustomObjectsApi);
    this.timeoutMs = options.requestTimeoutMs ?? 10_000;
    this.attempts = options.attempts ?? 3;
    this.backoffMs = options.backoffMs ?? 250;
    const budget = options.budget ?? DEFAULT_OBSERVATION_BUDGET;
    this.pageSize = options.pageSize ?? budget.listPageSize;
    this.perServiceSliceLists = options.perServiceSliceLists ?? 32;
    this.meter = new BudgetMeter(budget);
  }

  /** A client of the same cluster with `budget` fresh: its deadline starts now, nothing spent yet (one per observation of one role). */
  public withBudget(budget: ObservationBudgetSpec): ClusterClient {
    return new ClusterClient(this.cluster, this.kc, { ...this.options, budget });
  }

  /** The budget this client spends. */
  public get budget(): ObservationBudgetSpec {
    return this.meter.budget;
  }

  /** Aborted when the observation deadline passes (for work besides API requests, such as the gateway probe). */
  public get deadline(): AbortSignal {
    return this.meter.signal;
  }

  /**
   * `work`, unless the deadline passes first: then an over-budget ObservationError, whatever
   * `work` is waiting for (requests in flight are aborted by the same deadline).
   */
  public async withinDeadline<T>(work: Promise<T>): Promise<T> {
    const signal = this.meter.signal;
    let onAbort: (() => void) | undefined;
    const deadline = new Promise<never>((_, reject) => {
      onAbort = () => reject(this.overBudgetError('observation', this.meter.overDeadline!));
      if (signal.aborted) onAbort();
      else signal.addEventListener('abort', onAbort, { once: true });
    });
    try {
      return await Promise.race([work, deadline]);
    } finally {
      signal.removeEventListener('abort', onAbort!);
      deadline.catch(() => {});
    }
  }

  /** Services in all namespaces, optionally filtered by a label selector. */
  public listServices(labelSelector?: string): Promise<k8s.V1Service[]> {
    const what = `list services in all namespaces${labelSelector ? ` with selector "${labelSelector}"` : ''}`;
    return this.paginate(what, (cont, opts) =>
      this.core.listServiceForAllNamespaces({ labelSelector, limit: this.pageSize, _continue: cont }, opts),
    );
  }

  /** One Service, or undefined when it does not exist. */
  public async readService(namespace: string, name: string): Promise<k8s.V1Service | undefined> {
    try {
      return await this.request(`get service ${namespace}/${name}`, (opts) =>
        this.core.readNamespacedService({ namespace, name }, opts),
      );
    } catch (e) {
      if (e instanceof NotFound) return undefined;
      throw e;
    }
  }

  /** One ConfigMap, or undefined when it (or its namespace) does not exist. */
  public async readConfigMap(namespace: string, name: string): Promise<k8s.V1ConfigMap | undefined> {
    try {
      return await this.request(`get configmap ${namespace}/${name}`, (opts) =>
        this.core.readNamespacedConfigMap({ namespace, name }, opts),
      );
    } catch (e) {
      if (e instanceof NotFound) return undefined;
      throw e;
    }
  }

  /** Names of all namespaces. */
  public listNamespaces(): Promise<k8s.V1Namespace[]> {
    return this.paginate('list namespaces', (cont, opts) =>
      this.core.listNamespace({ limit: this.pageSize, _continue: cont }, opts),
    );
  }

  /** EndpointSlices of one Service. */
  public listEndpointSlices(namespace: string, serviceName: string): Promise<k8s.V1EndpointSlice[]> {
    return this.paginate(`list endpointslices of service ${namespace}/${serviceName}`, (cont, opts) =>
      this.discovery.listNamespacedEndpointSlice(
        { namespace, labelSelector: `kubernetes.io/service-name=${serviceName}`, limit: this.pageSize, _continue: cont },
        opts,
      ),
    );
  }

  /** EndpointSlices of every Service in all namespaces (those with a `kubernetes.io/service-name` label). */
  public listAllEndpointSlices(): Promise<k8s.V1EndpointSlice[]> {
    return this.paginate('list endpointslices in all namespaces', (cont, opts) =>
      this.discovery.listEndpointSliceForAllNamespaces({ labelSelector: 'kubernetes.io/service-name', limit: this.pageSize, _continue: cont }, opts),
    );
  }

  /**
   * The `namespace/name` of every MCS `ServiceExport` in all namespaces, or undefined when the API
   * server does not serve the resource (its CRD is not installed: HTTP 404).
   */
  public async listServiceExports(): Promise<string[] | undefined> {
    const what = `list ${MCS_SERVICE_EXPORTS_RESOURCE}.${MCS_API_GROUP} in all namespaces`;
    try {
      // The raw JSON: its continue token is `metadata.continue` (see continueToken).
      const items = await this.paginate<{ metadata?: { namespace?: string; name?: string } }>(what, (cont, opts) =>
        this.custom.listClusterCustomObject(
          { group: MCS_API_GROUP, version: MCS_SERVICE_EXPORT_VERSION, plural: MCS_SERVICE_EXPORTS_RESOURCE, limit: this.pageSize, _continue: cont },
          opts,
        ) as Promise<Page<{ metadata?: { namespace?: string; name?: string } }>>,
      true);
      return items.map((i) => `${i.metadata?.namespace ?? ''}/${i.metadata?.name ?? ''}`);
    } catch (e) {
      if (e instanceof NotFound) return undefined;
      throw e;
    }
  }

  /**
   * Every MCS `ServiceImport` in all namespaces (`namespace`, `name`, and its labels), or undefined
   * when the API server does not serve the resource (its CRD is not installed: HTTP 404).
   */
  public async listServiceImports(): Promise<{ namespace: string; name: string; labels: Record<string, string> }[] | undefined> {
    const what = `list ${MCS_SERVICE_IMPORTS_RESOURCE}.${MCS_API_GROUP} in all namespaces`;
    type Item = { metadata?: { namespace?: string; name?: string; labels?: Record<string, string> } };
    try {
      const items = await this.paginate<Item>(what, (cont, opts) =>
        this.custom.listClusterCustomObject(
          { group: MCS_API_GROUP, version: MCS_SERVICE_EXPORT_VERSION, plural: MCS_SERVICE_IMPORTS_RESOURCE, limit: this.pageSize, _continue: cont },
          opts,
        ) as Promise<Page<Item>>,
      true);
      return items.map((i) => ({ namespace: i.metadata?.namespace ?? '', name: i.metadata?.name ?? '', labels: i.metadata?.labels ?? {} }));
    } catch (e) {
      if (e instanceof NotFound) return undefined;
      throw e;
    }
  }

  /**
   * The objects of a custom resource in one namespace with a label selector, as raw JSON, or
   * undefined when the API server does not serve the resource (its CRD is not installed: HTTP 404).
   */
  public async listNamespacedCustomObjects(resource: { readonly group: string; readonly version: string; readonly plural: string }, namespace: string, labelSelector: string): Promise<Record<string, unknown>[] | undefined> {
    const what = `list ${resource.plural}.${resource.group} in namespace ${namespace} with selector "${labelSelector}"`;
    try {
      return await this.paginate<Record<string, unknown>>(what, (cont, opts) =>
        this.custom.listNamespacedCustomObject(
          { group: resource.group, version: resource.version, namespace, plural: resource.plural, labelSelector, limit: this.pageSize, _continue: cont },
          opts,
        ) as Promise<Page<Record<string, unknown>>>,
      true);
    } catch (e) {
      if (e instanceof NotFound) return undefined;
      throw e;
    }
  }

  /** The bounded transport for one attempt: the deadline and the per-request timeout abort it, the body is read and scanned under `limit`. */
  private callOptions(limit: BodyLimit): CallOptions {
    const { maxNestingDepth, maxStringBytes } = this.meter.budget;
    const json = { maxItems: limit.maxItems, maxValues: limit.maxValues, maxDepth: maxNestingDepth, maxTokenBytes: maxStringBytes };
    return { httpApi: boundedHttpLibrary({ signal: this.meter.signal, timeoutMs: this.timeoutMs, maxBytes: limit.maxBytes, json, ...(limit.onBody ? { onBody: limit.onBody } : {}) }) };
  }

  /** The whole budget of one list (or get), nothing spent. */
  private freshLimit(): BodyLimit {
    const { maxBytesPerList, maxItemsPerList, maxValuesPerList } = this.meter.budget;
    return { maxBytes: maxBytesPerList, maxItems: maxItemsPerList, maxValues: maxValuesPerList };
  }

  /**
   * All pages of a list; restarts from the beginning when the continue token has expired (HTTP 410).
   * Pages, and the items, values and bytes of every page, are counted against the budget as they
   * arrive: a page is cut off mid-stream, before it is parsed, when it would pass what is left. `passNotFound`: HTTP 404
   * is thrown as NotFound for the caller.
   */
  private async paginate<T>(what: string, fetchPage: (cont: string | undefined, options: CallOptions) => Promise<Page<T>>, passNotFound = false): Promise<T[]> {
    const budget = this.meter.budget;
    for (let restart = 0; ; restart++) {
      const items: T[] = [];
      let cont: string | undefined;
      let pages = 0;
      let bytes = 0;
      let values = 0;
      try {
        do {
          if (++pages > budget.maxPagesPerList) {
            throw this.overBudgetError(what, new OverBudget('maxPagesPerList', budget.maxPagesPerList, `the list did not end within ${budget.maxPagesPerList} pages (the API server kept answering with a continue token)`));
          }
          const left: BodyLimit = {
            maxBytes: budget.maxBytesPerList - bytes,
            maxItems: budget.maxItemsPerList - items.length,
            maxValues: budget.maxValuesPerList - values,
            onBody: (body) => {
              bytes += body.bytes;
              values += body.values;
            },
          };
          const page = await this.request(what, (opts) => fetchPage(cont, opts), left);
          if (!Array.isArray(page?.items)) {
            throw new ObservationError(this.cluster, 'api-error', `${what}: the answer is not a list (does the kubeconfig's server URL name the API server itself, without a path or query?)`);
          }
          // Counted while the page arrived (an `items` spelled so that the scanner missed it still ends here).
          if (items.length + page.items.length > budget.maxItemsPerList) throw this.overBudgetError(what, this.overScanLimit('maxItems'));
          // One at a time: a spread of a page into push() overflows the stack at some 100,000 items.
          for (const item of page.items) items.push(item);
          cont = continueToken(page);
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

  /** One request with retries on transient failures, errors mapped to ObservationError; each attempt spends the budget. */
  private async request<T>(what: string, call: (options: CallOptions) => Promise<T>, limit: BodyLimit = this.freshLimit()): Promise<T> {
    const budget = this.meter.budget;
    let lastError: unknown;
    for (let attempt = 1; attempt <= this.attempts; attempt++) {
      if (this.meter.overDeadline) throw this.overBudgetError(what, this.meter.overDeadline);
      if (++this.meter.requests > budget.maxRequests) {
        throw this.overBudgetError(what, new OverBudget('maxRequests', budget.maxRequests, `observing it needed more than ${budget.maxRequests} API requests`));
      }
      try {
        return await call(this.callOptions(limit));
      } catch (e) {
        lastError = e;
        if (this.meter.overDeadline) throw this.overBudgetError(what, this.meter.overDeadline);
        if (e instanceof ResponseTooLargeError) {
          throw this.overBudgetError(what, new OverBudget('maxBytesPerList', budget.maxBytesPerList, `the answer passed ${budget.maxBytesPerList} bytes and was cut off`));
        }
        if (e instanceof JsonScanLimitError) throw this.overBudgetError(what, this.overScanLimit(e.limit));
        const code = httpCode(e);
        if (code === 404) throw new NotFound();
        if (code === 410) throw new Expired();
        if (!isTransient(e) || attempt === this.attempts) break;
        await sleep(this.backoffMs * 2 ** (attempt - 1), undefined, { signal: this.meter.signal }).catch(() => {});
      }
    }
    throw this.toObservationError(what, lastError);
  }

  /** The budget behind a limit of the scanner, with the list-wide value (the scanner saw what was left of it). */
  private overScanLimit(limit: JsonScanLimit): OverBudget {
    const b = this.meter.budget;
    switch (limit) {
      case 'maxItems': return new OverBudget('maxItemsPerList', b.maxItemsPerList, `the list holds more than ${b.maxItemsPerList} items`);
      case 'maxValues': return new OverBudget('maxValuesPerList', b.maxValuesPerList, `more than ${b.maxValuesPerList} JSON values arrived (objects, arrays, strings, numbers) and the answer was cut off`);
      case 'maxDepth': return new OverBudget('maxNestingDepth', b.maxNestingDepth, `the answer nests objects and arrays more than ${b.maxNestingDepth} deep and was cut off`);
      case 'maxTokenBytes': return new OverBudget('maxStringBytes', b.maxStringBytes, `the answer holds a string or number longer than ${b.maxStringBytes} bytes and was cut off`);
    }
  }

  private overBudgetError(what: string, over: OverBudget): ObservationError {
    return new ObservationError(this.cluster, 'over-budget', `${what}: ${over.message}`);
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
  const name = (e as { name?: string })?.name;
  return name === 'AbortError' || name === 'TimeoutError' || (e as { type?: string })?.type === 'aborted';
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
