/** Shared steps of the integration tests: target setup through kubectl, synth runs, file snapshots. */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runSynth, type SynthOptions, type SynthResult } from '../../src/cli/synth.js';
import type { FleetDefinition } from '../../src/cli/load-fleet.js';
import { readTree } from '../../src/emit/write-output.js';
import type { KubeFleet } from '../harness/kube-fleet.js';

export const GATEWAY_IDENTITY = 'linkerd-gateway.linkerd-multicluster.serviceaccount.identity.linkerd.cluster.local';

/** Creates the Linkerd gateway Service of a target, with a load-balancer address in its status. */
export async function installGateway(fleet: KubeFleet, cluster: string, ip: string, port = 4143): Promise<void> {
  await fleet.kubectl(cluster, ['apply', '-f', '-'], JSON.stringify({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'linkerd-multicluster' } }));
  await fleet.kubectl(cluster, ['apply', '-f', '-'], JSON.stringify({
    apiVersion: 'v1',
    kind: 'Service',
    metadata: { name: 'linkerd-gateway', namespace: 'linkerd-multicluster', annotations: { 'mirror.linkerd.io/gateway-identity': GATEWAY_IDENTITY } },
    spec: { type: 'LoadBalancer', selector: { app: 'linkerd-gateway' }, ports: [{ name: 'mc-gateway', port, targetPort: port }, { name: 'mc-probe', port: 4191 }] },
  }));
  await fleet.kubectl(cluster, ['patch', 'service', 'linkerd-gateway', '-n', 'linkerd-multicluster', '--subresource=status', '--type=merge', '-p',
    JSON.stringify({ status: { loadBalancer: { ingress: [{ ip }] } } })]);
}

/** Creates (or updates) a namespace. */
export async function ensureNamespace(fleet: KubeFleet, cluster: string, name: string): Promise<void> {
  await fleet.kubectl(cluster, ['apply', '-f', '-'], JSON.stringify({ apiVersion: 'v1', kind: 'Namespace', metadata: { name } }));
}

/** Creates (or updates) a Service in a target. */
export async function applyService(fleet: KubeFleet, cluster: string, namespace: string, name: string, labels: Record<string, string>, extra: Record<string, unknown> = {}): Promise<void> {
  await ensureNamespace(fleet, cluster, namespace);
  await fleet.kubectl(cluster, ['apply', '-f', '-'], JSON.stringify({
    apiVersion: 'v1',
    kind: 'Service',
    metadata: { name, namespace, labels, ...(extra.annotations ? { annotations: extra.annotations } : {}) },
    spec: { selector: { app: name }, ports: [{ name: 'http', port: 80, targetPort: 8080 }], ...((extra.spec as object) ?? {}) },
  }));
}

/** A scratch directory with its own dist/ and lock file. */
export class Workspace {
  public readonly dir = mkdtempSync(join(tmpdir(), 'mirrorc-it-'));
  public readonly outDir = join(this.dir, 'dist');
  public readonly lockFile = join(this.dir, 'fleet.lock.json');
  public readonly logs: string[] = [];

  constructor(private readonly define: FleetDefinition, private readonly kubeconfig: string) {}

  public synth(extra: Partial<SynthOptions> = {}): Promise<SynthResult> {
    this.logs.length = 0;
    return runSynth({
      define: this.define,
      lockFile: this.lockFile,
      outDir: this.outDir,
      kubeconfig: this.kubeconfig,
      requestTimeoutMs: 5000,
      log: (line) => this.logs.push(line),
      ...extra,
    });
  }

  /** Every output file and the lock, as text. */
  public files(): Map<string, string> {
    const tree = readTree(this.outDir);
    try {
      tree.set('LOCK', readFileSync(this.lockFile, 'utf8'));
    } catch {
      /* no lock yet */
    }
    return tree;
  }

  public paths(cluster: string): string[] {
    return [...readTree(join(this.outDir, cluster)).keys()];
  }

  public remove(): void {
    rmSync(this.dir, { recursive: true, force: true });
  }
}
