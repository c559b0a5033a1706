/**
 * flux-controller: Flux's real kustomize-controller reconciling in one cluster of a kube-fleet.
 *
 * No source-controller runs (the issue found it does not build from Go modules here). kustomize-controller needs
 * only a source object whose `status.artifact` names a tarball it can download and whose digest
 * matches, so the harness plays source-controller's part: it serves tarballs of a folder from an
 * HTTP server on 127.0.0.1 and writes the GitRepository's `status.artifact` through the status
 * subresource. Everything from there on (download, digest check, kustomize build, server-side
 * apply, inventory, prune, conditions) is the real controller.
 *
 * The controller runs with the fleet's admin identity (system:masters) in a kubeconfig holding only
 * its cluster: it has no --kubeconfig flag, so the harness sets KUBECONFIG. Binary and CRDs come
 * from `build-flux-controller.sh` (next to this file), which builds them once and caches them (or
 * uses FLUX_TEST_ASSETS).
 */
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as http from 'node:http';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import type { SuiteContext, TestContext } from 'node:test';
import { freePort, ManagedProcess, type KubeFleet } from './kube-fleet.js';

/** The controller could not be built, found or started. */
export class FluxControllerUnavailableError extends Error {
  override name = 'FluxControllerUnavailableError';
}

/** A Flux condition as the API server returns it. */
export interface FluxCondition {
  readonly type: string;
  readonly status: string;
  readonly reason?: string;
  readonly message?: string;
  readonly observedGeneration?: number;
}

/** The parts of a live Kustomization the tests read. */
export interface LiveKustomization {
  readonly metadata: { readonly name: string; readonly namespace: string; readonly generation: number };
  readonly spec: Record<string, unknown>;
  readonly status?: {
    readonly observedGeneration?: number;
    readonly lastAppliedRevision?: string;
    readonly lastAttemptedRevision?: string;
    readonly lastHandledReconcileAt?: string;
    readonly conditions?: readonly FluxCondition[];
    readonly inventory?: { readonly entries?: readonly { readonly id: string; readonly v: string }[] };
  };
}

export interface FluxControllerProps {
  /** Namespace of the controller's own objects and of the GitRepository. @default 'flux-system' */
  readonly namespace?: string;
  /** Name of the GitRepository the Kustomizations refer to. @default 'flux-system' */
  readonly sourceName?: string;
  /** Branch named in the GitRepository and in every revision. @default 'main' */
  readonly branch?: string;
}

export interface PublishOptions {
  /** Announce this digest instead of the tarball's (to see the controller refuse it). @default the tarball's sha256 */
  readonly digest?: string;
  /** Announce this revision, e.g. `main@sha1:<a real git commit of root>`. @default `<branch>@sha1:<the tarball's sha1>` */
  readonly revision?: string;
}

export interface WaitOptions {
  /** Also wait until the controller handled the reconcile request with this token ({@link FluxController.requestReconcile}). @default none */
  readonly handled?: string;
  /** Deadline in milliseconds. @default FLUX_CONTROLLER_READY_TIMEOUT_MS or 300000 */
  readonly timeoutMs?: number;
}

export interface FluxController {
  readonly cluster: string;
  /** The controller's log file (its whole run). */
  readonly logFile: string;
  /** The revision last published, e.g. `main@sha1:<40 hex>`; undefined before the first publish. */
  readonly revision: string | undefined;
  /**
   * Publishes `paths` (relative to `root`) as the GitRepository's next artifact: a deterministic
   * tarball (same files → same bytes → same revision), served on 127.0.0.1, its URL, revision and
   * sha256 digest written to `status.artifact`. Returns the revision.
   */
  publish(root: string, paths: readonly string[], options?: PublishOptions): Promise<string>;
  /** The live Kustomization `name` in the controller's namespace. */
  kustomization(name: string): Promise<LiveKustomization>;
  /**
   * Polls until Kustomization `name` has applied `revision` and is Ready=True for its current
   * generation (and, with `handled`, has handled that reconcile request); throws with its last
   * status and the controller's log tail when the deadline passes or the controller exits.
   */
  waitForReady(name: string, revision: string, options?: WaitOptions): Promise<LiveKustomization>;
  /** Polls until `done` holds for Kustomization `name`; throws like {@link waitForReady} (`what` names the wait in the message). */
  waitFor(name: string, what: string, done: (k: LiveKustomization) => boolean, timeoutMs?: number): Promise<LiveKustomization>;
  /** Asks the controller to reconcile `name` now (the `reconcile.fluxcd.io/requestedAt` annotation, as `flux reconcile` sets it). */
  requestReconcile(name: string, token: string): Promise<void>;
  /** Last `lines` lines of the controller log. */
  logTail(lines?: number): string;
  /** Stops the controller and the artifact server. Idempotent. */
  stop(): Promise<void>;
}

