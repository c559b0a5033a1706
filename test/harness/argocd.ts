/**
 * argocd: a real Argo CD (repo-server, application-controller, applicationset-controller: the one
 * `argocd` binary built by build-argocd.sh) managing clusters of a kube-fleet, with its CRDs and
 * config installed into one of them (the hub), a local git repository served as `file://`, Redis,
 * and kube-controller-manager's garbage collector in every managed cluster (Argo CD prunes with
 * foreground deletion: without a garbage collector a pruned object keeps its finalizer for ever).
 *
 * Network: the application-controller binds its metrics listener on 0.0.0.0 whatever it is told, so
 * every Argo CD process and Redis run in a network namespace of their own that has only a loopback
 * interface (`unshare --net`; a `sleep` holds it, `nsenter` puts each process into it). Nothing
 * there is reachable from outside this machine. The kube-apiservers stay on the machine's
 * 127.0.0.1; two loopback bridges (test/harness/loopback-bridge.mjs) join the two loopbacks through
 * Unix sockets, which are files and so cross namespaces: inside, 127.0.0.1:<port of an apiserver>
 * leads to the apiserver at the same address outside. TLS passes through unchanged, so the
 * kubeconfigs and cluster Secrets name the apiservers exactly as the tests do.
 *
 * What the harness installs is what Argo CD's own manifests/install.yaml holds (the CRDs and the
 * stock ConfigMaps and Secrets; its Deployments are not applied, the processes run here instead),
 * plus what argocd-server would do at its first start: `server.secretkey` in argocd-secret (without
 * it every argocd-cm change is ignored) and the AppProject `default`. Each managed cluster is
 * registered as a cluster Secret under the name the test gives (an Argo CD cluster name may differ
 * from the fleet's). The processes run with the fleet's admin identity.
 */
