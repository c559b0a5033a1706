/**
 * The files of `delivery/`: a pure function of the fleet, the stock `argocd-cm` and the delivery
 * units of each cluster folder (docs/delivery-units.md).
 *
 * ```
 * delivery/argocd/appproject-<project>.yaml
 * delivery/argocd/applicationset-mirrorc.yaml
 * delivery/argocd/clusters/<cluster>.yaml                    # the generator's parameters: the cluster's unit paths
 * delivery/argocd/argocd-cm-patch.yaml                      # lets every Endpoints/EndpointSlice through
 * delivery/argocd/argocd-cm-patch-managed-endpoints-only.yaml # Argo CD with resource.selectors: only ours
 * delivery/flux/<cluster>/kustomization-mirrorc.yaml         # the entry, applied once (prune off)
 * delivery/flux/<cluster>/root/kustomization-mirrorc-units.yaml
 * delivery/flux/<cluster>/units/kustomization-mirrorc-<unit>.yaml
 * ```
 */
import { ARGOCD_CM_NAME } from '../contract/argocd.js';
import YAML from 'yaml';
import { GENERATED_HEADER, renderObjectYaml, type FileTree } from '../emit/render-files.js';
import type { FleetSpec } from '../model/fleet-spec.js';
import { compareStrings } from '../util/order.js';
import { argoCdApplicationSet } from './argocd-application-set.js';
import { argoCdAppProject } from './argocd-app-project.js';
import { argoCdConfigMapChange, type ArgoCdConfigMapVariant } from './argocd-cm-change.js';
import { ARGOCD_CLUSTERS_FOLDER, argoCdClusterFile } from './argocd-application-set.js';
import { FLUX_ROOT_FOLDER, FLUX_UNITS_FOLDER, fluxKustomization, fluxUnitKustomization, fluxUnitName, fluxUnitsKustomization } from './flux-kustomization.js';
import { stringifyYaml } from '../emit/yaml-writer.js';
import { observedClusters } from './observed-clusters.js';

/** File name of each `argocd-cm` change variant under `delivery/argocd/`. */
export const ARGOCD_CM_PATCH_FILES: Readonly<Record<ArgoCdConfigMapVariant, string>> = {
  'all-endpoints': 'argocd-cm-patch.yaml',
  'managed-endpoints-only': 'argocd-cm-patch-managed-endpoints-only.yaml',
};

/**
 * Every file of `delivery/` (paths relative to it), sorted; empty when the fleet asks for no delivery.
 * @param units the delivery unit folders of each cluster folder of the output (see unitFoldersByCluster)
 */
export function renderDeliveryFiles(fleet: FleetSpec, stockArgoCdData: Readonly<Record<string, string>>, units: ReadonlyMap<string, ReadonlySet<string>>): FileTree {
  const delivery = fleet.delivery;
  const files: FileTree = new Map();
  if (!delivery) return files;
  // Every observed cluster has a dist/ folder (at least the reader identity), so each gets an Application.
  const clusters = observedClusters(fleet).map((c) => c.name);
  if (delivery.argoCd) {
    const argoCd = delivery.argoCd;
    files.set(`argocd/appproject-${argoCd.project}.yaml`, renderObjectYaml(argoCdAppProject(delivery, argoCd, clusters)));
    // The templatePatch is a template text: written as a `|` block, like the argocd-cm values.
    files.set('argocd/applicationset-mirrorc.yaml', renderWithBlockLiterals(argoCdApplicationSet(delivery, argoCd)));
    for (const cluster of clusters) {
      files.set(`argocd/${ARGOCD_CLUSTERS_FOLDER}/${cluster}.yaml`, renderObjectYaml(argoCdClusterFile(delivery, cluster, unitsOf(units, cluster))));
    }
    for (const [variant, file] of Object.entries(ARGOCD_CM_PATCH_FILES) as [ArgoCdConfigMapVariant, string][]) {
      const patch = {
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { name: ARGOCD_CM_NAME, namespace: argoCd.namespace },
        data: argoCdConfigMapChange(stockArgoCdData, variant),
      };
      files.set(`argocd/${file}`, renderWithBlockLiterals(patch));
    }
  }
  if (delivery.flux) {
    const flux = delivery.flux;
    for (const cluster of clusters) {
      files.set(`flux/${cluster}/kustomization-mirrorc.yaml`, renderObjectYaml(fluxKustomization(delivery, flux, cluster)));
      files.set(`flux/${cluster}/${FLUX_ROOT_FOLDER}/kustomization-mirrorc-units.yaml`, renderObjectYaml(fluxUnitsKustomization(delivery, flux, cluster)));
      files.set(`flux/${cluster}/${FLUX_ROOT_FOLDER}/kustomization.yaml`, kustomizationOf(['kustomization-mirrorc-units.yaml']));
      const clusterUnits = unitsOf(units, cluster);
      const unitFiles = clusterUnits.map((unit) => {
        const file = `kustomization-${fluxUnitName(unit)}.yaml`;
        files.set(`flux/${cluster}/${FLUX_UNITS_FOLDER}/${file}`, renderObjectYaml(fluxUnitKustomization(delivery, flux, cluster, unit, new Set(clusterUnits))));
        return file;
      });
      files.set(`flux/${cluster}/${FLUX_UNITS_FOLDER}/kustomization.yaml`, kustomizationOf(unitFiles));
    }
  }
  return new Map([...files.entries()].sort(([a], [b]) => compareStrings(a, b)));
}

/** The unit folders of `cluster`, sorted. */
function unitsOf(units: ReadonlyMap<string, ReadonlySet<string>>, cluster: string): string[] {
  return [...(units.get(cluster) ?? [])].sort(compareStrings);
}

/** A kustomization.yaml listing `resources`, sorted. */
function kustomizationOf(resources: readonly string[]): string {
  return GENERATED_HEADER + stringifyYaml({ apiVersion: 'kustomize.config.k8s.io/v1beta1', kind: 'Kustomization', resources: [...resources].sort(compareStrings) });
}

/** YAML of `object` with multi-line strings as `|` blocks, so the argocd-cm values read like the stock file. */
function renderWithBlockLiterals(object: unknown): string {
  const doc = new YAML.Document(object, { version: '1.1' });
  YAML.visit(doc, {
    Scalar(_key, node) {
      if (typeof node.value === 'string' && node.value.includes('\n')) node.type = 'BLOCK_LITERAL';
    },
  });
  return GENERATED_HEADER + doc.toString({ lineWidth: 0 });
}

/** Warnings about the delivery settings, for synth's warnings channel. */
export function deliveryWarnings(fleet: FleetSpec): string[] {
  const delivery = fleet.delivery;
  if (!delivery?.argoCd || delivery.argoCd.configMapChangeApplied) return [];
  return [
    `delivery ${delivery.path}: Argo CD 3.0 and later do not sync Endpoints and EndpointSlices unless argocd-cm is changed, so the mirrors would get no endpoints; ` +
      `apply delivery/argocd/${ARGOCD_CM_PATCH_FILES['all-endpoints']} (or the managed-endpoints-only variant) as the README's "Delivery with Argo CD" shows, ` +
      'then set argoCd.configMapChangeApplied: true (Argo CD 2.x needs no change: set it too)',
  ];
}
