/**
 * kube-fleet: N real Kubernetes API servers ("clusters") for integration tests.
 *
 * One etcd (shared, one `--etcd-prefix` per cluster, compaction off) and one kube-apiserver per
 * cluster, all bound to 127.0.0.1, all data/certs/logs in one fresh temp dir (on /dev/shm when it
 * exists). No kube-controller-manager: objects are stored and validated, but nothing reconciles
 * them (no EndpointSlices for selectors, namespaces never finish terminating, no GC). See README.md.
 *
 * Binaries come from `build-kube-bins.sh` (next to this file), which builds them from Go modules
 * once and caches them (or uses KUBE_TEST_ASSETS).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes, generateKeyPairSync } from 'node:crypto';
import * as fs from 'node:fs';
import * as fsp from 'node:fs/promises';
import * as http from 'node:http';
import * as https from 'node:https';
import * as net from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { SuiteContext, TestContext } from 'node:test';
import { stringify as toYaml } from 'yaml';

// ---------------------------------------------------------------------------------------------
// Public API
// ---------------------------------------------------------------------------------------------

export interface IdentityRules {
  apiGroups: readonly string[];
  resources: readonly string[];
  verbs: readonly string[];
}

export interface KubeFleetOptions {
  /** RBAC rules for the least-privilege "reader" identity, as a ClusterRole bound to it in every cluster. */
  readerRules: readonly IdentityRules[];
  /**
   * Extra kube-apiserver flags for every cluster, e.g. `--authentication-config=<file>` (files they
   * name must exist before the fleet starts, and stay until it stops). @default none
   */
  extraApiserverArgs?: readonly string[];
}

export type Identity = 'admin' | 'reader' | 'nobody';

/** User names (certificate CNs) of the three identities. */
export const IDENTITY_USERS: Readonly<Record<Identity, string>> = {
  admin: 'mirrorc-admin', // + group system:masters
  reader: 'mirrorc-reader',
  nobody: 'mirrorc-nobody',
};
/** Name of the ClusterRole (and ClusterRoleBinding) that grants `readerRules` to the reader. */
export const READER_CLUSTER_ROLE = 'mirrorc-reader';
/** Service CIDR of every cluster. */
export const SERVICE_CIDR = '10.96.0.0/16';

export interface TestCluster {
  readonly name: string;
  /** https://127.0.0.1:<port> */
  readonly server: string;
  readonly port: number;
  /** True while its kube-apiserver process is alive. */
  readonly running: boolean;
  /** The kube-apiserver log file (all runs of this cluster, appended). */
  readonly logFile: string;
  /** Last `lines` lines of the kube-apiserver log. */
  logTail(lines?: number): string;
  /** Stops only this kube-apiserver (simulates an outage); idempotent. Resolves once the port is closed. */
  stop(): Promise<void>;
  /** Starts it again on the SAME port with the same data/certs and waits until ready; no-op if running. */
  start(): Promise<void>;
}

export interface KubeFleet {
  readonly clusters: Record<string, TestCluster>;
  /** Path of a kubeconfig file with one context per cluster, each context named exactly like the cluster, for that identity. */
  kubeconfig(identity: Identity): string;
  /** Run the built kubectl with the admin identity against one cluster; returns stdout; throws with stderr on failure. */
  kubectl(cluster: string, args: string[], input?: string): Promise<string>;
  readonly binDir: string;
  /** The fleet's temp dir (certs, kubeconfigs, etcd data, logs). Deleted by stop(). */
  readonly dir: string;
  /** Stop everything, delete temp dirs. Idempotent. */
  stop(): Promise<void>;
}

/** Binaries could not be built/found, or etcd / a kube-apiserver could not start. */
export class KubeFleetUnavailableError extends Error {
  override name = 'KubeFleetUnavailableError';
}

// ---------------------------------------------------------------------------------------------
// Tunables (env)
// ---------------------------------------------------------------------------------------------

const HARNESS_DIR = path.dirname(fileURLToPath(import.meta.url));
const BUILD_SCRIPT = path.join(HARNESS_DIR, 'build-kube-bins.sh');
/** Per kube-apiserver start timeout (spawn → ready). */
const START_TIMEOUT_MS = envInt('KUBE_FLEET_START_TIMEOUT_MS', 120_000);
/** SIGTERM → SIGKILL grace period. */
const STOP_GRACE_MS = envInt('KUBE_FLEET_STOP_GRACE_MS', 20_000);
const APISERVER_GOMEMLIMIT = process.env.KUBE_FLEET_APISERVER_GOMEMLIMIT ?? '1GiB';
const ETCD_GOMEMLIMIT = process.env.KUBE_FLEET_ETCD_GOMEMLIMIT ?? '512MiB';

