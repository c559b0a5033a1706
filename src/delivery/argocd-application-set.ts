/**
 * The Argo CD ApplicationSet: a git files generator over `<delivery>/argocd/applications/*.yaml`
 * makes one Application per delivery unit *family* of each cluster (`base`, `from-<target>`,
 * `shared`; src/delivery/delivery-units.ts), named `mirrorc-<cluster>.<family>`, deployed to the
 * Argo CD cluster of the same name (or the one `argoCd.clusterNames` maps it to), with prune on.
 *
 * Each Application has one plain **directory** source: the cluster's folder `dist/<cluster>`,
 * recursive, including only the family's shard folders by a glob that never changes
 * (`{from-paris/*,from-paris.[0-9]*\/*}`), and excluding the `kustomization.yaml` files, so Argo CD
 * reads the YAML files as they are and never runs kustomize (no quadratic build). A shard split
 * moves mirrors between shard folders of one family: the Application's spec does not change, the
 * moved objects stay in its source, so no refresh or sync in any order can prune them
 * (docs/delivery-units.md, "Argo CD").
 */
import { ARGOCD_API_VERSION, MANIFEST_GENERATE_PATHS_ANNOTATION } from '../contract/argocd.js';
import { MANAGED_LABEL, MANAGED_VALUE } from '../contract/mirrorc.js';
import { argoCdClusterName, type ArgoCdDeliverySpec, type DeliverySpec } from '../model/gitops-delivery.js';
import { compareStrings } from '../util/order.js';
import { APPLICATION_ANNOTATIONS, applicationSyncPolicy } from './argocd-sync-policy.js';
import { BASE_UNIT, parseUnitName } from './delivery-units.js';
import { deliveryRepoPath } from './flux-kustomization.js';

/** Name of the ApplicationSet, and prefix of the Applications it generates (`mirrorc-<cluster>.<family>`). */
export const APPLICATION_SET_NAME = 'mirrorc';
/** Folder under `delivery/argocd/` of the generator's files, one per Application. */
export const ARGOCD_APPLICATIONS_FOLDER = 'applications';
/** Files of a directory source that are never objects: the kustomization of the cluster folder and of each unit. */
export const DIRECTORY_EXCLUDE = '{kustomization.yaml,*/kustomization.yaml}';

/** The families of a cluster's unit folders, sorted: `base` (always: every cluster folder holds the reader identity) and each family with any shard. */
export function unitFamilies(units: Iterable<string>): string[] {
  const families = new Set<string>([BASE_UNIT]);
  for (const unit of units) {
    const parsed = parseUnitName(unit);
    if (parsed) families.add(parsed.family);
  }
  return [...families].sort(compareStrings);
}

/** Name of the Application of `family` in `cluster`: a cluster name and a family hold no dot, so the dot keeps every name distinct. */
export function argoCdApplicationName(cluster: string, family: string): string {
  return `${APPLICATION_SET_NAME}-${cluster}.${family}`;
}

/**
 * The directory-source include glob of a family (Argo CD matches it with gobwas/glob, no separators:
 * `*` crosses folders): the family's shard 0 folder and every `<family>.<k>` folder, whatever the
 * shard count. `base` has no shards.
 */
export function familyInclude(family: string): string {
  return family === BASE_UNIT ? `${family}/*` : `{${family}/*,${family}.[0-9]*/*}`;
}

/**
 * The family's `manifest-generate-paths` (relative to the cluster folder; Argo CD matches each with
 * a prefix or `filepath.Match`, whose `*` stays within one folder): the shard 0 folder, and the
 * files one and two folders down every other shard (its kustomization.yaml, `<namespace>/<mirror>.yaml`).
 */
export function familyGeneratePaths(family: string): string {
  return family === BASE_UNIT ? family : `${family};${family}.*/*;${family}.*/*/*`;
}

/** The generator file of one Application: its name, cluster, Argo CD destination, source folder and filters. */
export function argoCdApplicationFile(delivery: DeliverySpec, argoCd: ArgoCdDeliverySpec, cluster: string, family: string): object {
  return {
    name: argoCdApplicationName(cluster, family),
    cluster,
    family,
    destination: argoCdClusterName(argoCd, cluster),
    // (not `path`: the git files generator sets `.path` to the generator file's own path, over the file's key)
    folder: `${delivery.outputPath}/${cluster}`,
    include: familyInclude(family),
    generatePaths: familyGeneratePaths(family),
  };
}

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
      generators: [{ git: { repoURL: delivery.repoUrl, revision: delivery.revision, files: [{ path: `${deliveryRepoPath(delivery)}/argocd/${ARGOCD_APPLICATIONS_FOLDER}/*.yaml` }] } }],
      // Deleting the ApplicationSet must not delete the mirrors (stale-but-safe): they stay until removed from git.
      syncPolicy: { preserveResourcesOnDeletion: true },
      template: {
        metadata: {
          name: '{{.name}}',
          labels,
          annotations: { ...APPLICATION_ANNOTATIONS, [MANIFEST_GENERATE_PATHS_ANNOTATION]: '{{.generatePaths}}' },
        },
        spec: {
          project: argoCd.project,
          source: {
            repoURL: delivery.repoUrl,
            targetRevision: delivery.revision,
            path: '{{.folder}}',
            directory: { recurse: true, include: '{{.include}}', exclude: DIRECTORY_EXCLUDE },
          },
          // The Argo CD cluster name (argoCd.clusterNames, else the fleet's name), from the generator file.
          destination: { name: '{{.destination}}' },
          syncPolicy: applicationSyncPolicy(),
        },
      },
    },
  };
}
