/**
 * The HTTP transport of the cluster client: client-node's own request (its URL, headers and the
 * agent that carries the kubeconfig's TLS and proxy settings), sent with Node's http/https and a
 * body read under a byte limit. client-node's default transport buffers a whole body before
 * anything can count it; this one counts bytes as they arrive (after gzip) and destroys the
 * socket when the limit is passed or the signal aborts, so neither a huge answer nor a stalled
 * or trickling server can outlast the observation budget. With `json` limits, every chunk also goes
 * through a {@link JsonBudgetScanner} as it arrives: an answer that holds too many values or items,
 * nests too deep or carries too long a string is cut off the same way, before anything parses it.
 */
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { Readable } from 'node:stream';
import { createGunzip, createInflate } from 'node:zlib';
import * as k8s from '@kubernetes/client-node';
import { JsonBudgetScanner, type JsonScanLimits } from './json-budget-scanner.js';

/** A response body passed its byte limit and was aborted. */
export class ResponseTooLargeError extends Error {
  constructor(public readonly limitBytes: number) {
    super(`the answer passed ${limitBytes} bytes and was cut off`);
    this.name = 'ResponseTooLargeError';
  }
}

/** What one body held. */
export interface BodyCounts {
  readonly bytes: number;
  /** JSON values (see {@link JsonScanLimits.maxValues}). */
  readonly values: number;
  /** Elements of a list's `items`. */
  readonly items: number;
}

/** Limits of one request. */
export interface BoundedRequestLimits {
  /** Most bytes of the (decompressed) body read. */
  readonly maxBytes: number;
  /** Aborts the request, and the socket, wherever it is (connecting, waiting, reading). */
  readonly signal: AbortSignal;
  /**
   * Fails the request (a `TimeoutError`), and destroys the socket, when it has not ended this many
   * milliseconds after it was sent. A timer of the request's own: not an `AbortSignal.timeout()`
   * combined with `AbortSignal.any()`, which Node 20 may garbage-collect before it fires (nothing
   * holds the timeout signal strongly), leaving a stalled request to the observation deadline.
   * @default no timeout besides `signal`
   */
  readonly timeoutMs?: number;
  /** Counted in the (decompressed) body as it arrives; passing one fails the request with a `JsonScanLimitError`. @default bytes only */
  readonly json?: JsonScanLimits;
  /** Told the body's size, and what the scanner counted (zeros without `json`), once it was read whole. @default nothing */
  readonly onBody?: (body: BodyCounts) => void;
}

/** A client-node HTTP library that enforces `limits` on every request sent through it. */
export function boundedHttpLibrary(limits: BoundedRequestLimits): k8s.HttpLibrary {
  return k8s.wrapHttpLibrary({ send: (ctx) => send(ctx, limits) });
}

function send(ctx: k8s.RequestContext, limits: BoundedRequestLimits): Promise<k8s.ResponseContext> {
  return new Promise((resolve, reject) => {
    const { signal, maxBytes } = limits;
    if (signal.aborted) return reject(abortError(signal));
    const url = new URL(ctx.getUrl());
    const request = url.protocol === 'http:' ? httpRequest : httpsRequest;
    const body = ctx.getBody();
    let settled = false;
    let response: IncomingMessage | undefined;
    let stream: Readable | undefined;
    let timer: NodeJS.Timeout | undefined;
    const fail = (e: Error): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      signal.removeEventListener('abort', onAbort);
      stream?.destroy();
      response?.destroy();
      req.destroy();
      reject(e);
    };
    const onAbort = (): void => fail(abortError(signal));
    const req = request(url, {
      method: ctx.getHttpMethod(),
      headers: { 'accept-encoding': 'gzip, deflate', ...ctx.getHeaders() },
      agent: ctx.getAgent(),
    });
    signal.addEventListener('abort', onAbort, { once: true });
    const { timeoutMs } = limits;
    if (timeoutMs !== undefined) timer = setTimeout(() => fail(Object.assign(new Error(`no answer within ${timeoutMs} ms`), { name: 'TimeoutError' })), timeoutMs);
    req.on('error', fail);
    req.on('response', (res) => {
      response = res;
      const encoding = String(res.headers['content-encoding'] ?? '').toLowerCase();
      stream = encoding === 'gzip' ? res.pipe(createGunzip()) : encoding === 'deflate' ? res.pipe(createInflate()) : res;
      if (stream !== res) res.on('error', fail);
      const chunks: Buffer[] = [];
      let bytes = 0;
      const scanner = limits.json ? new JsonBudgetScanner(limits.json) : undefined;
      stream.on('data', (chunk: Buffer) => {
        if (settled) return;
        bytes += chunk.length;
        if (bytes > maxBytes) return fail(new ResponseTooLargeError(maxBytes));
        try {
          scanner?.write(chunk);
        } catch (e) {
          return fail(e as Error);
        }
        chunks.push(chunk);
      });
      stream.on('error', fail);
      res.on('aborted', () => fail(Object.assign(new Error('the server closed the connection mid-answer'), { code: 'ECONNRESET' })));
      stream.on('end', () => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        signal.removeEventListener('abort', onAbort);
        limits.onBody?.({ bytes, values: scanner?.values ?? 0, items: scanner?.items ?? 0 });
        const buffer = Buffer.concat(chunks, bytes);
        const headers: Record<string, string> = {};
        for (const [name, value] of Object.entries(res.headers)) if (value !== undefined) headers[name] = Array.isArray(value) ? value.join(', ') : value;
        resolve(new k8s.ResponseContext(res.statusCode ?? 0, headers, { text: async () => buffer.toString('utf8'), binary: async () => buffer }));
      });
    });
    if (typeof body === 'string') req.end(body);
    else req.end();
  });
}

function abortError(signal: AbortSignal): Error {
  const reason: unknown = signal.reason;
  if (reason instanceof Error) return reason;
  return Object.assign(new Error('aborted'), { name: 'AbortError' });
}