function envInt(name: string, dflt: number): number {
  const v = Number(process.env[name]);
  return Number.isFinite(v) && v > 0 ? v : dflt;
}

// ---------------------------------------------------------------------------------------------
// Binaries
// ---------------------------------------------------------------------------------------------

let binariesPromise: Promise<string> | undefined;

/**
 * Runs build-kube-bins.sh (cached after the first build) and returns the directory holding
 * kube-apiserver, etcd and kubectl. Memoised per process (a failure too).
 */
export function ensureKubeBinaries(): Promise<string> {
  binariesPromise ??= runBuildScript();
  return binariesPromise;
}

async function runBuildScript(): Promise<string> {
  const t0 = Date.now();
  const child = spawn('bash', [BUILD_SCRIPT], { stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  const notice = setTimeout(() => {
    process.stderr.write('kube-fleet: building kube-apiserver/etcd/kubectl from Go modules (cached afterwards; a first build takes tens of minutes)…\n');
  }, 5_000);
  child.stdout.setEncoding('utf8').on('data', (d: string) => { stdout += d; });
  child.stderr.setEncoding('utf8').on('data', (d: string) => {
    stderr += d;
    if (stderr.length > 256_000) stderr = stderr.slice(-128_000);
  });
  const [code, signal] = await new Promise<[number | null, NodeJS.Signals | null]>((resolve) => {
    child.on('error', (e) => { stderr += `\nspawn bash failed: ${e.message}`; resolve([127, null]); });
    child.on('close', (c, s) => resolve([c, s]));
  });
  clearTimeout(notice);
  if (code !== 0) {
    throw new KubeFleetUnavailableError(
      `${BUILD_SCRIPT} failed (exit ${code ?? signal}) after ${Math.round((Date.now() - t0) / 1000)}s:\n${tailText(stderr, 40)}`);
  }
  const dir = stdout.trim().split('\n').pop()?.trim() ?? '';
  for (const b of ['kube-apiserver', 'etcd', 'kubectl']) {
    try {
      fs.accessSync(path.join(dir, b), fs.constants.X_OK);
    } catch {
      throw new KubeFleetUnavailableError(`${BUILD_SCRIPT} printed "${dir}", which has no executable ${b}:\n${tailText(stderr, 20)}`);
    }
  }
  return dir;
}

// ---------------------------------------------------------------------------------------------
// Process bookkeeping: every child is detached in its own process group and killed when this
// process exits (normally, on SIGINT/SIGTERM/SIGHUP, on an uncaught exception) or, via a small
// watchdog shell, even when this process is SIGKILLed.
// ---------------------------------------------------------------------------------------------

const liveGroups = new Set<number>();
const liveDirs = new Set<string>();
let hooksInstalled = false;
let registryFile: string | undefined;

function writeRegistry(): void {
  if (!registryFile) return;
  const lines = [...[...liveGroups].map((p) => `pgid ${p}`), ...[...liveDirs].map((d) => `dir ${d}`)];
  try {
    fs.writeFileSync(registryFile, lines.join('\n') + '\n');
  } catch { /* best effort */ }
}

function killAllSync(): void {
  for (const pgid of liveGroups) {
    try { process.kill(-pgid, 'SIGKILL'); } catch { /* gone */ }
  }
  liveGroups.clear();
  for (const d of liveDirs) {
    try { fs.rmSync(d, { recursive: true, force: true }); } catch { /* best effort */ }
  }
  liveDirs.clear();
  if (registryFile) {
    try { fs.rmSync(registryFile, { force: true }); } catch { /* best effort */ }
  }
}

function installExitHooks(): void {
  if (hooksInstalled) return;
  hooksInstalled = true;
  process.on('exit', killAllSync);
  // Only when the exception will kill the process: node:test handles uncaught exceptions itself
  // (the process, and the fleet, live on); 'exit' still runs when it does die.
  process.on('uncaughtExceptionMonitor', () => {
    if (process.listenerCount('uncaughtException') === 0) killAllSync();
  });
  for (const sig of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
    const onSignal = (): void => {
      killAllSync();
      // If nobody else handles the signal, restore the default behaviour (terminate) and re-raise.
      if (process.listenerCount(sig) === 1) {
        process.removeListener(sig, onSignal);
        process.kill(process.pid, sig);
      }
    };
    process.on(sig, onSignal);
  }
  // Watchdog for the case where this process dies without running any JS (SIGKILL, OOM kill).
  registryFile = path.join(os.tmpdir(), `kube-fleet-${process.pid}-${randomBytes(4).toString('hex')}.registry`);
  writeRegistry();
  const script = [
    'parent=$1; reg=$2',
    'while kill -0 "$parent" 2>/dev/null; do sleep 2; done',
    '[ -f "$reg" ] || exit 0',
    'while read -r kind val; do [ "$kind" = pgid ] && kill -KILL -- "-$val" 2>/dev/null; done < "$reg"',
    'sleep 1',
    'while read -r kind val; do [ "$kind" = dir ] && rm -rf -- "$val"; done < "$reg"',
    'rm -f -- "$reg"',
  ].join('\n');
  try {
    const wd = spawn('bash', ['-c', script, 'kube-fleet-watchdog', String(process.pid), registryFile], {
      detached: true,
      stdio: 'ignore',
    });
    wd.on('error', () => { /* no watchdog; exit hooks still work */ });
    wd.unref();
  } catch { /* no watchdog */ }
}

function trackDir(d: string): void {
  liveDirs.add(d);
  writeRegistry();
}

function untrackDir(d: string): void {
  liveDirs.delete(d);
  writeRegistry();
}

interface ExitInfo { code: number | null; signal: NodeJS.Signals | null }

/**
 * A long-running child (etcd, kube-apiserver, or another harness's controller) writing to a log
 * file, in its own process group, killed with the fleet's exit hooks and watchdog.
 */
export class ManagedProcess {
  private child: ChildProcess | undefined;
  private exitPromise: Promise<ExitInfo> | undefined;
  lastExit: ExitInfo | undefined;
  spawnedAt = 0;

  constructor(
    readonly label: string,
    private readonly bin: string,
    private readonly args: readonly string[],
    readonly logFile: string,
    private readonly env: NodeJS.ProcessEnv,
  ) {}

  get running(): boolean {
    return this.child !== undefined;
  }

  get pid(): number | undefined {
    return this.child?.pid;
  }

  start(): void {
    if (this.child) throw new Error(`${this.label} is already running`);
    installExitHooks();
    fs.appendFileSync(this.logFile, `\n===== kube-fleet: starting ${this.label} at ${new Date().toISOString()}\n`);
    const fd = fs.openSync(this.logFile, 'a');
    let child: ChildProcess;
    try {
      child = spawn(this.bin, this.args, { detached: true, stdio: ['ignore', fd, fd], env: this.env });
    } finally {
      fs.closeSync(fd);
    }
    this.spawnedAt = Date.now();
    this.lastExit = undefined;
    this.child = child;
    const pid = child.pid;
    if (pid !== undefined) {
      liveGroups.add(pid);
      writeRegistry();
    }
    this.exitPromise = new Promise<ExitInfo>((resolve) => {
      const done = (info: ExitInfo): void => {
        if (pid !== undefined) {
          // The group leader is gone; make sure nothing else of the group survives, then forget it.
          try { process.kill(-pid, 'SIGKILL'); } catch { /* gone */ }
          liveGroups.delete(pid);
          writeRegistry();
        }
        if (this.child === child) this.child = undefined;
        this.lastExit = info;
        resolve(info);
      };
      child.once('error', (e) => {
        fs.appendFileSync(this.logFile, `kube-fleet: spawn failed: ${e.message}\n`);
        done({ code: 127, signal: null });
      });
      child.once('exit', (code, signal) => done({ code, signal }));
    });
    // Do not keep the event loop alive for the child; the exit hooks kill it.
    child.unref();
  }

  /** Resolves when the process exits (immediately if it is not running). */
  exited(): Promise<ExitInfo | undefined> {
    return this.child && this.exitPromise ? this.exitPromise : Promise.resolve(this.lastExit);
  }

  /** SIGTERM the process group, SIGKILL after `graceMs`; resolves once the leader has exited. */
  async stop(graceMs = STOP_GRACE_MS): Promise<void> {
    const child = this.child;
    const exited = this.exitPromise;
    if (!child || !exited || child.pid === undefined) return;
    const pid = child.pid;
    try { process.kill(-pid, 'SIGTERM'); } catch { /* already gone */ }
    let timer: NodeJS.Timeout | undefined;
    const killed = new Promise<void>((resolve) => {
      timer = setTimeout(() => {
        try { process.kill(-pid, 'SIGKILL'); } catch { /* gone */ }
        resolve();
      }, graceMs);
    });
    await Promise.race([exited, killed]);
    await exited;
    clearTimeout(timer);
  }

  tail(lines = 40): string {
    return tailText(this.readLogEnd(64 * 1024), lines);
  }

  /** For error messages: error lines (klog E/F, etcd "error"/"fatal") of the current run, then the log tail. */
  diagnostics(): string {
    const log = this.readLogEnd(1024 * 1024);
    const runStart = log.lastIndexOf('===== kube-fleet: starting');
    const run = runStart >= 0 ? log.slice(runStart) : log;
    const errors = [...new Set(run.split('\n').filter((l) => /^[EF]\d{4} |"level":"(error|fatal|panic)"|^panic:/.test(l)))]
      .filter((l) => !/operation was canceled/.test(l))
      .slice(0, 12);
    return (errors.length ? `--- error lines of ${this.logFile} ---\n${errors.join('\n')}\n` : '') +
      `--- ${this.logFile} (tail) ---\n${tailText(run, 30)}`;
  }

  private readLogEnd(maxBytes: number): string {
    try {
      const st = fs.statSync(this.logFile);
      const len = Math.min(st.size, maxBytes);
      const buf = Buffer.alloc(len);
      const fd = fs.openSync(this.logFile, 'r');
      try { fs.readSync(fd, buf, 0, len, st.size - len); } finally { fs.closeSync(fd); }
      return buf.toString('utf8');
    } catch (e) {
      return `(no log: ${(e as Error).message})`;
    }
  }
}

function tailText(s: string, lines: number): string {
  return s.trimEnd().split('\n').slice(-lines).join('\n');
}

// ---------------------------------------------------------------------------------------------
// Small helpers: ports, temp dirs, certificates, HTTPS
// ---------------------------------------------------------------------------------------------

const handedOutPorts = new Set<number>();

/** A free TCP port on 127.0.0.1 (never the same one twice in this process). */
export async function freePort(): Promise<number> {
  for (let i = 0; i < 50; i++) {
    const port = await new Promise<number>((resolve, reject) => {
      const srv = net.createServer();
      srv.unref();
      srv.once('error', reject);
      srv.listen({ host: '127.0.0.1', port: 0, exclusive: true }, () => {
        const addr = srv.address();
        const p = typeof addr === 'object' && addr ? addr.port : 0;
        srv.close(() => resolve(p));
      });
    });
    if (port > 0 && !handedOutPorts.has(port)) {
      handedOutPorts.add(port);
      return port;
    }
  }
  throw new Error('could not find a free port on 127.0.0.1');
}

function tempRoot(): string {
  const override = process.env.KUBE_FLEET_TMPDIR;
  if (override) return override;
  try {
    fs.accessSync('/dev/shm', fs.constants.W_OK);
    if (fs.statSync('/dev/shm').isDirectory()) return '/dev/shm';
  } catch { /* fall through */ }
  return os.tmpdir();
}

function run(cmd: string, args: readonly string[], opts: { cwd?: string; input?: string; env?: NodeJS.ProcessEnv; timeoutMs?: number } = {}): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, { cwd: opts.cwd, env: opts.env ?? process.env, stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    let timedOut = false;
    const timer = opts.timeoutMs
      ? setTimeout(() => { timedOut = true; child.kill('SIGKILL'); }, opts.timeoutMs)
      : undefined;
    child.stdout.setEncoding('utf8').on('data', (d: string) => { stdout += d; });
    child.stderr.setEncoding('utf8').on('data', (d: string) => { stderr += d; });
    child.on('error', (e) => { clearTimeout(timer); reject(e); });
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      if (code === 0) resolve(stdout);
      else {
        const why = timedOut ? `timed out after ${opts.timeoutMs} ms` : `exit ${code ?? signal}`;
        reject(new Error(`${path.basename(cmd)} ${args.join(' ')}: ${why}\n${stderr.trim()}`));
      }
    });
    child.stdin.on('error', () => { /* child may not read stdin */ });
    child.stdin.end(opts.input ?? '');
  });
}

