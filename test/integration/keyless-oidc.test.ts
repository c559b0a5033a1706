/**
 * The keyless path: real kube-apiservers trust a small OIDC issuer on 127.0.0.1 (structured
 * authentication configuration, `--authentication-config`, AuthenticationConfiguration
 * apiserver.config.k8s.io/v1), standing in for GitHub Actions' issuer. The kubeconfig holds no
 * secret: an `exec` credential plugin (examples/github-actions/github-oidc-credential.mjs, the one the
 * docs ship) fetches a CI-style ID token from the runner-style token endpoint; RBAC binds the
 * identity of the main branch (user `github:` + sub) to the reader role. synth observes with it; a
 * token for another ref is authenticated but forbidden.
 */
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { after, before, describe, test } from 'node:test';
import YAML from 'yaml';
import { observationRules } from '../../src/observe/observation-rbac.js';
import { renderLockFile } from '../../src/observe/lock-file.js';
import { emptySnapshot } from '../../src/snapshot/snapshot.js';
import { kubeFleetForTests, kubeFleetSkipReason, READER_CLUSTER_ROLE, type KubeFleet } from '../harness/kube-fleet.js';
import { startOidcIssuer, type OidcIssuer } from '../harness/oidc-issuer.js';
import { runProcess, SafetyRepo } from '../safety/support.js';
import { applyService, ensureNamespace, installGateway } from './support.js';

const PLUGIN = resolve('examples/github-actions/github-oidc-credential.mjs');
const AUDIENCE = 'mirrorc-fleet';
const MAIN_SUB = 'repo:org/fleet:ref:refs/heads/main';