import { spawn, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { SuiteContext, TestContext } from 'node:test';
import { parse as parseYaml, parseAllDocuments, stringify as toYaml } from 'yaml';
import { freePort, ManagedProcess, type KubeFleet } from './kube-fleet.js';

/** Argo CD could not be built, found or started. */
export class ArgoCdUnavailableError extends Error {
  override name = 'ArgoCdUnavailableError';
}

/** The parts of a live Application the tests read. */
export interface LiveApplication {
  readonly metadata: { readonly name: string; readonly namespace: string; readonly uid: string; readonly generation?: number; readonly annotations?: Record<string, string>; readonly labels?: Record<string, string> };
  readonly spec: Record<string, any>;
  readonly status?: {
    readonly sync?: { readonly status?: string; readonly revision?: string; readonly revisions?: readonly string[] };
    readonly health?: { readonly status?: string };
    readonly conditions?: readonly { readonly type: string; readonly message?: string }[];
    readonly resources?: readonly ArgoCdResourceStatus[];
    readonly operationState?: { readonly phase?: string; readonly message?: string; readonly syncResult?: { readonly revision?: string }; readonly retryCount?: number; readonly startedAt?: string };
    /** One entry per successful sync operation: the revision it deployed and when that operation started. */
    readonly history?: readonly { readonly id?: number; readonly revision?: string; readonly deployStartedAt?: string; readonly deployedAt?: string }[];
    readonly reconciledAt?: string;
  };
}

/** One entry of an Application's `.status.resources`. */
export interface ArgoCdResourceStatus {
  readonly group?: string;
  readonly version?: string;
  readonly kind: string;
  readonly namespace?: string;
  readonly name: string;
  readonly status?: string;
  readonly health?: { readonly status?: string };
  readonly requiresPruning?: boolean;
}

export interface ArgoCdProps {
  /** The fleet cluster that holds Argo CD's CRDs, config and Applications. */
  readonly hub: string;
  /** Fleet cluster → the name it is registered under in Argo CD; every cluster given is managed. */
  readonly clusters: Readonly<Record<string, string>>;
  /** Argo CD's namespace in the hub. @default 'argocd' */
  readonly namespace?: string;
}

/** A git repository on the local file system, cloned by Argo CD as `file://`. */
export interface LocalGitRepo {
  /** `file:///…` */
  readonly url: string;
  /**
   * Makes `paths` (relative to `root`) the repository's content at those paths (copied over, deleted
   * files removed) and commits when anything changed, as CI commits synth's output. Returns HEAD's sha.
   */
  publish(root: string, paths: readonly string[]): Promise<string>;
  head(): Promise<string>;
}

export interface ArgoCd {
  readonly hub: string;
  readonly namespace: string;
  readonly repo: LocalGitRepo;
  /** Runs kubectl against the hub (admin). */
  kubectl(args: string[], input?: string): Promise<string>;
  /** The live Application `name`. */
  application(name: string): Promise<LiveApplication>;
  /** Names of every Application in Argo CD's namespace. */
  applications(): Promise<string[]>;
  /**
   * Polls until `done` holds for Application `name` (throws with its last status and the logs'
   * tails when the deadline passes or an Argo CD process exits).
   */
  waitForApplication(name: string, what: string, done: (app: LiveApplication) => boolean, timeoutMs?: number): Promise<LiveApplication>;
  /**
   * Polls until `done` holds for the Applications `names` read together (one list call; a missing one
   * is left out of the list `done` gets), as {@link waitForApplication} does for one.
   */
  waitForApplications(names: readonly string[], what: string, done: (apps: LiveApplication[]) => boolean, timeoutMs?: number): Promise<LiveApplication[]>;
  /** Asks for a refresh now (`argocd.argoproj.io/refresh`, as `argocd app get --hard-refresh` sets it). */
  refresh(name: string, kind?: 'normal' | 'hard'): Promise<void>;
  /** Restarts the application-controller (what the README tells users to do after an argocd-cm change). */
  restartController(): Promise<void>;
  /** Last lines of every Argo CD process's log. */
  logTails(lines?: number): string;
  stop(): Promise<void>;
}

const HARNESS_DIR = path.dirname(fileURLToPath(import.meta.url));
const BRIDGE = path.join(HARNESS_DIR, 'loopback-bridge.mjs');
const START_TIMEOUT_MS = envInt('ARGOCD_START_TIMEOUT_MS', 180_000);
/** Default deadline for an Application to reach a state. Generous: the machine may be loaded. */
export const ARGOCD_WAIT_TIMEOUT_MS = envInt('ARGOCD_WAIT_TIMEOUT_MS', 400_000);
const POLL_MS = 500;
const GOMEMLIMIT = process.env.ARGOCD_GOMEMLIMIT ?? '768MiB';
const APPLICATION_RESOURCE = 'applications.argoproj.io';

function envInt(name: string, dflt: number): number {
  const v = Number(process.env[name]);
  return Number.isFinite(v) && v > 0 ? v : dflt;
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

function tail(s: string, lines: number): string {
  return s.trimEnd().split('\n').slice(-lines).join('\n');
}

function exec(cmd: string, args: readonly string[], opts: { cwd?: string; env?: NodeJS.ProcessEnv } = {}): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, { cwd: opts.cwd, env: opts.env ?? process.env, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => { out += d; });
    child.stderr.setEncoding('utf8').on('data', (d: string) => { err += d; });
    child.on('error', (e) => reject(new Error(`${cmd}: ${e.message}`)));
    child.on('close', (code, signal) => {
      if (code === 0) resolve(out);
      else reject(new Error(`${cmd} ${args.join(' ')} failed (${code ?? signal}):\n${tail(err, 40)}`));
    });
  });
}

/** Runs a build script once per process; returns the directory it printed last. */
function buildOnce(script: string, what: string, minutes: string): () => Promise<string> {
  let promise: Promise<string> | undefined;
  return () => {
    promise ??= (async () => {
      const t0 = Date.now();
      const notice = setTimeout(() => process.stderr.write(`argocd: building ${what} from Go modules (cached afterwards; a first build takes ${minutes} minutes)…\n`), 5_000);
      try {
        return (await exec('bash', [path.join(HARNESS_DIR, script)])).trim().split('\n').pop()!.trim();
      } catch (e) {
        throw new ArgoCdUnavailableError(`${script} failed after ${Math.round((Date.now() - t0) / 1000)}s: ${(e as Error).message}`);
      } finally {
        clearTimeout(notice);
      }
    })();
    return promise;
  };
}