const OPENSSL_CNF = `
[req]
distinguished_name = dn
prompt = no
[dn]
[ca_ext]
basicConstraints = critical,CA:TRUE
keyUsage = critical,keyCertSign,cRLSign,digitalSignature
subjectKeyIdentifier = hash
[server_ext]
basicConstraints = critical,CA:FALSE
keyUsage = critical,digitalSignature,keyEncipherment
extendedKeyUsage = serverAuth
subjectAltName = IP:127.0.0.1,DNS:localhost
authorityKeyIdentifier = keyid
[client_ext]
basicConstraints = critical,CA:FALSE
keyUsage = critical,digitalSignature,keyEncipherment
extendedKeyUsage = clientAuth
authorityKeyIdentifier = keyid
`;

interface Pem { cert: string; key: string }
interface ClusterCerts { ca: Pem; serving: Pem; users: Record<Identity, Pem> }

/**
 * Per cluster: its own CA (EC P-256), a serving cert for 127.0.0.1/localhost, one client cert per
 * identity, and a service-account signing key. Node's crypto cannot mint X.509 certificates, so
 * openssl (3.0+, `req -x509 -CA`) signs them.
 */
async function makeClusterCerts(dir: string, cluster: string): Promise<ClusterCerts> {
  await fsp.mkdir(dir, { recursive: true, mode: 0o700 });
  const cnf = path.join(dir, 'openssl.cnf');
  await fsp.writeFile(cnf, OPENSSL_CNF);
  const ec = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes'];
  const openssl = (args: string[]): Promise<string> => run('openssl', ['req', '-config', cnf, '-x509', ...ec, ...args], { cwd: dir, timeoutMs: 30_000 });
  await openssl(['-keyout', 'ca.key', '-out', 'ca.crt', '-days', '3650', '-subj', `/CN=kube-fleet-${cluster}-ca`, '-extensions', 'ca_ext']);
  const leaf = (base: string, subj: string, ext: string): Promise<string> =>
    openssl(['-keyout', `${base}.key`, '-out', `${base}.crt`, '-days', '365', '-subj', subj, '-CA', 'ca.crt', '-CAkey', 'ca.key', '-extensions', ext]);
  await Promise.all([
    leaf('serving', '/CN=kube-apiserver', 'server_ext'),
    leaf('admin', `/O=system:masters/CN=${IDENTITY_USERS.admin}`, 'client_ext'),
    leaf('reader', `/CN=${IDENTITY_USERS.reader}`, 'client_ext'),
    leaf('nobody', `/CN=${IDENTITY_USERS.nobody}`, 'client_ext'),
  ]);
  const sa = generateKeyPairSync('ec', {
    namedCurve: 'P-256',
    publicKeyEncoding: { type: 'spki', format: 'pem' },
    privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
  });
  await fsp.writeFile(path.join(dir, 'sa.key'), sa.privateKey, { mode: 0o600 });
  await fsp.writeFile(path.join(dir, 'sa.pub'), sa.publicKey);
  const read = async (base: string): Promise<Pem> => ({
    cert: await fsp.readFile(path.join(dir, `${base}.crt`), 'utf8'),
    key: await fsp.readFile(path.join(dir, `${base}.key`), 'utf8'),
  });
  return {
    ca: await read('ca'),
    serving: await read('serving'),
    users: { admin: await read('admin'), reader: await read('reader'), nobody: await read('nobody') },
  };
}

