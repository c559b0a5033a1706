/**
 * The observer kubeconfig that `mirrorc access` writes: per cluster a cluster entry (server, CA), a
 * user holding the minted token, and a context named as the fleet's access expects. Pure: built from
 * data, merged with an existing file's entries for other clusters (rotating one cluster keeps the rest).
 */
import YAML from 'yaml';
import { compareStrings } from '../util/order.js';

/** One cluster's minted credentials. */
export interface MintedCluster {
  /** The fleet's cluster name (the kubeconfig's cluster entry). */
  readonly cluster: string;
  /** The context name the fleet's access uses for it. */
  readonly context: string;
  readonly server: string;
  /** PEM of the CA that signs the API server's certificate; absent when the admin kubeconfig skips verification. */
  readonly caPem?: string;
  /** TLS server name (SNI) to verify, when the admin kubeconfig sets one. */
  readonly tlsServerName?: string;
  /** Only when the admin kubeconfig itself skips TLS verification. */
  readonly insecureSkipTlsVerify?: boolean;
  readonly token: string;
}

interface Named { readonly name: string }

/** The user entry of a cluster's observer identity. */
export function observerUserName(cluster: string): string {
  return `${cluster}-mirrorc-observer`;
}

/**
 * Kubeconfig YAML holding `minted`, plus the entries of `existing` (a kubeconfig's text) that belong
 * to other clusters and contexts. Entries are sorted by name, so the file is stable.
 */
export function observerKubeconfigYaml(minted: readonly MintedCluster[], existing?: string): string {
  const old = existing ? (YAML.parse(existing) as { clusters?: Named[]; users?: Named[]; contexts?: Named[] } | null) ?? {} : {};
  const replaced = (entries: Named[] | undefined, names: ReadonlySet<string>): Named[] => (Array.isArray(entries) ? entries : []).filter((e) => !names.has(e.name));
  const clusters = [...replaced(old.clusters, new Set(minted.map((m) => m.cluster))), ...minted.map((m) => ({
    name: m.cluster,
    cluster: {
      server: m.server,
      ...(m.caPem !== undefined ? { 'certificate-authority-data': Buffer.from(m.caPem).toString('base64') } : {}),
      ...(m.tlsServerName !== undefined ? { 'tls-server-name': m.tlsServerName } : {}),
      ...(m.insecureSkipTlsVerify ? { 'insecure-skip-tls-verify': true } : {}),
    },
  }))];
  const users = [...replaced(old.users, new Set(minted.map((m) => observerUserName(m.cluster)))), ...minted.map((m) => ({ name: observerUserName(m.cluster), user: { token: m.token } }))];
  const contexts = [...replaced(old.contexts, new Set(minted.map((m) => m.context))), ...minted.map((m) => ({
    name: m.context,
    context: { cluster: m.cluster, user: observerUserName(m.cluster) },
  }))];
  const byName = (a: Named, b: Named): number => compareStrings(a.name, b.name);
  return YAML.stringify({
    apiVersion: 'v1',
    kind: 'Config',
    clusters: clusters.sort(byName),
    users: users.sort(byName),
    contexts: contexts.sort(byName),
    'current-context': contexts.sort(byName)[0]?.name ?? '',
  });
}
