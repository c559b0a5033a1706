/**
 * The Argo CD ApplicationSet: a git directory generator over `<outputPath>/*` makes one
 * Application per cluster folder, deployed to the Argo CD cluster of the same name (or the one
 * `argoCd.clusterNames` maps it to), with prune on.
 */
import { ARGOCD_API_VERSION } from '../contract/argocd.js';
import { MANAGED_LABEL, MANAGED_VALUE } from '../contract/mirrorc.js';
import type { ArgoCdDeliverySpec, DeliverySpec } from '../model/gitops-delivery.js';
import { APPLICATION_ANNOTATIONS, applicationSyncPolicy } from './argocd-sync-policy.js';

/** Name of the ApplicationSet, and prefix of the Applications it generates (`mirrorc-<cluster>`). */
export const APPLICATION_SET_NAME = 'mirrorc';

/** The ApplicationSet (goTemplate syntax; `missingkey=error` turns a typo into an error, not an empty string). */
export function argoCdApplicationSet(delivery: DeliverySpec, argoCd: ArgoCdDeliverySpec): object {
  const labels = { [MANAGED_LABEL]: MANAGED_VALUE };
  const mapped = Object.keys(argoCd.clusterNames).length > 0;
  return {
    apiVersion: ARGOCD_API_VERSION,
    kind: 'ApplicationSet',
    metadata: { name: APPLICATION_SET_NAME, namespace: argoCd.namespace, labels },
    spec: {
      goTemplate: true,
      goTemplateOptions: ['missingkey=error'],
      generators: [{
        git: {
          repoURL: delivery.repoUrl,
          revision: delivery.revision,
          directories: [{ path: `${delivery.outputPath}/*` }],
          // Fleet cluster → Argo CD cluster name, where they differ; the template looks the folder up.
          ...(mapped ? { values: { ...argoCd.clusterNames } } : {}),
        },
      }],
      // Deleting the ApplicationSet must not delete the mirrors (stale-but-safe): they stay until removed from git.
      syncPolicy: { preserveResourcesOnDeletion: true },
      template: {
        metadata: { name: `${APPLICATION_SET_NAME}-{{.path.basename}}`, labels, annotations: { ...APPLICATION_ANNOTATIONS } },
        spec: {
          project: argoCd.project,
          source: { repoURL: delivery.repoUrl, targetRevision: delivery.revision, path: '{{.path.path}}' },
          // A folder that is not in the mapping (a cluster added to git before this ApplicationSet was re-applied) keeps its name.
          destination: { name: mapped ? '{{ index .values .path.basename | default .path.basename }}' : '{{.path.basename}}' },
          syncPolicy: applicationSyncPolicy(),
        },
      },
    },
  };
}