interface HttpResult { status: number; body: string }

function httpsRequest(
  url: string,
  tls: { ca: string; cert: string; key: string },
  opts: { method?: string; body?: string; contentType?: string; timeoutMs?: number } = {},
): Promise<HttpResult> {
  return new Promise((resolve, reject) => {
    const headers: http.OutgoingHttpHeaders = { accept: 'application/json' };
    if (opts.body !== undefined) {
      headers['content-type'] = opts.contentType ?? 'application/json';
      headers['content-length'] = Buffer.byteLength(opts.body);
    }
    const req = https.request(url, {
      method: opts.method ?? 'GET',
      ca: tls.ca,
      cert: tls.cert,
      key: tls.key,
      agent: false,
      headers,
      timeout: opts.timeoutMs ?? 10_000,
    }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (d: string) => { body += d; });
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
      res.on('error', reject);
    });
    req.on('timeout', () => req.destroy(new Error(`timeout after ${opts.timeoutMs ?? 10_000} ms`)));
    req.on('error', reject);
    req.end(opts.body);
  });
}

function httpGet(url: string, timeoutMs = 5_000): Promise<HttpResult> {
  return new Promise((resolve, reject) => {
    const req = http.get(url, { agent: false, timeout: timeoutMs }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (d: string) => { body += d; });
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on('timeout', () => req.destroy(new Error('timeout')));
    req.on('error', reject);
  });
}

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/**
 * Polls `check` until it returns true; fails early when `proc` exits, or after `timeoutMs`.
 * The error message carries the last check failure and the log tail.
 */
