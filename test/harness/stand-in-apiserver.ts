/**
 * A stand-in kube-apiserver for misbehaviour a real one cannot produce: plain HTTP on 127.0.0.1,
 * answering the read requests mirrorc makes (Services, namespaces, EndpointSlices, one Service or
 * ConfigMap by name; ServiceExports are not served: 404, as without the CRD) from the objects a
 * test gives it, with real `limit`/`continue` paging, unless the cluster is told to misbehave:
 *
 * - `endless-continue`: every Services page carries a continue token, forever;
 * - `growing-pages`: ... and each page is bigger than the one before (fat annotations);
 * - `huge-page`: one page of `items` objects (Services, or namespaces);
 * - `trickle`: a Services list answers its headers, then one byte at a time, never finishing;
 * - `stall`: a Services list is accepted and never answered;
 * - `huge-trust-bundle`: the trust roots ConfigMap holds `blocks` garbage PEM blocks;
 * - `worst-answer`: one Services page of some 60 MB (under the default byte budget) built to cost
 *   the most memory to parse: {@link WorstAnswer}. It is generated as the client reads it, and
 *   generation stops when the client closes the connection.
 *
 * The outcome of a test never depends on this server's speed: trickle and stall never finish, so
 * only the client's deadline can end them. It counts requests and open connections, so a test can
 * poll until the client has let go of every socket.
 */