/** Argo CD, kustomize, the wrapper scripts and install.yaml (build-argocd.sh). */
export const ensureArgoCdAssets = buildOnce('build-argocd.sh', 'Argo CD and kustomize', '15-25');
/** kube-controller-manager (build-kube-controller-manager.sh). */
export const ensureKubeControllerManager = buildOnce('build-kube-controller-manager.sh', 'kube-controller-manager', '5-15');

class GitRepo implements LocalGitRepo {
  readonly url: string;
  private readonly env: NodeJS.ProcessEnv;

  constructor(readonly dir: string) {
    this.url = `file://${dir}`;
    this.env = {
      ...process.env,
      GIT_AUTHOR_NAME: 'mirrorc ci', GIT_AUTHOR_EMAIL: 'ci@mirrorc.invalid',
      GIT_COMMITTER_NAME: 'mirrorc ci', GIT_COMMITTER_EMAIL: 'ci@mirrorc.invalid',
      GIT_CONFIG_NOSYSTEM: '1', GIT_CONFIG_GLOBAL: '/dev/null',
    };
  }

  private git(args: string[]): Promise<string> {
    return exec('git', args, { cwd: this.dir, env: this.env });
  }

  async init(): Promise<void> {
    fs.mkdirSync(this.dir, { recursive: true });
    await this.git(['init', '-q', '-b', 'main']);
    fs.writeFileSync(path.join(this.dir, 'README.md'), 'fleet repository of the Argo CD test\n');
    await this.git(['add', '-A']);
    await this.git(['commit', '-q', '-m', 'initial']);
  }

  async publish(root: string, paths: readonly string[]): Promise<string> {
    for (const p of paths) {
      fs.rmSync(path.join(this.dir, p), { recursive: true, force: true });
      if (fs.existsSync(path.join(root, p))) fs.cpSync(path.join(root, p), path.join(this.dir, p), { recursive: true });
    }
    await this.git(['add', '-A']);
    if ((await this.git(['status', '--porcelain'])).trim() !== '') await this.git(['commit', '-q', '-m', 'synth']);
    return this.head();
  }

  async head(): Promise<string> {
    return (await this.git(['rev-parse', 'HEAD'])).trim();
  }
}

/** The admin kubeconfig of one fleet cluster, flattened, as parsed YAML. */
async function clusterKubeconfig(fleet: KubeFleet, cluster: string): Promise<any> {
  return parseYaml(await fleet.kubectl(cluster, ['config', 'view', '--minify', '--flatten', '--raw']));
}

class Instance implements ArgoCd {
  readonly processes: ManagedProcess[] = [];
  controller: ManagedProcess | undefined;
  private stopping: Promise<void> | undefined;

  constructor(
    readonly hub: string,
    readonly namespace: string,
    readonly repo: GitRepo,
    private readonly fleet: KubeFleet,
  ) {}

  kubectl(args: string[], input?: string): Promise<string> {
    return this.fleet.kubectl(this.hub, args, input);
  }

  async application(name: string): Promise<LiveApplication> {
    return JSON.parse(await this.kubectl(['get', APPLICATION_RESOURCE, name, '-n', this.namespace, '-o', 'json'])) as LiveApplication;
  }

  async applications(): Promise<string[]> {
    const list = JSON.parse(await this.kubectl(['get', APPLICATION_RESOURCE, '-n', this.namespace, '-o', 'json'])) as { items: LiveApplication[] };
    return list.items.map((a) => a.metadata.name).sort();
  }

  async waitForApplication(name: string, what: string, done: (app: LiveApplication) => boolean, timeoutMs = ARGOCD_WAIT_TIMEOUT_MS): Promise<LiveApplication> {
    const deadline = Date.now() + timeoutMs;
    let last: LiveApplication | undefined;
    let lastError = '';
    for (;;) {
      const dead = this.processes.find((p) => !p.running && p !== this.controller) ?? (this.controller && !this.controller.running ? this.controller : undefined);
      if (dead) throw new ArgoCdUnavailableError(`${dead.label} exited (${JSON.stringify(dead.lastExit)}):\n${dead.tail(40)}`);
      try {
        last = await this.application(name);
        if (done(last)) return last;
      } catch (e) {
        lastError = (e as Error).message;
      }
      if (Date.now() > deadline) {
        throw new Error(`Application ${this.namespace}/${name} did not ${what} within ${Math.round(timeoutMs / 1000)}s; last status: ` +
          `${JSON.stringify(last?.status ?? lastError)}\n${this.logTails(25)}`);
      }
      await sleep(POLL_MS);
    }
  }