async function waitFor(proc: ManagedProcess, what: string, timeoutMs: number, check: () => Promise<string | true>): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let last = 'not checked yet';
  const exitedP = proc.exited().then(() => 'exited' as const);
  const fail = (why: string): KubeFleetUnavailableError =>
    new KubeFleetUnavailableError(`${proc.label} ${why} ${what}; last check: ${last}\n${proc.diagnostics()}`);
  for (;;) {
    if (!proc.running) {
      const ex = proc.lastExit;
      throw fail(`exited (${ex ? ex.code ?? ex.signal : 'unknown'}) before`);
    }
    try {
      // A check never outlives the process (e.g. a foreign listener on the port that never answers).
      const r = await Promise.race([check(), exitedP]);
      if (r === true) return;
      if (r !== 'exited') last = r;
    } catch (e) {
      last = (e as Error).message;
    }
    if (!proc.running) continue;
    if (Date.now() > deadline) throw fail(`timed out after ${Math.round(timeoutMs / 1000)}s waiting for`);
    await sleep(150);
  }
}

// ---------------------------------------------------------------------------------------------
// Clusters and fleet
// ---------------------------------------------------------------------------------------------

const NAME_RE = /^[a-z0-9]([a-z0-9-]{0,40}[a-z0-9])?$/;

