/**
 * Reads a cluster's Linkerd trust roots (the `linkerd-identity-trust-roots` ConfigMap of its control
 * plane namespace) and keeps of each certificate only its SHA-256 fingerprint, subject and expiry:
 * the lock and the output never hold certificate content.
 */
import { X509Certificate } from 'node:crypto';
import { TRUST_ROOTS_BUNDLE_KEY, TRUST_ROOTS_CONFIGMAP } from '../contract/linkerd.js';
import { compareBy } from '../util/order.js';
import { observedTrustRootSchema } from './lock-schema.js';
import type { ClusterClient } from './cluster-client.js';
import type { ObservedTrustRoot } from '../snapshot/snapshot.js';

/** The roots found (absent when none could be read) and why the check cannot use them. */
export interface TrustRootsObservation {
  /** Sorted by fingerprint, each once; absent when the ConfigMap is missing or holds no certificate. */
  readonly roots?: readonly ObservedTrustRoot[];
  /** Why roots are absent or incomplete, each naming the cluster. */
  readonly problems: readonly string[];
}

const PEM_BLOCK = /-----BEGIN CERTIFICATE-----[\s\S]*?-----END CERTIFICATE-----/g;

/**
 * Most certificate blocks read from one bundle. A ConfigMap holds at most 1 MiB and the smallest
 * usable root is some 400 bytes of PEM, so a real bundle has far fewer (Linkerd's hold one or two
 * roots, three while rotating); a bundle with more is left out whole, not parsed block by block.
 */
export const MAX_TRUST_BUNDLE_BLOCKS = 1000;

/** Unparseable blocks named one by one; the rest are counted. */
const MAX_BLOCK_PROBLEMS = 10;

/**
 * Gets the trust roots ConfigMap from `namespace` (one `get` by name; nothing else is read).
 * @throws ObservationError when the API refuses or fails (not when the ConfigMap is missing)
 */
export async function observeTrustRoots(client: ClusterClient, namespace: string): Promise<TrustRootsObservation> {
  const where = `cluster "${client.cluster}": ConfigMap ${namespace}/${TRUST_ROOTS_CONFIGMAP}`;
  const configMap = await client.readConfigMap(namespace, TRUST_ROOTS_CONFIGMAP);
  if (!configMap) {
    return { problems: [`${where} does not exist, so the trust-anchor check of this cluster's links is skipped (is Linkerd installed, in namespace "${namespace}"? set controlPlaneNamespace otherwise)`] };
  }
  const bundle = configMap.data?.[TRUST_ROOTS_BUNDLE_KEY];
  return trustRootsOfBundle(where, typeof bundle === 'string' ? bundle : '');
}

/** The roots of one PEM bundle; a block that is not a certificate is reported and left out. */
export function trustRootsOfBundle(where: string, bundle: string): TrustRootsObservation {
  const problems: string[] = [];
  const byFingerprint = new Map<string, ObservedTrustRoot>();
  let blocks = 0;
  let unparseable = 0;
  for (const match of bundle.matchAll(PEM_BLOCK)) {
    if (++blocks > MAX_TRUST_BUNDLE_BLOCKS) {
      return { problems: [`${where} holds more than ${MAX_TRUST_BUNDLE_BLOCKS} blocks under "${TRUST_ROOTS_BUNDLE_KEY}", more than any real trust bundle, so it is not read and the trust-anchor check of this cluster's links is skipped; fix the ConfigMap`] };
    }
    try {
      const cert = new X509Certificate(match[0]);
      const root: ObservedTrustRoot = {
        fingerprint: cert.fingerprint256,
        subject: cert.subject.split('\n').filter((part) => part !== '').join(', '),
        notAfter: new Date(cert.validTo).toISOString(),
      };
      // The same boundary check as the lock's, so what observation records always reads back.
      if (!observedTrustRootSchema.safeParse(root).success) throw new Error('not recordable');
      byFingerprint.set(root.fingerprint, root);
    } catch {
      if (++unparseable <= MAX_BLOCK_PROBLEMS) problems.push(`${where}: certificate ${blocks} of "${TRUST_ROOTS_BUNDLE_KEY}" cannot be parsed and is left out of the trust-anchor check`);
    }
  }
  if (unparseable > MAX_BLOCK_PROBLEMS) problems.push(`${where}: ${unparseable - MAX_BLOCK_PROBLEMS} more certificates of "${TRUST_ROOTS_BUNDLE_KEY}" cannot be parsed and are left out of the trust-anchor check`);
  if (byFingerprint.size === 0) {
    problems.push(`${where} holds no certificate under "${TRUST_ROOTS_BUNDLE_KEY}", so the trust-anchor check of this cluster's links is skipped`);
    return { problems };
  }
  return { roots: [...byFingerprint.values()].sort(compareBy((r) => r.fingerprint)), problems };
}