  async waitForApplications(names: readonly string[], what: string, done: (apps: LiveApplication[]) => boolean, timeoutMs = ARGOCD_WAIT_TIMEOUT_MS): Promise<LiveApplication[]> {
    const deadline = Date.now() + timeoutMs;
    let last: LiveApplication[] = [];
    let lastError = '';
    for (;;) {
      const dead = this.processes.find((p) => !p.running && p !== this.controller) ?? (this.controller && !this.controller.running ? this.controller : undefined);
      if (dead) throw new ArgoCdUnavailableError(`${dead.label} exited (${JSON.stringify(dead.lastExit)}):\n${dead.tail(40)}`);
      try {
        const list = JSON.parse(await this.kubectl(['get', APPLICATION_RESOURCE, '-n', this.namespace, '-o', 'json'])) as { items: LiveApplication[] };
        const byName = new Map(list.items.map((a) => [a.metadata.name, a]));
        last = names.flatMap((n) => byName.get(n) ?? []);
        if (done(last)) return last;
      } catch (e) {
        lastError = (e as Error).message;
      }
      if (Date.now() > deadline) {
        throw new Error(`Applications ${names.join(', ')} did not ${what} within ${Math.round(timeoutMs / 1000)}s; last status: ` +
          `${JSON.stringify(last.length > 0 ? last.map((a) => ({ name: a.metadata.name, sync: a.status?.sync, health: a.status?.health, operationState: a.status?.operationState, conditions: a.status?.conditions })) : lastError)}\n${this.logTails(25)}`);
      }
      await sleep(POLL_MS);
    }
  }

  async refresh(name: string, kind: 'normal' | 'hard' = 'hard'): Promise<void> {
    await this.kubectl(['annotate', APPLICATION_RESOURCE, name, '-n', this.namespace, '--overwrite', `argocd.argoproj.io/refresh=${kind}`]);
  }

  async restartController(): Promise<void> {
    const controller = this.controller!;
    await controller.stop();
    controller.start();
  }

  logTails(lines = 25): string {
    return this.processes.filter((p) => p.label.startsWith('argocd')).map((p) => `--- ${p.logFile} (tail) ---\n${p.tail(lines)}`).join('\n');
  }

  stop(): Promise<void> {
    this.stopping ??= (async () => {
      for (const p of [...this.processes].reverse()) await p.stop(5_000).catch(() => undefined);
    })();
    return this.stopping;
  }
}

/** Applies install.yaml's CRDs, ConfigMaps and Secrets into the hub and waits for the CRDs. */
async function installArgoCd(fleet: KubeFleet, hub: string, namespace: string, installYaml: string): Promise<void> {
  await fleet.kubectl(hub, ['apply', '-f', '-'], JSON.stringify({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: namespace } }));
  const docs = parseAllDocuments(fs.readFileSync(installYaml, 'utf8')).map((d) => d.toJS() as { kind?: string; metadata?: { name?: string } } | null);
  const crds = docs.filter((d) => d?.kind === 'CustomResourceDefinition');
  const config = docs.filter((d) => d?.kind === 'ConfigMap' || d?.kind === 'Secret');
  if (!crds.some((d) => d!.metadata?.name === APPLICATION_RESOURCE) || !config.some((d) => d!.metadata?.name === 'argocd-cm')) {
    throw new ArgoCdUnavailableError(`${installYaml} has no Application CRD or no argocd-cm`);
  }
  await fleet.kubectl(hub, ['apply', '--server-side', '--field-manager=argocd-install', '-f', '-'], JSON.stringify({ apiVersion: 'v1', kind: 'List', items: crds }));
  // Polled rather than `kubectl wait`, which fails while a new CRD has no status conditions yet.
  const deadline = Date.now() + START_TIMEOUT_MS;
  for (const crd of crds) {
    for (;;) {
      const conditions = (JSON.parse(await fleet.kubectl(hub, ['get', 'crd', crd!.metadata!.name!, '-o', 'jsonpath={.status.conditions}']) || '[]') as { type: string; status: string }[] | null) ?? [];
      if (conditions.some((c) => c.type === 'Established' && c.status === 'True')) break;
      if (Date.now() > deadline) throw new ArgoCdUnavailableError(`CRD ${crd!.metadata!.name} in ${hub} never became Established`);
      await sleep(POLL_MS);
    }
  }
  await fleet.kubectl(hub, ['apply', '--server-side', '--field-manager=argocd-install', '-n', namespace, '-f', '-'], JSON.stringify({ apiVersion: 'v1', kind: 'List', items: config }));
  // What argocd-server does at its first start.
  await fleet.kubectl(hub, ['patch', 'secret', 'argocd-secret', '-n', namespace, '--type=merge', '-p',
    JSON.stringify({ stringData: { 'server.secretkey': randomBytes(32).toString('base64') } })]);
  await fleet.kubectl(hub, ['apply', '-f', '-'], JSON.stringify({
    apiVersion: 'argoproj.io/v1alpha1',
    kind: 'AppProject',
    metadata: { name: 'default', namespace },
    spec: { sourceRepos: ['*'], destinations: [{ server: '*', namespace: '*' }], clusterResourceWhitelist: [{ group: '*', kind: '*' }] },
  }));
}