const HARNESS_DIR = path.dirname(fileURLToPath(import.meta.url));
const BUILD_SCRIPT = path.join(HARNESS_DIR, 'build-flux-controller.sh');
/** Deadline for the controller to start (spawn → /readyz). */
const START_TIMEOUT_MS = envInt('FLUX_CONTROLLER_START_TIMEOUT_MS', 120_000);
/** Default deadline for a Kustomization to become Ready. Generous: the machine may be loaded. */
const READY_TIMEOUT_MS = envInt('FLUX_CONTROLLER_READY_TIMEOUT_MS', 300_000);
const POLL_MS = 250;
const CONTROLLER_GOMEMLIMIT = process.env.FLUX_CONTROLLER_GOMEMLIMIT ?? '512MiB';
/** Flux API groups whose CRDs the controller needs (kustomize + every source kind). */
const KUSTOMIZATION_RESOURCE = 'kustomizations.kustomize.toolkit.fluxcd.io';
const GITREPOSITORY_RESOURCE = 'gitrepositories.source.toolkit.fluxcd.io';

function envInt(name: string, dflt: number): number {
  const v = Number(process.env[name]);
  return Number.isFinite(v) && v > 0 ? v : dflt;
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

function tail(s: string, lines: number): string {
  return s.trimEnd().split('\n').slice(-lines).join('\n');
}

/** Runs a command; resolves with stdout as bytes; rejects with stderr. */
function exec(cmd: string, args: readonly string[], opts: { cwd?: string; env?: NodeJS.ProcessEnv } = {}): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, { cwd: opts.cwd, env: opts.env ?? process.env, stdio: ['ignore', 'pipe', 'pipe'] });
    const out: Buffer[] = [];
    let err = '';
    child.stdout.on('data', (d: Buffer) => out.push(d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => { err += d; });
    child.on('error', (e) => reject(new Error(`${cmd}: ${e.message}`)));
    child.on('close', (code, signal) => {
      if (code === 0) resolve(Buffer.concat(out));
      else reject(new Error(`${cmd} ${args.join(' ')} failed (${code ?? signal}):\n${tail(err, 40)}`));
    });
  });
}

let buildPromise: Promise<string> | undefined;

/**
 * Runs build-flux-controller.sh (cached after the first build) and returns the directory holding
 * `kustomize-controller` and `crds/`. Memoised per process (a failure too).
 */
export function ensureFluxController(): Promise<string> {
  buildPromise ??= (async () => {
    const t0 = Date.now();
    const notice = setTimeout(() => {
      process.stderr.write('flux-controller: building kustomize-controller from Go modules (cached afterwards; a first build takes 5-20 minutes)…\n');
    }, 5_000);
    let stdout: string;
    try {
      stdout = (await exec('bash', [BUILD_SCRIPT])).toString('utf8');
    } catch (e) {
      throw new FluxControllerUnavailableError(`${BUILD_SCRIPT} failed after ${Math.round((Date.now() - t0) / 1000)}s: ${(e as Error).message}`);
    } finally {
      clearTimeout(notice);
    }
    const dir = stdout.trim().split('\n').pop()?.trim() ?? '';
    try {
      fs.accessSync(path.join(dir, 'kustomize-controller'), fs.constants.X_OK);
    } catch {
      throw new FluxControllerUnavailableError(`${BUILD_SCRIPT} printed "${dir}", which has no executable kustomize-controller`);
    }
    return dir;
  })();
  return buildPromise;
}

