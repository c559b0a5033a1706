/**
 * Failure handling of the cluster client against local sockets that misbehave at the TCP/HTTP
 * level (no Kubernetes behaviour is imitated: these servers never answer like an API server).
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { DEFAULT_OBSERVATION_BUDGET } from '../../src/model/observation-budget.js';
import { ClusterClient } from '../../src/observe/cluster-client.js';
import { ObservationError } from '../../src/observe/observation-error.js';

function kubeconfig(dir: string, server: string): string {
  const path = join(dir, 'kubeconfig');
  writeFileSync(path, `apiVersion: v1
kind: Config
clusters:
- name: c
  cluster: { server: "${server}", insecure-skip-tls-verify: true }
users:
- name: u
  user: { token: not-a-real-token }
contexts:
- name: blackhole
  context: { cluster: c, user: u }
current-context: blackhole
`);
  return path;
}

describe('ClusterClient failures', () => {
  let server: Server;
  let port = 0;
  let connections = 0;
  const sockets: Socket[] = [];
  const dir = mkdtempSync(join(tmpdir(), 'mirrorc-client-'));

  before(async () => {
    // A TCP server that accepts connections and never answers.
    server = createServer((s) => {
      connections++;
      sockets.push(s);
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    port = (server.address() as { port: number }).port;
  });

  after(() => {
    for (const s of sockets) s.destroy();
    server.close();
    rmSync(dir, { recursive: true, force: true });
  });

  test('a server that never answers times out per request, is retried, then reported unreachable', async () => {
    // GIVEN a client with a 300 ms timeout and 2 attempts
    const client = ClusterClient.fromAccess('paris', { kubeconfig: kubeconfig(dir, `https://127.0.0.1:${port}`), context: 'blackhole' }, { requestTimeoutMs: 300, attempts: 2, backoffMs: 10 });
    connections = 0;
    // WHEN listing services
    const error = await client.listServices('a=b').then(() => undefined, (e: unknown) => e);
    // THEN it fails as unreachable, naming the cluster, the request and the timeout, after both attempts
    assert.ok(error instanceof ObservationError, String(error));
    assert.equal(error.failure, 'unreachable');
    assert.match(error.message, /cluster "paris": list services in all namespaces with selector "a=b": no answer within 300 ms/);
    assert.equal(connections, 2);
  });

  test('a request timeout fires even when garbage collection runs while the request waits (not left to the observation deadline)', async () => {
    // GIVEN a client with a 300 ms request timeout, one attempt, and an observation deadline of 20 s
    setFlagsFromString('--expose-gc');
    const gc = runInNewContext('gc') as () => void;
    const client = ClusterClient.fromAccess('paris', { kubeconfig: kubeconfig(dir, `https://127.0.0.1:${port}`), context: 'blackhole' }, {
      requestTimeoutMs: 300, attempts: 1, budget: { ...DEFAULT_OBSERVATION_BUDGET, deadlineSeconds: 20 },
    });
    // WHEN the server never answers and collections run all along (an AbortSignal.timeout() that only
    // AbortSignal.any() refers to is collected by them under Node 20, and never fires)
    const collecting = setInterval(gc, 20);
    try {
      const error = await client.listServices('a=b').then(() => undefined, (e: unknown) => e);
      // THEN the request's own timeout ends it: unreachable, not over the observation budget
      assert.ok(error instanceof ObservationError, String(error));
      assert.equal(error.failure, 'unreachable', error.message);
      assert.match(error.message, /no answer within 300 ms/);
    } finally {
      clearInterval(collecting);
    }
  });

  test('a kubeconfig without the context is a kubeconfig failure naming the context', () => {
    const path = kubeconfig(dir, 'https://127.0.0.1:1');
    assert.throws(
      () => ClusterClient.fromAccess('rome', { kubeconfig: path, context: 'rome' }),
      (e: unknown) => e instanceof ObservationError && e.failure === 'kubeconfig' && !e.kubeconfigMissing && /cluster "rome": kubeconfig .* has no context "rome"/.test(e.message),
    );
  });

  test('a missing kubeconfig file is a kubeconfig failure, not a crash', () => {
    assert.throws(
      () => ClusterClient.fromAccess('rome', { kubeconfig: join(dir, 'nope'), context: 'rome' }),
      (e: unknown) => e instanceof ObservationError && e.failure === 'kubeconfig' && e.kubeconfigMissing && /does not exist/.test(e.message),
    );
  });
});
