/**
 * The Argo CD delivery synth wrote before issue 35 (mirrorc up to commit babcbde), for the migration
 * test: one ApplicationSet `mirrorc` whose git files generator reads `delivery/argocd/clusters/*.yaml`
 * (one file per cluster: its name, Argo CD name and unit folders) and makes one Application
 * `mirrorc-<cluster>` per cluster with one source per unit folder. Copied from
 * src/delivery/argocd-application-set.ts and argocd-sync-policy.ts of that commit, so that the
 * test migrates from exactly what users have applied.
 */

/** What the legacy ApplicationSet was generated from. */
export interface LegacyArgoCdProps {
  readonly repoUrl: string;
  readonly revision: string;
  /** Argo CD's namespace. */
  readonly namespace: string;
  readonly project: string;
  /** Where `delivery/` is in the repository. @default 'delivery' */
  readonly deliveryPath?: string;
}

/** The legacy folder of the generator's per-cluster files, under `delivery/argocd/`. */
export const LEGACY_CLUSTERS_FOLDER = 'clusters';

/** The legacy generator file of one cluster. */
export function legacyClusterFile(cluster: string, destination: string, unitPaths: readonly string[]): object {
  return { cluster, destination, paths: [...unitPaths] };
}

/** The legacy ApplicationSet. */
export function legacyArgoCdApplicationSet(props: LegacyArgoCdProps): object {
  const labels = { 'mirrorc.io/managed': 'true' };
  const templatePatch = [
    'spec:',
    '  sources:',
    '  {{- range .paths }}',
    `    - repoURL: ${JSON.stringify(props.repoUrl)}`,
    `      targetRevision: ${JSON.stringify(props.revision)}`,
    '      path: {{ . }}',
    '  {{- end }}',
    '',
  ].join('\n');
  return {
    apiVersion: 'argoproj.io/v1alpha1',
    kind: 'ApplicationSet',
    metadata: { name: 'mirrorc', namespace: props.namespace, labels },
    spec: {
      goTemplate: true,
      goTemplateOptions: ['missingkey=error'],
      generators: [{ git: { repoURL: props.repoUrl, revision: props.revision, files: [{ path: `${props.deliveryPath ?? 'delivery'}/argocd/${LEGACY_CLUSTERS_FOLDER}/*.yaml` }] } }],
      syncPolicy: { preserveResourcesOnDeletion: true },
      template: {
        metadata: { name: 'mirrorc-{{.cluster}}', labels, annotations: { 'argocd.argoproj.io/compare-options': 'ServerSideDiff=true' } },
        spec: {
          project: props.project,
          destination: { name: '{{.destination}}' },
          syncPolicy: {
            automated: { prune: true, selfHeal: true },
            syncOptions: ['ServerSideApply=true'],
            retry: { limit: 5, backoff: { duration: '10s', factor: 2, maxDuration: '3m' }, refresh: true },
          },
        },
      },
      templatePatch,
    },
  };
}
