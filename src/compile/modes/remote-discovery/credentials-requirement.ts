/**
 * The credentials Secret that flat mode and federated members need in each source, per target (contract §4.1).
 * mirrorc never writes it (its data is a kubeconfig with a token of the target); compile only
 * describes it, so that the user can provide it by other means, and warns when the link does not
 * declare how it is provided.
 */
import {
  CLUSTER_STORE_CLUSTER_DOMAIN_ANNOTATION,
  CLUSTER_STORE_CLUSTER_NAME_LABEL,
  CLUSTER_STORE_TRUST_DOMAIN_ANNOTATION,
  credentialsSecretName,
  FEDERATED_NAME_SUFFIX,
  KUBECONFIG_SECRET_KEY,
  LINKERD_CONTROL_PLANE_NAMESPACE,
  REMOTE_KUBECONFIG_SECRET_TYPE,
} from '../../../contract/linkerd.js';
import type { ClusterSpec, LinkSpec } from '../../../model/fleet-spec.js';

/** A Secret that must exist in a source cluster for its flat-mode mirrors and federated members to resolve; mirrorc does not write it. */
export interface SecretRequirement {
  /** The cluster the Secret must exist in (the link's source). */
  readonly cluster: string;
  /** The cluster whose API the kubeconfig in it reaches (the link's target). */
  readonly target: string;
  /** Construct path of the link that needs it. */
  readonly link: string;
  /** How the link says the Secret is provided; undefined when it does not say (compile then warns). */
  readonly provided: 'external' | undefined;
  /** The flat-mode mirrors and federated Services that need it, `namespace/name`, sorted. */
  readonly neededBy: readonly string[];
  readonly name: string;
  readonly namespace: string;
  readonly type: string;
  readonly labels: Readonly<Record<string, string>>;
  readonly annotations: Readonly<Record<string, string>>;
  /** Keys `data` must hold; the values are never known to mirrorc. */
  readonly dataKeys: readonly string[];
}

/** The Secret `link.source` needs so that its destination controller can read `target` (contract §4.1). */
export function credentialsRequirement(link: LinkSpec, target: ClusterSpec, neededBy: readonly string[]): SecretRequirement {
  return {
    cluster: link.source,
    target: target.name,
    link: link.path,
    provided: link.remoteDiscoveryCredentials?.provided,
    neededBy: [...neededBy],
    name: link.remoteDiscoveryCredentials?.secretName ?? credentialsSecretName(target.name),
    namespace: LINKERD_CONTROL_PLANE_NAMESPACE,
    type: REMOTE_KUBECONFIG_SECRET_TYPE,
    labels: { [CLUSTER_STORE_CLUSTER_NAME_LABEL]: target.name },
    annotations: {
      [CLUSTER_STORE_CLUSTER_DOMAIN_ANNOTATION]: target.clusterDomain,
      [CLUSTER_STORE_TRUST_DOMAIN_ANNOTATION]: target.trustDomain,
    },
    dataKeys: [KUBECONFIG_SECRET_KEY],
  };
}

/**
 * The warning for a requirement whose link does not declare how the Secret is provided: one line
 * naming the Secret and the declaration (the Secret's full shape is in {@link credentialsPlanRow},
 * which `plan` prints, and in docs/diagnostics.md).
 */
export function undeclaredCredentialsWarning(req: SecretRequirement): string {
  // Federated Services are told apart by name: no cluster may be named "federated" (fleet validation).
  const federated = req.neededBy.filter((n) => n.endsWith(`-${FEDERATED_NAME_SUFFIX}`)).length;
  const flat = req.neededBy.length - federated;
  const count = [
    ...(flat > 0 ? [`${flat} flat-mode (remote-discovery) mirror${flat === 1 ? '' : 's'}`] : []),
    ...(federated > 0 ? [`${federated} federated Service${federated === 1 ? '' : 's'} with members`] : []),
  ].join(' and ');
  const shown = req.neededBy.slice(0, 3).join(', ') + (req.neededBy.length > 3 ? ` and ${req.neededBy.length - 3} more` : '');
  return (
    `${req.cluster}: link ${req.link} compiles ${count} of "${req.target}" (${shown}), which need Secret ${req.namespace}/${req.name} ` +
    `in "${req.cluster}" (a kubeconfig for "${req.target}"; mirrorc never writes it); provide it and set ` +
    `remoteDiscoveryCredentials: { provided: 'external' } on the link (mirrorc plan shows the Secret)`
  );
}

/** The `plan` row that spells out a required credentials Secret in full: what to create, and where. */
export function credentialsPlanRow(req: SecretRequirement): string {
  const labels = Object.entries(req.labels).map(([k, v]) => `${k}: ${v}`).join(', ');
  const annotations = Object.entries(req.annotations).map(([k, v]) => `${k}: ${v}`).join(', ');
  return (
    `credentials Secret: ${req.cluster} needs Secret ${req.namespace}/${req.name} for "${req.target}" (link ${req.link}; ` +
    `type ${req.type}; labels {${labels}}; annotations {${annotations}}; data key "${req.dataKeys.join('", "')}": ` +
    `a kubeconfig for "${req.target}"'s API, e.g. from \`linkerd multicluster link-gen\`)` +
    (req.provided === 'external' ? '; provided externally' : '; not declared on the link')
  );
}