/** Registers `cluster` in Argo CD under `name`: a cluster Secret with its address and the admin client certificate. */
async function registerCluster(fleet: KubeFleet, hub: string, namespace: string, cluster: string, name: string): Promise<void> {
  const cfg = await clusterKubeconfig(fleet, cluster);
  const c = cfg.clusters[0].cluster;
  const u = cfg.users[0].user;
  await fleet.kubectl(hub, ['apply', '-f', '-'], JSON.stringify({
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: { name: `cluster-${name}`, namespace, labels: { 'argocd.argoproj.io/secret-type': 'cluster' } },
    stringData: {
      name,
      server: c.server,
      config: JSON.stringify({ tlsClientConfig: { caData: c['certificate-authority-data'], certData: u['client-certificate-data'], keyData: u['client-key-data'] } }),
    },
  }));
}

/** Starts `label` in the network namespace held by `holderPid`. */
function inNamespace(holderPid: number, label: string, bin: string, args: readonly string[], logFile: string, env: NodeJS.ProcessEnv): ManagedProcess {
  return new ManagedProcess(label, 'nsenter', [`--net=/proc/${holderPid}/ns/net`, '--', bin, ...args], logFile, env);
}

/** Whether something listens on 127.0.0.1:`port` inside the namespace. */
function listensInside(holderPid: number, port: number): boolean {
  return spawnSync('nsenter', [`--net=/proc/${holderPid}/ns/net`, '--', 'bash', '-c', `exec 3<>/dev/tcp/127.0.0.1/${port}`], { stdio: 'ignore', timeout: 10_000 }).status === 0;
}

async function waitUntil(what: string, procs: readonly ManagedProcess[], check: () => boolean | Promise<boolean>): Promise<void> {
  const deadline = Date.now() + START_TIMEOUT_MS;
  for (;;) {
    const dead = procs.find((p) => !p.running);
    if (dead) throw new ArgoCdUnavailableError(`${dead.label} exited while waiting for ${what} (${JSON.stringify(dead.lastExit)}):\n${dead.tail(30)}`);
    if (await check()) return;
    if (Date.now() > deadline) throw new ArgoCdUnavailableError(`${what} not within ${START_TIMEOUT_MS / 1000}s:\n${procs.map((p) => `--- ${p.label} ---\n${p.tail(15)}`).join('\n')}`);
    await sleep(POLL_MS);
  }
}

/** Starts one process in the background and waits until it prints `ready` on its log. */
async function startBridge(proc: ManagedProcess): Promise<void> {
  proc.start();
  await waitUntil(`${proc.label} ready`, [proc], () => proc.tail(5).split('\n').includes('ready'));
}

/**
 * Installs Argo CD into `props.hub`, registers the clusters, creates the git repository and starts
 * Redis, the repo-server, the application-controller, the applicationset-controller and one
 * garbage collector per managed cluster.
 */