/** Serves tarballs from memory on 127.0.0.1, by URL path. */
class ArtifactServer {
  private readonly files = new Map<string, Buffer>();
  private server: http.Server | undefined;
  private port = 0;
  /** Every path requested, in order (for diagnostics). */
  readonly requests: string[] = [];

  async start(): Promise<void> {
    const server = http.createServer((req, res) => {
      const url = req.url ?? '';
      this.requests.push(url);
      const body = this.files.get(url);
      if (!body || req.method !== 'GET') {
        res.writeHead(404).end();
        return;
      }
      res.writeHead(200, { 'content-type': 'application/gzip', 'content-length': body.length }).end(body);
    });
    this.port = await freePort();
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen({ host: '127.0.0.1', port: this.port, exclusive: true }, () => resolve());
    });
    this.server = server;
  }

  /** Serves `body` at `urlPath`; returns its URL. */
  put(urlPath: string, body: Buffer): string {
    this.files.set(urlPath, body);
    return `http://127.0.0.1:${this.port}${urlPath}`;
  }

  async stop(): Promise<void> {
    const server = this.server;
    this.server = undefined;
    if (!server) return;
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
}

/** A tarball of `paths` under `root` with fixed owners, modes as on disk, mtime 0, sorted names: same files → same bytes. */
async function deterministicTarball(root: string, paths: readonly string[]): Promise<Buffer> {
  const tar = await exec('tar', ['--sort=name', '--mtime=@0', '--owner=0', '--group=0', '--numeric-owner', '--format=gnu', '-cf', '-', '--', ...paths], { cwd: root });
  return gzipSync(tar, { level: 6 });
}

class Controller implements FluxController {
  private stopping: Promise<void> | undefined;
  private published: string | undefined;

  constructor(
    readonly cluster: string,
    private readonly fleet: KubeFleet,
    private readonly process: ManagedProcess,
    private readonly server: ArtifactServer,
    private readonly namespace: string,
    private readonly sourceName: string,
    private readonly branch: string,
  ) {}

  get logFile(): string {
    return this.process.logFile;
  }

  get revision(): string | undefined {
    return this.published;
  }

  private kubectl(args: string[], input?: string): Promise<string> {
    return this.fleet.kubectl(this.cluster, args, input);
  }

  async publish(root: string, paths: readonly string[], options: PublishOptions = {}): Promise<string> {
    const body = await deterministicTarball(root, paths);
    const sha256 = createHash('sha256').update(body).digest('hex');
    // A Git source's revision is `<branch>@sha1:<commit>`: the tarball's sha1 stands in for the commit.
    const revision = options.revision ?? `${this.branch}@sha1:${createHash('sha1').update(body).digest('hex')}`;
    const artifactPath = `gitrepository/${this.namespace}/${this.sourceName}/${sha256}.tar.gz`;
    const url = this.server.put(`/${artifactPath}`, body);
    const now = new Date().toISOString().replace(/\.\d+Z$/, 'Z');
    const generation = Number(await this.kubectl(['get', 'gitrepository', this.sourceName, '-n', this.namespace, '-o', 'jsonpath={.metadata.generation}']));
    await this.kubectl(['patch', 'gitrepository', this.sourceName, '-n', this.namespace, '--subresource=status', '--type=merge', '-p', JSON.stringify({
      status: {
        observedGeneration: generation,
        artifact: { path: artifactPath, url, revision, digest: options.digest ?? `sha256:${sha256}`, lastUpdateTime: now, size: body.length },
        conditions: [{ type: 'Ready', status: 'True', reason: 'Succeeded', message: `stored artifact for revision '${revision}'`, observedGeneration: generation, lastTransitionTime: now }],
      },
    })]);
    this.published = revision;
    return revision;
  }

  async kustomization(name: string): Promise<LiveKustomization> {
    return JSON.parse(await this.kubectl(['get', KUSTOMIZATION_RESOURCE, name, '-n', this.namespace, '-o', 'json'])) as LiveKustomization;
  }