import { createServer, type Server, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** How one stand-in cluster misbehaves. */
export type Misbehaviour =
  | { readonly kind: 'endless-continue' }
  | { readonly kind: 'growing-pages' }
  | { readonly kind: 'huge-page'; readonly items: number; readonly list: 'services' | 'namespaces' }
  | { readonly kind: 'trickle' }
  | { readonly kind: 'stall' }
  | { readonly kind: 'huge-trust-bundle'; readonly blocks: number }
  | { readonly kind: 'worst-answer'; readonly shape: WorstAnswer };

/**
 * The shapes of `worst-answer`, each some 60 MB:
 * - `tiny-items`: 20 million `{}` items;
 * - `deep-nesting`: one item whose label value is 30 million arrays, each inside the one before;
 * - `huge-string`: one item with a 60 MB annotation value;
 * - `many-keys`: one item with 6 million labels (distinct keys).
 */
export type WorstAnswer = 'tiny-items' | 'deep-nesting' | 'huge-string' | 'many-keys';

/** Head, repeated unit (and how often), and tail of each worst answer. */
function worstAnswer(shape: WorstAnswer): { head: string; unit: (i: number) => string; count: number; tail: string } {
  const list = '{"kind":"ServiceList","apiVersion":"v1","metadata":{"resourceVersion":"1"},"items":[';
  const item = '{"metadata":{"namespace":"default","name":"worst","labels":{"mirror.linkerd.io/exported":"true"}';
  switch (shape) {
    case 'tiny-items': return { head: `${list}{}`, unit: () => ',{}', count: 20_000_000, tail: ']}' };
    case 'deep-nesting': return { head: `${list}${item},"annotations":{"a":`, unit: () => '['.repeat(1000), count: 30_000, tail: `${']'.repeat(30_000_000)}}}]}` };
    case 'huge-string': return { head: `${list}${item},"annotations":{"a":"`, unit: () => 'x'.repeat(1000), count: 60_000, tail: '"}}}]}' };
    case 'many-keys': return { head: `${list}{"metadata":{"namespace":"default","name":"worst","labels":{"mirror.linkerd.io/exported":"true"`, unit: (i) => `,"${i.toString(36)}":""`, count: 6_000_000, tail: '}}}]}' };
  }
}

/** Writes a worst answer in 1 MiB chunks as the socket drains, until it is written or the client closes the connection. */
async function writeWorst(res: ServerResponse, shape: WorstAnswer): Promise<void> {
  const { head, unit, count, tail } = worstAnswer(shape);
  res.writeHead(200, { 'content-type': 'application/json' });
  let pending = head;
  for (let i = 0; i <= count && !res.destroyed; i++) {
    if (i < count) pending += unit(i);
    else pending += tail;
    if (pending.length < 1 << 20 && i < count) continue;
    for (let j = 0; j < pending.length && !res.destroyed; j += 1 << 20) {
      if (!res.write(pending.slice(j, j + (1 << 20)))) await drained(res);
    }
    pending = '';
  }
  res.end();
}

function drained(res: ServerResponse): Promise<void> {
  return new Promise<void>((r) => {
    const done = (): void => { res.off('drain', done); res.off('close', done); r(); };
    res.on('drain', done);
    res.on('close', done);
  });
}

/** What one stand-in cluster holds. */
export interface StandInCluster {
  readonly name: string;
  /** Its Services (lists filter them by equality label selectors). */
  readonly services: readonly unknown[];
  readonly namespaces: readonly string[];
  /** How it misbehaves. @default it answers like a healthy API server */
  readonly misbehave?: Misbehaviour;
}

/** One running stand-in cluster. */
export interface StandInServer {
  readonly name: string;
  readonly port: number;
  /** Requests received so far. */
  requests(): number;
  /** TCP connections open now. */
  openConnections(): number;
}

/** Running stand-ins and a kubeconfig with one context per cluster name. */
export interface StandInFleet {
  readonly kubeconfig: string;
  readonly servers: readonly StandInServer[];
  server(name: string): StandInServer;
  close(): Promise<void>;
}

interface Meta {
  namespace?: string;
  name?: string;
  labels?: Record<string, string>;
}
const meta = (o: unknown): Meta => (o as { metadata?: Meta }).metadata ?? {};

function listJson(kind: string, items: readonly unknown[], cont?: string): string {
  return JSON.stringify({ kind, apiVersion: 'v1', metadata: { resourceVersion: '1', ...(cont ? { continue: cont } : {}) }, items });
}

/** A page of `items` honouring `limit` and a numeric `continue` offset. */
function page(kind: string, items: readonly unknown[], url: URL): string {
  const limit = Number(url.searchParams.get('limit') ?? '0') || items.length;
  const offset = Number(url.searchParams.get('continue') ?? '0') || 0;
  const next = offset + limit < items.length ? String(offset + limit) : undefined;
  return listJson(kind, items.slice(offset, offset + limit), next);
}

function fatService(i: number, annotationBytes: number): unknown {
  return {
    metadata: { namespace: 'default', name: `fat-${i}`, labels: { 'mirror.linkerd.io/exported': 'true' }, annotations: { 'example.com/padding': 'x'.repeat(annotationBytes) } },
    spec: { type: 'ClusterIP', clusterIP: '10.0.0.1', ports: [{ name: 'http', protocol: 'TCP', port: 80 }] },
  };
}

/** Writes `body` in chunks, waiting for the socket to drain (a large page never sits whole in a buffer twice). */
async function writeChunked(res: ServerResponse, body: string): Promise<void> {
  const chunk = 1 << 20;
  for (let i = 0; i < body.length && !res.destroyed; i += chunk) {
    if (!res.write(body.slice(i, i + chunk))) await drained(res);
  }
  res.end();
}

function serve(cluster: StandInCluster, counters: { requests: number }, trickles: Set<NodeJS.Timeout>): Server {
  const bad = cluster.misbehave;
  return createServer((req, res) => {
    counters.requests++;
    const url = new URL(req.url ?? '/', 'http://stand-in');
    const parts = url.pathname.split('/').filter((p) => p !== '');
    const send = (status: number, body: string): void => {
      res.writeHead(status, { 'content-type': 'application/json' });
      void writeChunked(res, body);
    };
    const notFound = (): void => send(404, JSON.stringify({ kind: 'Status', apiVersion: 'v1', status: 'Failure', reason: 'NotFound', code: 404, message: 'not found' }));

    if (url.pathname === '/api/v1/services') {
      if (bad?.kind === 'stall') return; // accepted, never answered
      if (bad?.kind === 'trickle') {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.write('{"kind":"ServiceList","apiVersion":"v1","metadata":{},"items":[');
        const timer = setInterval(() => (res.destroyed ? clearInterval(timer) : res.write(' ')), 50);
        trickles.add(timer);
        res.on('close', () => { clearInterval(timer); trickles.delete(timer); });
        return;
      }
      const n = Number(url.searchParams.get('continue') ?? '0') || 0;
      if (bad?.kind === 'endless-continue') return send(200, listJson('ServiceList', [], `page-${n + 1}`));
      // Page n carries n + 1 services of 64 KiB each: every page bigger than the last, forever.
      if (bad?.kind === 'growing-pages') return send(200, listJson('ServiceList', Array.from({ length: n + 1 }, (_, i) => fatService(i, 64 * 1024)), String(n + 1)));
      if (bad?.kind === 'worst-answer') return void writeWorst(res, bad.shape);
      if (bad?.kind === 'huge-page' && bad.list === 'services') {
        return send(200, listJson('ServiceList', Array.from({ length: bad.items }, (_, i) => ({ metadata: { namespace: 'default', name: `s-${i}` } }))));
      }
      const wanted = (url.searchParams.get('labelSelector') ?? '').split(',').filter((r) => r !== '').map((r) => r.split('=') as [string, string]);
      return send(200, page('ServiceList', cluster.services.filter((svc) => wanted.every(([k, v]) => meta(svc).labels?.[k] === v)), url));
    }
    if (url.pathname === '/api/v1/namespaces') {
      if (bad?.kind === 'huge-page' && bad.list === 'namespaces') {
        return send(200, listJson('NamespaceList', Array.from({ length: bad.items }, (_, i) => ({ metadata: { name: `ns-${i}` } }))));
      }
      return send(200, page('NamespaceList', cluster.namespaces.map((name) => ({ metadata: { name } })), url));
    }
    // /api/v1/namespaces/<ns>/services/<name>
    if (parts.length === 6 && parts[0] === 'api' && parts[2] === 'namespaces' && parts[4] === 'services') {
      const found = cluster.services.find((s) => meta(s).namespace === decodeURIComponent(parts[3]!) && meta(s).name === decodeURIComponent(parts[5]!));
      return found ? send(200, JSON.stringify(found)) : notFound();
    }
    // /api/v1/namespaces/<ns>/configmaps/linkerd-identity-trust-roots
    if (parts.length === 6 && parts[0] === 'api' && parts[4] === 'configmaps' && bad?.kind === 'huge-trust-bundle') {
      const block = '-----BEGIN CERTIFICATE-----\nnot a certificate\n-----END CERTIFICATE-----\n';
      return send(200, JSON.stringify({ metadata: { namespace: parts[3], name: parts[5] }, data: { 'ca-bundle.crt': block.repeat(bad.blocks) } }));
    }
    // EndpointSlices: none
    if (parts[0] === 'apis' && parts[1] === 'discovery.k8s.io' && parts.at(-1) === 'endpointslices') return send(200, listJson('EndpointSliceList', []));
    return notFound();
  });
}

/** Starts one stand-in per cluster on 127.0.0.1 and writes a kubeconfig for them into `dir`. */
export async function startStandInFleet(dir: string, clusters: readonly StandInCluster[]): Promise<StandInFleet> {
  const started: { server: Server; info: StandInServer; sockets: Set<Socket> }[] = [];
  const trickles = new Set<NodeJS.Timeout>();
  for (const cluster of clusters) {
    const counters = { requests: 0 };
    const server = serve(cluster, counters, trickles);
    const sockets = new Set<Socket>();
    server.on('connection', (s) => {
      sockets.add(s);
      s.on('close', () => sockets.delete(s));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const address = server.address();
    const port = typeof address === 'object' && address ? address.port : 0;
    started.push({ server, sockets, info: { name: cluster.name, port, requests: () => counters.requests, openConnections: () => sockets.size } });
  }
  const kubeconfig = join(dir, 'stand-in-kubeconfig.json');
  writeFileSync(kubeconfig, JSON.stringify({
    apiVersion: 'v1',
    kind: 'Config',
    clusters: started.map(({ info }) => ({ name: info.name, cluster: { server: `http://127.0.0.1:${info.port}`, 'insecure-skip-tls-verify': true } })),
    users: [{ name: 'stand-in', user: { token: 'stand-in' } }],
    contexts: started.map(({ info }) => ({ name: info.name, context: { cluster: info.name, user: 'stand-in' } })),
    'current-context': started[0]?.info.name ?? '',
  }));
  return {
    kubeconfig,
    servers: started.map((s) => s.info),
    server: (name) => started.find((s) => s.info.name === name)!.info,
    close: async () => {
      for (const t of trickles) clearInterval(t);
      await Promise.all(started.map(({ server, sockets }) => new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      })));
    },
  };
}
