/**
 * A stand-in for a broken or hostile kube-apiserver: plain HTTP, answering the few read requests
 * mirrorc makes (list Services, get a Service, list namespaces, list EndpointSlices) with whatever
 * objects a test gives it, unvalidated, or with an error Status whose message the test wrote. A
 * real apiserver rejects invalid names, so this is the only way to show what mirrorc does with
 * them. No timing is involved: every answer is immediate.
 */
import { createServer, type Server } from 'node:http';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** What one stub cluster returns. */
export interface StubCluster {
  readonly name: string;
  /** Every Service of the cluster; lists filter them by equality label selectors. */
  readonly services: readonly unknown[];
  readonly namespaces: readonly string[];
  /** EndpointSlices by `namespace/service`. @default none */
  readonly endpointSlices?: Readonly<Record<string, readonly unknown[]>>;
  /** Every Services list is answered with this HTTP status and a Status body carrying `message` (a real server's text is its own, so any). @default the list */
  readonly servicesStatus?: { readonly code: number; readonly message: string };
}

/** Running stub apiservers, one per cluster, and a kubeconfig with one context per cluster name. */
export interface StubFleet {
  readonly kubeconfig: string;
  close(): Promise<void>;
}

function list(kind: string, items: readonly unknown[]): string {
  return JSON.stringify({ kind, apiVersion: 'v1', metadata: { resourceVersion: '1' }, items });
}

function serve(cluster: StubCluster): Server {
  return createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://stub');
    const parts = url.pathname.split('/').filter((p) => p !== '');
    const send = (status: number, body: string): void => {
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(body);
    };
    const notFound = (): void => send(404, JSON.stringify({ kind: 'Status', apiVersion: 'v1', status: 'Failure', reason: 'NotFound', code: 404, message: 'not found' }));
    const meta = (o: unknown): { namespace?: string; name?: string } => (o as { metadata?: { namespace?: string; name?: string } }).metadata ?? {};
    // /api/v1/services?labelSelector=k=v[,k=v] (equality selectors are all mirrorc sends by default)
    if (url.pathname === '/api/v1/services') {
      const failure = cluster.servicesStatus;
      if (failure) return send(failure.code, JSON.stringify({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: failure.message, reason: 'Forbidden', code: failure.code }));
      const wanted = (url.searchParams.get('labelSelector') ?? '').split(',').filter((r) => r !== '').map((r) => r.split('=') as [string, string]);
      const labels = (o: unknown): Record<string, string> => (o as { metadata?: { labels?: Record<string, string> } }).metadata?.labels ?? {};
      return send(200, list('ServiceList', cluster.services.filter((svc) => wanted.every(([k, v]) => labels(svc)[k] === v))));
    }
    // /api/v1/namespaces
    if (url.pathname === '/api/v1/namespaces') return send(200, list('NamespaceList', cluster.namespaces.map((name) => ({ metadata: { name } }))));
    // /api/v1/namespaces/<ns>/services/<name>
    if (parts.length === 6 && parts[0] === 'api' && parts[2] === 'namespaces' && parts[4] === 'services') {
      const found = cluster.services.find((s) => meta(s).namespace === decodeURIComponent(parts[3]!) && meta(s).name === decodeURIComponent(parts[5]!));
      return found ? send(200, JSON.stringify(found)) : notFound();
    }
    // /apis/discovery.k8s.io/v1/namespaces/<ns>/endpointslices?labelSelector=kubernetes.io/service-name=<svc>
    if (parts[0] === 'apis' && parts[1] === 'discovery.k8s.io' && parts[5] === 'endpointslices') {
      const service = (url.searchParams.get('labelSelector') ?? '').replace('kubernetes.io/service-name=', '');
      return send(200, list('EndpointSliceList', cluster.endpointSlices?.[`${decodeURIComponent(parts[4]!)}/${service}`] ?? []));
    }
    return notFound();
  });
}

/** Starts one stub per cluster on a free port and writes a kubeconfig for them into `dir`. */
export async function startStubFleet(dir: string, clusters: readonly StubCluster[]): Promise<StubFleet> {
  const servers: { name: string; server: Server; port: number }[] = [];
  for (const cluster of clusters) {
    const server = serve(cluster);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const address = server.address();
    servers.push({ name: cluster.name, server, port: typeof address === 'object' && address ? address.port : 0 });
  }
  const kubeconfig = join(dir, 'stub-kubeconfig.json');
  writeFileSync(kubeconfig, JSON.stringify({
    apiVersion: 'v1',
    kind: 'Config',
    clusters: servers.map((s) => ({ name: s.name, cluster: { server: `http://127.0.0.1:${s.port}`, 'insecure-skip-tls-verify': true } })),
    users: [{ name: 'stub', user: { token: 'stub' } }],
    contexts: servers.map((s) => ({ name: s.name, context: { cluster: s.name, user: 'stub' } })),
    'current-context': servers[0]?.name ?? '',
  }));
  return {
    kubeconfig,
    close: () => Promise.all(servers.map((s) => new Promise<void>((resolve) => s.server.close(() => resolve())))).then(() => undefined),
  };
}