class Cluster implements TestCluster {
  readonly server: string;
  readonly logFile: string;
  private readonly proc: ManagedProcess;
  private queue: Promise<unknown> = Promise.resolve();
  /** ms from spawn to ready of the last start() */
  lastStartMs = 0;

  constructor(
    readonly name: string,
    readonly port: number,
    readonly dir: string,
    readonly certs: ClusterCerts,
    binDir: string,
    etcdUrl: string,
    extraArgs: readonly string[] = [],
  ) {
    this.server = `https://127.0.0.1:${port}`;
    this.logFile = path.join(dir, 'kube-apiserver.log');
    const d = (f: string): string => path.join(dir, f);
    const args = [
      `--etcd-servers=${etcdUrl}`,
      `--etcd-prefix=/kube-fleet/${name}/registry`,
      '--etcd-compaction-interval=0',
      '--bind-address=127.0.0.1',
      '--advertise-address=127.0.0.1',
      `--secure-port=${port}`,
      `--cert-dir=${d('apiserver-certs')}`,
      `--tls-cert-file=${d('serving.crt')}`,
      `--tls-private-key-file=${d('serving.key')}`,
      `--client-ca-file=${d('ca.crt')}`,
      '--authorization-mode=RBAC',
      `--service-cluster-ip-range=${SERVICE_CIDR}`,
      `--service-account-issuer=${this.server}`,
      `--service-account-key-file=${d('sa.pub')}`,
      `--service-account-signing-key-file=${d('sa.key')}`,
      '--disable-admission-plugins=ServiceAccount',
      '--allow-privileged=true',
      '--endpoint-reconciler-type=none',
      '--profiling=false',
      ...extraArgs,
    ];
    const env: NodeJS.ProcessEnv = { ...process.env, GOMEMLIMIT: APISERVER_GOMEMLIMIT };
    this.proc = new ManagedProcess(`kube-apiserver[${name}]`, path.join(binDir, 'kube-apiserver'), args, this.logFile, env);
  }

  get running(): boolean {
    return this.proc.running;
  }

  get pid(): number | undefined {
    return this.proc.pid;
  }

  logTail(lines = 40): string {
    return this.proc.tail(lines);
  }

  /** Serialises stop/start so concurrent calls cannot interleave. */
  private serial<T>(fn: () => Promise<T>): Promise<T> {
    const next = this.queue.then(fn, fn);
    this.queue = next.catch(() => undefined);
    return next;
  }

  stop(): Promise<void> {
    return this.serial(() => this.proc.stop());
  }

  start(): Promise<void> {
    return this.serial(async () => {
      if (this.proc.running) return;
      this.proc.start();
      try {
        await this.waitReady();
      } catch (e) {
        await this.proc.stop(2_000);
        throw e;
      }
      this.lastStartMs = Date.now() - this.proc.spawnedAt;
    });
  }

  adminRequest(p: string, opts: { method?: string; body?: string; contentType?: string; timeoutMs?: number } = {}): Promise<HttpResult> {
    const u = this.certs.users.admin;
    return httpsRequest(`${this.server}${p}`, { ca: this.certs.ca.cert, cert: u.cert, key: u.key }, opts);
  }

  private async waitReady(): Promise<void> {
    const deadline = Date.now() + START_TIMEOUT_MS;
    const left = (): number => Math.max(1, deadline - Date.now());
    await waitFor(this.proc, `${this.server}/readyz`, left(), async () => {
      const r = await this.adminRequest('/readyz', { timeoutMs: 3_000 });
      return r.status === 200 ? true : `/readyz ${r.status}: ${r.body.slice(0, 300)}`;
    });
    for (const ns of ['default', 'kube-system']) {
      await waitFor(this.proc, `namespace ${ns}`, left(), async () => {
        const r = await this.adminRequest(`/api/v1/namespaces/${ns}`);
        return r.status === 200 ? true : `GET namespace ${ns}: ${r.status}`;
      });
    }
    // ClusterIPs are allocated from ServiceCIDR objects; the apiserver creates the default one
    // ("kubernetes") asynchronously. Wait for it so that creating a Service right away works.
    await waitFor(this.proc, 'ServiceCIDR "kubernetes" Ready', left(), async () => {
      const r = await this.adminRequest('/apis/networking.k8s.io/v1/servicecidrs/kubernetes');
      if (r.status !== 200) return `GET servicecidr kubernetes: ${r.status}`;
      const conds = (JSON.parse(r.body) as { status?: { conditions?: { type: string; status: string }[] } }).status?.conditions ?? [];
      return conds.some((c) => c.type === 'Ready' && c.status === 'True') ? true : 'ServiceCIDR kubernetes not Ready yet';
    });
  }

