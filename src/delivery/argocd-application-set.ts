/**
 * The Argo CD ApplicationSet: a git directory generator over `<outputPath>/*` makes one
 * Application per cluster folder, deployed to the Argo CD cluster of the same name, with prune on.
 */
import { ARGOCD_API_VERSION } from '../contract/argocd.js';
import { MANAGED_LABEL, MANAGED_VALUE } from '../contract/mirrorc.js';
import type { ArgoCdDeliverySpec, DeliverySpec } from '../model/gitops-delivery.js';

/** Name of the ApplicationSet, and prefix of the Applications it generates (`mirrorc-<cluster>`). */
export const APPLICATION_SET_NAME = 'mirrorc';

/** The ApplicationSet (goTemplate syntax; `missingkey=error` turns a typo into an error, not an empty string). */
export function argoCdApplicationSet(delivery: DeliverySpec, argoCd: ArgoCdDeliverySpec): object {
  const labels = { [MANAGED_LABEL]: MANAGED_VALUE };
  return {
    apiVersion: ARGOCD_API_VERSION,
    kind: 'ApplicationSet',
    metadata: { name: APPLICATION_SET_NAME, namespace: argoCd.namespace, labels },
    spec: {
      goTemplate: true,
      goTemplateOptions: ['missingkey=error'],
      generators: [{ git: { repoURL: delivery.repoUrl, revision: delivery.revision, directories: [{ path: `${delivery.outputPath}/*` }] } }],
      // Deleting the ApplicationSet must not delete the mirrors (stale-but-safe): they stay until removed from git.
      syncPolicy: { preserveResourcesOnDeletion: true },
      template: {
        metadata: { name: `${APPLICATION_SET_NAME}-{{.path.basename}}`, labels },
        spec: {
          project: argoCd.project,
          source: { repoURL: delivery.repoUrl, targetRevision: delivery.revision, path: '{{.path.path}}' },
          destination: { name: '{{.path.basename}}' },
          syncPolicy: {
            // prune: a mirror removed from git is deleted from its cluster; selfHeal: hand edits are reverted.
            automated: { prune: true, selfHeal: true },
            // Server-side apply: no last-applied annotation copy on every mirror.
            syncOptions: ['ServerSideApply=true'],
          },
        },
      },
    },
  };
}
