/**
 * The Argo CD ApplicationSet: a git files generator over `<delivery>/argocd/clusters/*.yaml` (one
 * file per cluster: its name and the paths of its delivery units) makes one Application
 * `mirrorc-<cluster>` per cluster, deployed to the Argo CD cluster of the same name (or the one `argoCd.clusterNames`
 * maps it to), with prune on.
 * Its sources are the cluster's unit folders, each rendered by the repo-server on its own (bounded
 * by the unit size), while the cluster stays one Application: a mirror that moves between units
 * keeps its tracking id, so Argo CD never prunes it (docs/delivery-units.md).
 */
import { ARGOCD_API_VERSION } from '../contract/argocd.js';
import { MANAGED_LABEL, MANAGED_VALUE } from '../contract/mirrorc.js';
import { argoCdClusterName, type ArgoCdDeliverySpec, type DeliverySpec } from '../model/gitops-delivery.js';
import { APPLICATION_ANNOTATIONS, applicationSyncPolicy } from './argocd-sync-policy.js';
import { deliveryRepoPath } from './flux-kustomization.js';

/** Name of the ApplicationSet, and prefix of the Applications it generates (`mirrorc-<cluster>`). */
export const APPLICATION_SET_NAME = 'mirrorc';
/** Folder under `delivery/argocd/` of the generator's per-cluster files. */
export const ARGOCD_CLUSTERS_FOLDER = 'clusters';

/** The generator file of one cluster: the parameters of its Application. */
export function argoCdClusterFile(delivery: DeliverySpec, argoCd: ArgoCdDeliverySpec, cluster: string, units: readonly string[]): object {
  return { cluster, destination: argoCdClusterName(argoCd, cluster), paths: units.map((u) => `${delivery.outputPath}/${cluster}/${u}`) };
}

/** The ApplicationSet (goTemplate syntax; `missingkey=error` turns a typo into an error, not an empty string). */
export function argoCdApplicationSet(delivery: DeliverySpec, argoCd: ArgoCdDeliverySpec): object {
  const labels = { [MANAGED_LABEL]: MANAGED_VALUE };
  // One source per unit folder; JSON strings are YAML, so the URL and revision need no escaping.
  const templatePatch = [
    'spec:',
    '  sources:',
    '  {{- range .paths }}',
    `    - repoURL: ${JSON.stringify(delivery.repoUrl)}`,
    `      targetRevision: ${JSON.stringify(delivery.revision)}`,
    '      path: {{ . }}',
    '  {{- end }}',
    '',
  ].join('\n');
  return {
    apiVersion: ARGOCD_API_VERSION,
    kind: 'ApplicationSet',
    metadata: { name: APPLICATION_SET_NAME, namespace: argoCd.namespace, labels },
    spec: {
      goTemplate: true,
      goTemplateOptions: ['missingkey=error'],
      generators: [{ git: { repoURL: delivery.repoUrl, revision: delivery.revision, files: [{ path: `${deliveryRepoPath(delivery)}/argocd/${ARGOCD_CLUSTERS_FOLDER}/*.yaml` }] } }],
      // Deleting the ApplicationSet must not delete the mirrors (stale-but-safe): they stay until removed from git.
      syncPolicy: { preserveResourcesOnDeletion: true },
      template: {
        metadata: { name: `${APPLICATION_SET_NAME}-{{.cluster}}`, labels, annotations: { ...APPLICATION_ANNOTATIONS } },
        spec: {
          project: argoCd.project,
          // The Argo CD cluster name (argoCd.clusterNames, else the fleet's name), from the cluster's generator file.
          destination: { name: '{{.destination}}' },
          syncPolicy: applicationSyncPolicy(),
        },
      },
      templatePatch,
    },
  };
}