  /** Server-side apply of one cluster-scoped RBAC object (idempotent). */
  async apply(resourcePath: string, obj: object): Promise<void> {
    const r = await this.adminRequest(`${resourcePath}?fieldManager=kube-fleet&force=true`, {
      method: 'PATCH',
      body: JSON.stringify(obj),
      contentType: 'application/apply-patch+yaml',
    });
    if (r.status !== 200 && r.status !== 201) {
      throw new Error(`${this.name}: apply ${resourcePath} → HTTP ${r.status}: ${r.body}`);
    }
  }
}

class Fleet implements KubeFleet {
  readonly clusters: Record<string, Cluster> = {};
  private readonly kubeconfigs = new Map<Identity, string>();
  private stopping: Promise<void> | undefined;
  etcd: ManagedProcess | undefined;

  constructor(readonly binDir: string, readonly dir: string) {}

  kubeconfig(identity: Identity): string {
    const p = this.kubeconfigs.get(identity);
    if (!p) throw new Error(`unknown identity ${String(identity)} (admin | reader | nobody)`);
    return p;
  }

  writeKubeconfigs(): void {
    const names = Object.keys(this.clusters);
    for (const identity of ['admin', 'reader', 'nobody'] as const) {
      const b64 = (s: string): string => Buffer.from(s).toString('base64');
      const cfg = {
        apiVersion: 'v1',
        kind: 'Config',
        preferences: {},
        clusters: names.map((n) => ({
          name: n,
          cluster: { server: this.clusters[n]!.server, 'certificate-authority-data': b64(this.clusters[n]!.certs.ca.cert) },
        })),
        users: names.map((n) => ({
          name: `${n}-${identity}`,
          user: {
            'client-certificate-data': b64(this.clusters[n]!.certs.users[identity].cert),
            'client-key-data': b64(this.clusters[n]!.certs.users[identity].key),
          },
        })),
        contexts: names.map((n) => ({ name: n, context: { cluster: n, user: `${n}-${identity}` } })),
        'current-context': names[0],
      };
      const file = path.join(this.dir, `kubeconfig-${identity}.yaml`);
      fs.writeFileSync(file, toYaml(cfg), { mode: 0o600 });
      this.kubeconfigs.set(identity, file);
    }
  }

  async kubectl(cluster: string, args: string[], input?: string): Promise<string> {
    if (!this.clusters[cluster]) throw new Error(`unknown cluster ${cluster}`);
    const env = { ...process.env };
    delete env.KUBECONFIG;
    return run(path.join(this.binDir, 'kubectl'), [
      `--kubeconfig=${this.kubeconfig('admin')}`,
      `--context=${cluster}`,
      `--cache-dir=${path.join(this.dir, 'kubectl-cache')}`,
      ...args,
    ], { env, input, timeoutMs: 120_000 });
  }

  stop(): Promise<void> {
    this.stopping ??= (async () => {
      await Promise.all(Object.values(this.clusters).map((c) => c.stop().catch(() => undefined)));
      await this.etcd?.stop().catch(() => undefined);
      await fsp.rm(this.dir, { recursive: true, force: true }).catch(() => undefined);
      untrackDir(this.dir);
    })();
    return this.stopping;
  }
}

/** Retries `fn` (with fresh ports) when a child lost the race for its port to another process. */
async function retryOnPortClash<T>(fn: (attempt: number) => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await fn(attempt);
    } catch (e) {
      if (attempt >= 3 || !(e instanceof KubeFleetUnavailableError) || !/address already in use/.test(e.message)) throw e;
    }
  }
}