  waitForReady(name: string, revision: string, options: WaitOptions = {}): Promise<LiveKustomization> {
    const what = `apply ${revision}${options.handled ? ` (request ${options.handled})` : ''} and become Ready`;
    return this.waitFor(name, what, (k) => {
      const ready = k.status?.conditions?.find((c) => c.type === 'Ready');
      return ready?.status === 'True' &&
        k.status?.lastAppliedRevision === revision &&
        k.status.observedGeneration === k.metadata.generation &&
        (options.handled === undefined || k.status.lastHandledReconcileAt === options.handled);
    }, options.timeoutMs);
  }

  async waitFor(name: string, what: string, done: (k: LiveKustomization) => boolean, timeoutMs = READY_TIMEOUT_MS): Promise<LiveKustomization> {
    const deadline = Date.now() + timeoutMs;
    let last: LiveKustomization | undefined;
    let lastError = '';
    for (;;) {
      if (!this.process.running) {
        throw new FluxControllerUnavailableError(`kustomize-controller in ${this.cluster} exited (${JSON.stringify(this.process.lastExit)}):\n${this.logTail(40)}`);
      }
      try {
        last = await this.kustomization(name);
        if (done(last)) return last;
      } catch (e) {
        lastError = (e as Error).message;
      }
      if (Date.now() > deadline) {
        throw new Error(
          `Kustomization ${this.namespace}/${name} in ${this.cluster} did not ${what} within ${Math.round(timeoutMs / 1000)}s; ` +
          `last status: ${JSON.stringify(last?.status ?? lastError)}\nartifact requests: ${this.server.requests.slice(-5).join(', ')}\n--- ${this.logFile} (tail) ---\n${this.logTail(30)}`,
        );
      }
      await sleep(POLL_MS);
    }
  }

  async requestReconcile(name: string, token: string): Promise<void> {
    await this.kubectl(['annotate', KUSTOMIZATION_RESOURCE, name, '-n', this.namespace, '--overwrite', `reconcile.fluxcd.io/requestedAt=${token}`]);
  }

  logTail(lines = 40): string {
    return this.process.tail(lines);
  }

  stop(): Promise<void> {
    this.stopping ??= (async () => {
      await this.process.stop().catch(() => undefined);
      await this.server.stop().catch(() => undefined);
    })();
    return this.stopping;
  }
}

/** Applies every CRD in `dir` and waits until the API server serves each one. */
async function installCrds(fleet: KubeFleet, cluster: string, dir: string): Promise<void> {
  const files = fs.readdirSync(dir).filter((f) => f.endsWith('.yaml')).sort();
  for (const f of files) await fleet.kubectl(cluster, ['apply', '--server-side', '--field-manager=flux-controller-harness', '-f', path.join(dir, f)]);
  const names = files.map((f) => f.replace(/\.yaml$/, '').split('_').reverse().join('.'));
  // Polled rather than `kubectl wait`, which fails while a new CRD has no status conditions yet.
  const deadline = Date.now() + START_TIMEOUT_MS;
  for (const name of names) {
    for (;;) {
      const conditions = JSON.parse(await fleet.kubectl(cluster, ['get', 'crd', name, '-o', 'jsonpath={.status.conditions}']) || '[]') as FluxCondition[];
      if (conditions.some((c) => c.type === 'Established' && c.status === 'True')) break;
      if (Date.now() > deadline) throw new FluxControllerUnavailableError(`CRD ${name} in ${cluster} never became Established`);
      await sleep(POLL_MS);
    }
  }
  for (const needed of [KUSTOMIZATION_RESOURCE, GITREPOSITORY_RESOURCE]) {
    if (!names.includes(needed)) throw new FluxControllerUnavailableError(`${dir} has no CRD for ${needed}`);
  }
}

/**
 * Installs the Flux CRDs in `cluster`, creates the namespace and the GitRepository (no artifact
 * yet), and starts kustomize-controller against it. Resolves once the controller reports ready.
 */