export async function startArgoCd(fleet: KubeFleet, props: ArgoCdProps): Promise<ArgoCd> {
  const namespace = props.namespace ?? 'argocd';
  const [assets, kcmDir] = await Promise.all([ensureArgoCdAssets(), ensureKubeControllerManager()]);
  for (const tool of ['unshare', 'nsenter', 'ip', 'git', 'redis-server']) {
    if (spawnSync('bash', ['-c', `command -v ${tool}`], { stdio: 'ignore' }).status !== 0) {
      throw new ArgoCdUnavailableError(`${tool} is not installed (the Argo CD tests need util-linux, iproute2, git and redis-server)`);
    }
  }
  const dir = fs.mkdtempSync(path.join(fleet.dir, 'argocd-'));
  const repo = new GitRepo(path.join(dir, 'repo'));
  await repo.init();
  await installArgoCd(fleet, props.hub, namespace, path.join(assets, 'install.yaml'));
  for (const [cluster, name] of Object.entries(props.clusters)) await registerCluster(fleet, props.hub, namespace, cluster, name);

  const instance = new Instance(props.hub, namespace, repo, fleet);
  const started = (p: ManagedProcess): ManagedProcess => {
    instance.processes.push(p);
    p.start();
    return p;
  };
  try {
    // Garbage collectors (machine network, like the apiservers; they serve nothing).
    for (const cluster of Object.keys(props.clusters)) {
      const kubeconfig = path.join(dir, `kubeconfig-${cluster}.yaml`);
      fs.writeFileSync(kubeconfig, toYaml(await clusterKubeconfig(fleet, cluster)), { mode: 0o600 });
      started(new ManagedProcess(`kube-controller-manager (${cluster})`, path.join(kcmDir, 'kube-controller-manager'), [
        `--kubeconfig=${kubeconfig}`, '--controllers=garbage-collector-controller,resourcequota-controller', '--leader-elect=false', '--secure-port=0',
        '--use-service-account-credentials=false', '--concurrent-gc-syncs=5',
      ], path.join(dir, `kube-controller-manager-${cluster}.log`), { ...process.env, GOMEMLIMIT: '256MiB' }));
    }

    // The private network namespace, held by a sleep.
    const holder = started(new ManagedProcess('netns holder', 'unshare', ['--net', '--', 'sh', '-c', 'ip link set lo up && echo up && exec sleep 2147483647'],
      path.join(dir, 'netns.log'), process.env));
    await waitUntil('the network namespace', [holder], () => holder.tail(3).split('\n').includes('up'));
    const ns = holder.pid!;

    // Loopback bridges for every apiserver Argo CD talks to.
    const apiPorts = [...new Set([props.hub, ...Object.keys(props.clusters)])].map((c) => fleet.clusters[c]!.port);
    const sockets = apiPorts.map((p) => [p, path.join(dir, `apiserver-${p}.sock`)] as const);
    const outside = new ManagedProcess('loopback bridge (machine side)', process.execPath, [BRIDGE, 'unix-to-tcp', ...sockets.map(([p, s]) => `${s}=${p}`)],
      path.join(dir, 'bridge-outside.log'), process.env);
    instance.processes.push(outside);
    await startBridge(outside);
    const inside = inNamespace(ns, 'loopback bridge (namespace side)', process.execPath, [BRIDGE, 'tcp-to-unix', ...sockets.map(([p, s]) => `${p}=${s}`)],
      path.join(dir, 'bridge-inside.log'), process.env);
    instance.processes.push(inside);
    await startBridge(inside);

    // Ports inside the namespace: any free ones of the machine do (none of them is an apiserver's).
    const [redisPort, repoPort, repoMetrics, ctrlMetrics, appsetMetrics, appsetProbe, appsetWebhook] =
      [await freePort(), await freePort(), await freePort(), await freePort(), await freePort(), await freePort(), await freePort()];
    const redis = started(inNamespace(ns, 'redis-server', 'redis-server', [
      '--bind', '127.0.0.1', '--port', String(redisPort), '--save', '', '--appendonly', 'no', '--dir', dir, '--protected-mode', 'yes',
    ], path.join(dir, 'redis.log'), process.env));
    await waitUntil('redis', [redis], () => listensInside(ns, redisPort));

    const kubeconfig = await clusterKubeconfig(fleet, props.hub);
    kubeconfig.contexts[0].context.namespace = namespace;
    const argoKubeconfig = path.join(dir, 'kubeconfig-argocd.yaml');
    fs.writeFileSync(argoKubeconfig, toYaml(kubeconfig), { mode: 0o600 });
    const data = (d: string): string => {
      const p = path.join(dir, 'data', d);
      fs.mkdirSync(p, { recursive: true });
      return p;
    };
    const env = (binaryName: string): NodeJS.ProcessEnv => ({
      ...process.env,
      PATH: `${assets}:${process.env.PATH ?? '/usr/bin:/bin'}`,
      HOME: data('home'),
      KUBECONFIG: argoKubeconfig,
      GOMEMLIMIT,
      ARGOCD_BINARY_NAME: binaryName,
      ARGOCD_FAKE_IN_CLUSTER: 'true',
      ARGOCD_GPG_ENABLED: 'false',
      ARGOCD_TLS_DATA_PATH: data('tls'),
      ARGOCD_SSH_DATA_PATH: data('ssh'),
      ARGOCD_GNUPGHOME: data('gnupg'),
      ARGOCD_GPG_DATA_PATH: data('gpg'),
      ARGOCD_PLUGINSOCKFILEPATH: data('plugins'),
    });
    const argocd = path.join(assets, 'argocd');
    const redisAddr = `127.0.0.1:${redisPort}`;
    const repoServer = started(inNamespace(ns, 'argocd-repo-server', argocd, [
      '--address', '127.0.0.1', '--port', String(repoPort), '--metrics-address', '127.0.0.1', '--metrics-port', String(repoMetrics),
      '--redis', redisAddr, '--disable-tls', '--client-ca-path=', '--loglevel', 'info',
    ], path.join(dir, 'argocd-repo-server.log'), env('argocd-repo-server')));
    await waitUntil('argocd-repo-server', [repoServer], () => listensInside(ns, repoPort));
    const repoAddr = `127.0.0.1:${repoPort}`;
    instance.controller = started(inNamespace(ns, 'argocd-application-controller', argocd, [
      '--repo-server', repoAddr, '--repo-server-plaintext', '--redis', redisAddr, '--metrics-port', String(ctrlMetrics),
      '--status-processors', '4', '--operation-processors', '4', '--loglevel', 'info',
    ], path.join(dir, 'argocd-application-controller.log'), env('argocd-application-controller')));
    started(inNamespace(ns, 'argocd-applicationset-controller', argocd, [
      '--argocd-repo-server', repoAddr, '--repo-server-plaintext', `--metrics-addr=127.0.0.1:${appsetMetrics}`,
      `--probe-addr=127.0.0.1:${appsetProbe}`, `--webhook-addr=127.0.0.1:${appsetWebhook}`, '--loglevel', 'info',
    ], path.join(dir, 'argocd-applicationset-controller.log'), env('argocd-applicationset-controller')));
    await waitUntil('argocd-applicationset-controller', instance.processes, () => listensInside(ns, appsetProbe));
    return instance;
  } catch (e) {
    await instance.stop();
    throw e;
  }
}

/** Why the last argoCdForTests() call returned undefined. */
export let argoCdSkipReason: string | undefined;

/**
 * For test files: a started Argo CD, or undefined after skipping when it cannot be built or started
 * — except with CI=true, where that throws: CI fails, never skips.
 */
export async function argoCdForTests(t: TestContext | SuiteContext | undefined, fleet: KubeFleet, props: ArgoCdProps): Promise<ArgoCd | undefined> {
  argoCdSkipReason = undefined;
  try {
    return await startArgoCd(fleet, props);
  } catch (e) {
    if (!(e instanceof ArgoCdUnavailableError) || process.env.CI === 'true') throw e;
    const first = e.message.split('\n').find((l) => l.trim() !== '') ?? e.message;
    argoCdSkipReason = `Argo CD unavailable (set CI=true to fail instead): ${first.slice(0, 400)}`;
    process.stderr.write(`argocd: skipping: ${e.message}\n`);
    if (t && 'skip' in t && typeof t.skip === 'function') t.skip(argoCdSkipReason);
    return undefined;
  }
}