describe('keyless: a CI OIDC token through an exec credential plugin (real kube-apiservers)', () => {
  let dir: string;
  let issuer: OidcIssuer | undefined;
  let fleet: KubeFleet | undefined;
  let repo: SafetyRepo;
  let kubeconfig: string;

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'mirrorc-oidc-'));
    issuer = await startOidcIssuer(join(dir, 'issuer'));
    const authConfig = join(dir, 'authentication-config.yaml');
    writeFileSync(authConfig, YAML.stringify({
      apiVersion: 'apiserver.config.k8s.io/v1',
      kind: 'AuthenticationConfiguration',
      jwt: [{
        issuer: { url: issuer.url, audiences: [AUDIENCE], certificateAuthority: issuer.caPem },
        claimMappings: { username: { claim: 'sub', prefix: 'github:' } },
      }],
    }));
    fleet = await kubeFleetForTests(undefined, ['london', 'paris'], {
      readerRules: observationRules({ source: true, target: true }),
      extraApiserverArgs: [`--authentication-config=${authConfig}`],
    });
    if (!fleet) return;
    // RBAC: only the main branch's identity reads, through the reader role.
    for (const c of ['london', 'paris']) {
      await fleet.kubectl(c, ['create', 'clusterrolebinding', 'github-main-reader', `--clusterrole=${READER_CLUSTER_ROLE}`, `--user=github:${MAIN_SUB}`]);
    }
    await installGateway(fleet, 'paris', '192.0.2.20');
    await applyService(fleet, 'paris', 'shop', 'cart', { app: 'cart', 'mirror.linkerd.io/exported': 'true' });
    await ensureNamespace(fleet, 'london', 'shop');
    // The kubeconfig: servers and CAs from the fleet, one exec user, no token, no key.
    const admin = YAML.parse(readFileSync(fleet.kubeconfig('admin'), 'utf8')) as { clusters: unknown[] };
    kubeconfig = join(dir, 'keyless.kubeconfig');
    writeFileSync(kubeconfig, YAML.stringify({
      apiVersion: 'v1', kind: 'Config',
      clusters: admin.clusters,
      users: [{ name: 'github-actions', user: { exec: { apiVersion: 'client.authentication.k8s.io/v1', command: process.execPath, args: [PLUGIN, AUDIENCE], interactiveMode: 'Never' } } }],
      contexts: ['london', 'paris'].map((name) => ({ name, context: { cluster: name, user: 'github-actions' } })),
      'current-context': 'london',
    }));
    repo = new SafetyRepo();
    repo.writeFleet(`const london = new Cluster(fleet, 'london');
const paris = new Cluster(fleet, 'paris');
new Link(fleet, 'london-from-paris', { source: london, target: paris });`);
    repo.writeLock(renderLockFile(emptySnapshot()));
  });
  after(async () => {
    await fleet?.stop();
    await issuer?.stop();
    repo?.remove();
    rmSync(dir, { recursive: true, force: true });
  });

  /** The environment of a GitHub job with `id-token: write`, pointed at the test issuer. */
  const jobEnv = (): Record<string, string> => ({
    ACTIONS_ID_TOKEN_REQUEST_URL: issuer!.requestUrl,
    ACTIONS_ID_TOKEN_REQUEST_TOKEN: issuer!.requestToken,
    NODE_EXTRA_CA_CERTS: issuer!.caFile,
  });
  // Asynchronous: the issuer answers from this process, so nothing here may block the event loop.
  const whoami = async (cluster: string): Promise<{ status: number | null; out: string }> => {
    const r = await runProcess(join(fleet!.binDir, 'kubectl'), [`--kubeconfig=${kubeconfig}`, `--context=${cluster}`, 'auth', 'whoami', '-o', 'json'], dir, { KUBECONFIG: '', ...jobEnv() });
    return { status: r.code, out: r.stdout + r.stderr };
  };

  test('synth observes both clusters with the main branch\'s token; the kubeconfig holds no secret', async (t) => {
    if (!fleet || !issuer) return t.skip(kubeFleetSkipReason);
    issuer.claims = { sub: MAIN_SUB, repository: 'org/fleet', ref: 'refs/heads/main' };
    // The JWT authenticator fetches the issuer's keys after start-up: wait until each API server
    // authenticates the token (generous deadline; no sleep-then-assert).
    for (const c of ['london', 'paris']) {
      const deadline = Date.now() + 120_000;
      let last = await whoami(c);
      while (!(last.status === 0 && last.out.includes(`github:${MAIN_SUB}`)) && Date.now() < deadline) {
        await new Promise((r) => setTimeout(r, 500));
        last = await whoami(c);
      }
      assert.equal(last.status, 0, `${c}: the API server never accepted the OIDC token: ${last.out}`);
      assert.match(last.out, /"username": "github:repo:org\/fleet:ref:refs\/heads\/main"/);
    }
    // No stored secret: no token, key or password in the kubeconfig
    assert.doesNotMatch(readFileSync(kubeconfig, 'utf8'), /token|client-key|password|eyJ/);

    const synth = await repo.run(['synth', '--kubeconfig', kubeconfig], { env: jobEnv() });
    assert.equal(synth.code, 0, synth.stderr);
    assert.deepEqual(synth.report.targets.map((c: { cluster: string; reachable: boolean }) => [c.cluster, c.reachable]), [['paris', true]]);
    assert.deepEqual(synth.report.sources.map((c: { cluster: string; reachable: boolean }) => [c.cluster, c.reachable]), [['london', true]]);
    assert.ok(existsSync(join(repo.outDir, 'london', 'from-paris', 'shop', 'service-cart-paris.yaml')), synth.stderr);
    assert.doesNotMatch(synth.stderr, /eyJ/, 'a token was printed');
  });

  test('a token for another ref is authenticated but forbidden; without id-token permission the plugin says so', async (t) => {
    if (!fleet || !issuer) return t.skip(kubeFleetSkipReason);
    issuer.claims = { sub: 'repo:org/fleet:pull_request', repository: 'org/fleet' };
    const pr = await repo.run(['plan', '--kubeconfig', kubeconfig], { env: jobEnv() });
    assert.equal(pr.code, 0, pr.stderr);
    const paris = pr.report.targets.find((c: { cluster: string }) => c.cluster === 'paris');
    assert.equal(paris.reachable, false);
    assert.match(paris.error, /forbidden.*github:repo:org\/fleet:pull_request/);

    const noPermission = await runProcess(process.execPath, [PLUGIN, AUDIENCE], dir, { ACTIONS_ID_TOKEN_REQUEST_URL: '', ACTIONS_ID_TOKEN_REQUEST_TOKEN: '' });
    assert.equal(noPermission.code, 1);
    assert.match(noPermission.stderr, /id-token: write/);
  });
});