/** Starts etcd and one kube-apiserver per name (sequentially), creates RBAC, writes kubeconfigs. */
export async function startKubeFleet(names: string[], options: KubeFleetOptions): Promise<KubeFleet> {
  if (names.length === 0) throw new Error('startKubeFleet: no cluster names');
  for (const n of names) {
    if (!NAME_RE.test(n)) throw new Error(`startKubeFleet: invalid cluster name ${JSON.stringify(n)} (want a DNS label)`);
  }
  if (new Set(names).size !== names.length) throw new Error(`startKubeFleet: duplicate cluster names in ${names.join(',')}`);

  const binDir = await ensureKubeBinaries();
  installExitHooks();
  const dir = await fsp.mkdtemp(path.join(tempRoot(), 'kube-fleet-'));
  trackDir(dir);
  const fleet = new Fleet(binDir, dir);
  try {
    // Certificates for all clusters first (fast, parallel), then etcd, then the apiservers one by one.
    const certsP = Promise.all(names.map((n) => makeClusterCerts(path.join(dir, n), n)));

    const etcdUrl = await retryOnPortClash(async (attempt) => {
      const [clientPort, peerPort] = [await freePort(), await freePort()];
      const url = `http://127.0.0.1:${clientPort}`;
      const peerUrl = `http://127.0.0.1:${peerPort}`;
      const etcd = new ManagedProcess('etcd', path.join(binDir, 'etcd'), [
        '--name=kube-fleet',
        `--data-dir=${path.join(dir, `etcd-data-${attempt}`)}`,
        `--listen-client-urls=${url}`,
        `--advertise-client-urls=${url}`,
        `--listen-peer-urls=${peerUrl}`,
        `--initial-advertise-peer-urls=${peerUrl}`,
        `--initial-cluster=kube-fleet=${peerUrl}`,
        '--unsafe-no-fsync=true',
        '--quota-backend-bytes=4294967296',
        '--log-level=warn',
      ], path.join(dir, 'etcd.log'), { ...process.env, GOMEMLIMIT: ETCD_GOMEMLIMIT });
      fleet.etcd = etcd;
      etcd.start();
      try {
        await waitFor(etcd, `${url}/health`, 60_000, async () => {
          const r = await httpGet(`${url}/health`);
          return r.status === 200 && r.body.includes('"true"') ? true : `/health ${r.status} ${r.body}`;
        });
      } catch (e) {
        await etcd.stop(2_000);
        throw e;
      }
      return url;
    });

    const certs = await certsP;
    for (const [i, name] of names.entries()) {
      const c = await retryOnPortClash(async () => {
        const cluster = new Cluster(name, await freePort(), path.join(dir, name), certs[i]!, binDir, etcdUrl, options.extraApiserverArgs);
        fleet.clusters[name] = cluster;
        await cluster.start();
        return cluster;
      });
      await c.apply(`/apis/rbac.authorization.k8s.io/v1/clusterroles/${READER_CLUSTER_ROLE}`, {
        apiVersion: 'rbac.authorization.k8s.io/v1',
        kind: 'ClusterRole',
        metadata: { name: READER_CLUSTER_ROLE, labels: { 'app.kubernetes.io/managed-by': 'kube-fleet' } },
        rules: options.readerRules.map((r) => ({ apiGroups: [...r.apiGroups], resources: [...r.resources], verbs: [...r.verbs] })),
      });
      await c.apply(`/apis/rbac.authorization.k8s.io/v1/clusterrolebindings/${READER_CLUSTER_ROLE}`, {
        apiVersion: 'rbac.authorization.k8s.io/v1',
        kind: 'ClusterRoleBinding',
        metadata: { name: READER_CLUSTER_ROLE, labels: { 'app.kubernetes.io/managed-by': 'kube-fleet' } },
        roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: READER_CLUSTER_ROLE },
        subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'User', name: IDENTITY_USERS.reader }],
      });
    }
    fleet.writeKubeconfigs();
    return fleet;
  } catch (e) {
    await fleet.stop();
    throw e;
  }
}

/** Why the last kubeFleetForTests() call returned undefined (for suites, which cannot skip themselves). */
export let kubeFleetSkipReason: string | undefined;

/**
 * For test files: returns a started fleet, or `undefined` after calling t.skip(reason) when the
 * binaries cannot be built/found (no Go, build failure) or etcd/an apiserver cannot start — but
 * when process.env.CI === 'true' it throws instead (CI must fail, not skip).
 *
 * A SuiteContext (what `before()` inside `describe()` receives) has no skip(): then the reason is
 * written to stderr and kept in `kubeFleetSkipReason`; each test should `t.skip()` when the fleet
 * is undefined. Other errors (bad names/options, RBAC rejected) are always thrown.
 */
export async function kubeFleetForTests(
  t: TestContext | SuiteContext | undefined,
  names: string[],
  options: KubeFleetOptions,
): Promise<KubeFleet | undefined> {
  kubeFleetSkipReason = undefined;
  try {
    return await startKubeFleet(names, options);
  } catch (e) {
    if (!(e instanceof KubeFleetUnavailableError) || process.env.CI === 'true') throw e;
    // TAP skip reasons are one line; the full diagnostics (log tails, build errors) go to stderr.
    const first = e.message.split('\n').find((l) => l.trim() !== '') ?? e.message;
    const reason = `real kube-apiservers unavailable (set CI=true to fail instead): ${first.slice(0, 400)}`;
    kubeFleetSkipReason = reason;
    process.stderr.write(`kube-fleet: skipping: ${e.message}\n`);
    if (t && 'skip' in t && typeof t.skip === 'function') t.skip(reason);
    return undefined;
  }
}