export async function startFluxController(fleet: KubeFleet, cluster: string, props: FluxControllerProps = {}): Promise<FluxController> {
  const namespace = props.namespace ?? 'flux-system';
  const sourceName = props.sourceName ?? 'flux-system';
  const branch = props.branch ?? 'main';
  const assets = await ensureFluxController();
  await installCrds(fleet, cluster, path.join(assets, 'crds'));
  await fleet.kubectl(cluster, ['apply', '-f', '-'], JSON.stringify({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: namespace } }));
  await fleet.kubectl(cluster, ['apply', '-f', '-'], JSON.stringify({
    apiVersion: 'source.toolkit.fluxcd.io/v1',
    kind: 'GitRepository',
    metadata: { name: sourceName, namespace },
    // Nothing clones this URL: no source-controller runs; the harness writes the artifact.
    spec: { url: 'https://git.invalid/fleet.git', interval: '1h', ref: { branch } },
  }));

  // A kubeconfig with only this cluster: the controller uses its current context.
  const dir = fs.mkdtempSync(path.join(fleet.dir, `flux-${cluster}-`));
  const kubeconfig = path.join(dir, 'kubeconfig.yaml');
  fs.writeFileSync(kubeconfig, await fleet.kubectl(cluster, ['config', 'view', '--minify', '--flatten', '--raw']), { mode: 0o600 });

  const server = new ArtifactServer();
  await server.start();
  const [metricsPort, healthPort] = [await freePort(), await freePort()];
  const env: NodeJS.ProcessEnv = { ...process.env, KUBECONFIG: kubeconfig, RUNTIME_NAMESPACE: namespace, GOMEMLIMIT: CONTROLLER_GOMEMLIMIT };
  const proc = new ManagedProcess(`kustomize-controller (${cluster})`, path.join(assets, 'kustomize-controller'), [
    `--metrics-addr=127.0.0.1:${metricsPort}`,
    `--health-addr=127.0.0.1:${healthPort}`,
    '--events-addr=',
    '--log-level=debug',
    '--log-encoding=console',
    '--concurrent=2',
    '--http-retry=2',
    // Delivery units wait for each other (dependsOn): re-check a waiting one every 2 s, not every 30 s.
    '--requeue-dependency=2s',
  ], path.join(dir, 'kustomize-controller.log'), env);
  const controller = new Controller(cluster, fleet, proc, server, namespace, sourceName, branch);
  proc.start();
  try {
    const deadline = Date.now() + START_TIMEOUT_MS;
    for (;;) {
      if (!proc.running) throw new FluxControllerUnavailableError(`kustomize-controller in ${cluster} exited at start (${JSON.stringify(proc.lastExit)}):\n${proc.tail(30)}`);
      if (await healthy(`http://127.0.0.1:${healthPort}/readyz`)) break;
      if (Date.now() > deadline) throw new FluxControllerUnavailableError(`kustomize-controller in ${cluster} not ready within ${START_TIMEOUT_MS / 1000}s:\n${proc.tail(30)}`);
      await sleep(POLL_MS);
    }
  } catch (e) {
    await controller.stop();
    throw e;
  }
  return controller;
}

function healthy(url: string): Promise<boolean> {
  return new Promise((resolve) => {
    const req = http.get(url, { timeout: 5_000 }, (res) => {
      res.resume();
      resolve(res.statusCode === 200);
    });
    req.on('timeout', () => req.destroy());
    req.on('error', () => resolve(false));
  });
}

/** Why the last fluxControllerForTests() call returned undefined. */
export let fluxControllerSkipReason: string | undefined;

/**
 * For test files: a started controller, or undefined after skipping (t.skip when `t` can) when it
 * cannot be built or started — except with CI=true, where that throws: CI fails, never skips.
 */
export async function fluxControllerForTests(
  t: TestContext | SuiteContext | undefined,
  fleet: KubeFleet,
  cluster: string,
  props: FluxControllerProps = {},
): Promise<FluxController | undefined> {
  fluxControllerSkipReason = undefined;
  try {
    return await startFluxController(fleet, cluster, props);
  } catch (e) {
    if (!(e instanceof FluxControllerUnavailableError) || process.env.CI === 'true') throw e;
    const first = e.message.split('\n').find((l) => l.trim() !== '') ?? e.message;
    fluxControllerSkipReason = `Flux kustomize-controller unavailable (set CI=true to fail instead): ${first.slice(0, 400)}`;
    process.stderr.write(`flux-controller: skipping: ${e.message}\n`);
    if (t && 'skip' in t && typeof t.skip === 'function') t.skip(fluxControllerSkipReason);
    return undefined;
  }
}
