/**
 * kube-controller-manager: Kubernetes' own controllers, the ones a test names, running against one
 * cluster of a kube-fleet (which otherwise runs none). For example `endpointslicemirroring`, which
 * turns the Endpoints of a selectorless Service (Linkerd's mirrors) into EndpointSlices and deletes
 * them again when the Endpoints get `endpointslice.kubernetes.io/skip-mirror: "true"`.
 *
 * The binary comes from `build-kube-controller-manager.sh` (next to this file), built once from Go
 * modules and cached beside the apiserver's (or from KUBE_CONTROLLER_MANAGER_ASSETS); the Argo CD harness
 * uses the same script for the garbage collector. It runs with the fleet's admin
 * identity, without serving (`--secure-port=0`) and without leader election; a test learns that it
 * works from what it does (poll for the objects it writes).
 */
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { SuiteContext, TestContext } from 'node:test';
import { parse, stringify } from 'yaml';
import { ManagedProcess, type KubeFleet } from './kube-fleet.js';

/** The binary could not be built, found or started. */
export class KubeControllerManagerUnavailableError extends Error {
  override name = 'KubeControllerManagerUnavailableError';
}

export interface KubeControllerManager {
  readonly cluster: string;
  readonly logFile: string;
  /** Whether the process is alive. */
  readonly running: boolean;
  /** Last lines of its log. */
  logTail(lines?: number): string;
  /** Stops it. Idempotent. */
  stop(): Promise<void>;
}

const HARNESS_DIR = path.dirname(fileURLToPath(import.meta.url));
const BUILD_SCRIPT = path.join(HARNESS_DIR, 'build-kube-controller-manager.sh');

let buildPromise: Promise<string> | undefined;

/** Runs build-kube-controller-manager.sh (cached after the first build); resolves with the binary's directory. Memoised per process. */
export function ensureKubeControllerManager(): Promise<string> {
  buildPromise ??= new Promise<string>((resolve, reject) => {
    const child = spawn('bash', [BUILD_SCRIPT], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => { out += d; });
    child.stderr.setEncoding('utf8').on('data', (d: string) => { err += d; });
    child.on('error', (e) => reject(new KubeControllerManagerUnavailableError(`build-kube-controller-manager.sh: ${e.message}`)));
    child.on('close', (code) => {
      const dir = out.trim().split('\n').pop() ?? '';
      if (code === 0 && dir !== '' && fs.existsSync(path.join(dir, 'kube-controller-manager'))) resolve(dir);
      else reject(new KubeControllerManagerUnavailableError(`build-kube-controller-manager.sh failed (${code}):\n${err.trimEnd().split('\n').slice(-30).join('\n')}`));
    });
  });
  return buildPromise;
}

/** Starts kube-controller-manager for `cluster` of `fleet` with only `controllers` (e.g. `['endpointslicemirroring']`). */
export async function startKubeControllerManager(fleet: KubeFleet, cluster: string, controllers: readonly string[]): Promise<KubeControllerManager> {
  const dir = await ensureKubeControllerManager();
  // Its kubeconfig holds the admin identity with this cluster's context as the current one.
  const config = parse(fs.readFileSync(fleet.kubeconfig('admin'), 'utf8')) as { 'current-context'?: string };
  config['current-context'] = cluster;
  const kubeconfig = path.join(fleet.dir, `kcm-${cluster}.kubeconfig`);
  fs.writeFileSync(kubeconfig, stringify(config), { mode: 0o600 });
  const logFile = path.join(fleet.dir, `kube-controller-manager-${cluster}.log`);
  const proc = new ManagedProcess(`kube-controller-manager (${cluster})`, path.join(dir, 'kube-controller-manager'), [
    `--kubeconfig=${kubeconfig}`,
    `--controllers=${controllers.join(',')}`,
    '--leader-elect=false',
    '--secure-port=0',
    '--use-service-account-credentials=false',
    '--v=2',
  ], logFile, { ...process.env, GOMEMLIMIT: process.env.KUBE_CONTROLLER_MANAGER_GOMEMLIMIT ?? '512MiB' });
  proc.start();
  // It has no port to ask; it fails fast on a bad flag or kubeconfig, so give it a moment's chance to exit.
  const early = await Promise.race([proc.exited(), new Promise<undefined>((resolve) => setTimeout(() => resolve(undefined), 2000))]);
  if (early !== undefined || !proc.running) throw new KubeControllerManagerUnavailableError(`kube-controller-manager exited at start:\n${proc.diagnostics()}`);
  return {
    cluster,
    logFile,
    get running() {
      return proc.running;
    },
    logTail: (lines) => proc.tail(lines),
    stop: () => proc.stop(),
  };
}

/** Why the last kubeControllerManagerForTests() call returned undefined. */
export let kubeControllerManagerSkipReason: string | undefined;

/** For test files: a started controller manager, or undefined after skipping when it cannot be built or started — except with CI=true, where that throws. */
export async function kubeControllerManagerForTests(
  t: TestContext | SuiteContext | undefined,
  fleet: KubeFleet,
  cluster: string,
  controllers: readonly string[],
): Promise<KubeControllerManager | undefined> {
  kubeControllerManagerSkipReason = undefined;
  try {
    return await startKubeControllerManager(fleet, cluster, controllers);
  } catch (e) {
    if (!(e instanceof KubeControllerManagerUnavailableError) || process.env.CI === 'true') throw e;
    const first = e.message.split('\n').find((l) => l.trim() !== '') ?? e.message;
    kubeControllerManagerSkipReason = `kube-controller-manager unavailable (set CI=true to fail instead): ${first.slice(0, 400)}`;
    process.stderr.write(`kube-controller-manager: skipping: ${e.message}\n`);
    if (t && 'skip' in t && typeof t.skip === 'function') t.skip(kubeControllerManagerSkipReason);
    return undefined;
  }
}
