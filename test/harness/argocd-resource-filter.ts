/**
 * argocd-resource-filter: Argo CD's own settings code (util/settings of argo-cd v3.6.1, a small Go
 * program in argocd-resource-filter/main.go) asked which kinds Argo CD would ignore, reading argocd-cm
 * from a live cluster as Argo CD's controllers do. Built and cached by build-argocd-resource-filter.sh.
 *
 * A stand-in for a running Argo CD, which cannot be built here (see the README, "Delivery with Argo CD").
 */
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';

/** The program could not be built or found. */
export class ArgoCdResourceFilterUnavailableError extends Error {
  override name = 'ArgoCdResourceFilterUnavailableError';
}

/** What Argo CD does with one kind: ignore it, or list it with this label selector ('' = all objects). */
export interface ResourceVerdict {
  readonly excluded: boolean;
  readonly selector: string;
}

const BUILD_SCRIPT = path.join(path.dirname(fileURLToPath(import.meta.url)), 'build-argocd-resource-filter.sh');

function exec(cmd: string, args: readonly string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => { out += d; });
    child.stderr.setEncoding('utf8').on('data', (d: string) => { err += d; });
    child.on('error', (e) => reject(new Error(`${cmd}: ${e.message}`)));
    child.on('close', (code, signal) => {
      if (code === 0) resolve(out);
      else reject(new Error(`${cmd} failed (${code ?? signal}):\n${err.trimEnd().split('\n').slice(-30).join('\n')}`));
    });
  });
}

let buildPromise: Promise<string> | undefined;

/** The path of the built program (built once, then cached). Memoised per process (a failure too). */
export function ensureArgoCdResourceFilter(): Promise<string> {
  buildPromise ??= (async () => {
    let stdout: string;
    try {
      stdout = await exec('bash', [BUILD_SCRIPT]);
    } catch (e) {
      throw new ArgoCdResourceFilterUnavailableError(`${BUILD_SCRIPT}: ${(e as Error).message}`);
    }
    const bin = path.join(stdout.trim().split('\n').pop()?.trim() ?? '', 'argocd-resource-filter');
    try {
      fs.accessSync(bin, fs.constants.X_OK);
    } catch {
      throw new ArgoCdResourceFilterUnavailableError(`${BUILD_SCRIPT} built no executable ${bin}`);
    }
    return bin;
  })();
  return buildPromise;
}

/**
 * Argo CD's verdict for each `group/Kind` (core group: `/Endpoints`) in the cluster at `clusterUrl`,
 * from the argocd-cm in `namespace` of the kubeconfig's current context.
 */
export async function argoCdResourceVerdicts(kubeconfig: string, namespace: string, clusterUrl: string, kinds: readonly string[]): Promise<Record<string, ResourceVerdict>> {
  const bin = await ensureArgoCdResourceFilter();
  return JSON.parse(await exec(bin, [kubeconfig, namespace, clusterUrl, ...kinds])) as Record<string, ResourceVerdict>;
}
