/**
 * The files of `delivery/`: a pure function of the fleet, the stock `argocd-cm` and the delivery
 * units of each cluster folder (docs/delivery-units.md).
 *
 * ```
 * delivery/argocd/appproject-<project>.yaml
 * delivery/argocd/applicationset-mirrorc.yaml
 * delivery/argocd/applications/<cluster>.<family>.yaml      # the generator's parameters: one Application per unit family
 * delivery/argocd/argocd-cm-patch.yaml                      # lets every Endpoints/EndpointSlice through
 * delivery/argocd/argocd-cm-patch-managed-endpoints-only.yaml # Argo CD with resource.selectors: only ours
 * delivery/argocd/argocd-cm-values[-managed-endpoints-only].yaml  # the same as argo-cd Helm chart values (configs.cm)
 * delivery/argocd/kustomize/<variant>/kustomization.yaml     # the same as a kustomize Component patching argocd-cm
 * delivery/argocd/kustomize/<variant>/argocd-cm-patch.yaml
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
import { argoCdAppProject, namespacesInOutput } from './argocd-app-project.js';
import { argoCdConfigMapChange, type ArgoCdConfigMapVariant } from './argocd-cm-change.js';
import { ARGOCD_APPLICATIONS_FOLDER, argoCdApplicationFile, unitFamilies } from './argocd-application-set.js';
import { FLUX_ROOT_FOLDER, FLUX_UNITS_FOLDER, fluxKustomization, fluxUnitKustomization, fluxUnitName, fluxUnitsKustomization } from './flux-kustomization.js';
import { stringifyYaml } from '../emit/yaml-writer.js';
import { unitFoldersByCluster } from '../emit/render-units.js';
import { observedClusters } from './observed-clusters.js';

/** File name of each `argocd-cm` change variant under `delivery/argocd/`. */
export const ARGOCD_CM_PATCH_FILES: Readonly<Record<ArgoCdConfigMapVariant, string>> = {
  'all-endpoints': 'argocd-cm-patch.yaml',
  'managed-endpoints-only': 'argocd-cm-patch-managed-endpoints-only.yaml',
};

/** File name of each `argocd-cm` change variant as argo-cd Helm chart values, under `delivery/argocd/`. */
export const ARGOCD_CM_VALUES_FILES: Readonly<Record<ArgoCdConfigMapVariant, string>> = {
  'all-endpoints': 'argocd-cm-values.yaml',
  'managed-endpoints-only': 'argocd-cm-values-managed-endpoints-only.yaml',
};

/** Folder of each `argocd-cm` change variant as a kustomize Component, under `delivery/argocd/`. */
export const ARGOCD_CM_COMPONENT_DIRS: Readonly<Record<ArgoCdConfigMapVariant, string>> = {
  'all-endpoints': 'kustomize/all-endpoints',
  'managed-endpoints-only': 'kustomize/managed-endpoints-only',
};

/**
 * Every file of `delivery/` (paths relative to it), sorted; empty when the fleet asks for no delivery.
 * `output`: the `dist/` tree being written, for its delivery units (see unitFoldersByCluster) and the
 * Namespaces it creates (the AppProject allows those by name).
 */
export function renderDeliveryFiles(fleet: FleetSpec, stockArgoCdData: Readonly<Record<string, string>>, output: FileTree = new Map()): FileTree {
  const units = unitFoldersByCluster(output);
  const delivery = fleet.delivery;
  const files: FileTree = new Map();
  if (!delivery) return files;
  // Every observed cluster has a dist/ folder (at least the reader identity), so each gets an Application.
  const clusters = observedClusters(fleet).map((c) => c.name);
  if (delivery.argoCd) {
    const argoCd = delivery.argoCd;
    files.set(`argocd/appproject-${argoCd.project}.yaml`, renderObjectYaml(argoCdAppProject(delivery, argoCd, clusters, namespacesInOutput(output))));
    // The templatePatch is a template text: written as a `|` block, like the argocd-cm values.
    files.set('argocd/applicationset-mirrorc.yaml', renderWithBlockLiterals(argoCdApplicationSet(delivery, argoCd)));
    for (const cluster of clusters) {
      for (const family of unitFamilies(unitsOf(units, cluster))) {
        files.set(`argocd/${ARGOCD_APPLICATIONS_FOLDER}/${cluster}.${family}.yaml`, renderObjectYaml(argoCdApplicationFile(delivery, argoCd, cluster, family)));
      }
    }
    for (const [variant, file] of Object.entries(ARGOCD_CM_PATCH_FILES) as [ArgoCdConfigMapVariant, string][]) {
      const patch = {
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { name: ARGOCD_CM_NAME, namespace: argoCd.namespace },
        data: argoCdConfigMapChange(stockArgoCdData, variant),
      };
      files.set(`argocd/${file}`, renderWithBlockLiterals(patch));
      // The same keys for an Argo CD installed with the argo-cd Helm chart, which renders configs.cm into argocd-cm.
      files.set(`argocd/${ARGOCD_CM_VALUES_FILES[variant]}`, renderWithBlockLiterals({ configs: { cm: { ...patch.data } } }));
      // ... and for one installed with kustomize: a Component that patches argocd-cm (files of a
      // kustomization must lie inside its folder, so the patch is repeated there).
      const component = ARGOCD_CM_COMPONENT_DIRS[variant];
      files.set(`argocd/${component}/argocd-cm-patch.yaml`, renderWithBlockLiterals(patch));
      files.set(`argocd/${component}/kustomization.yaml`, renderObjectYaml({
        apiVersion: 'kustomize.config.k8s.io/v1alpha1',
        kind: 'Component',
        patches: [{ path: 'argocd-cm-patch.yaml' }],
      }));
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
  const doc = new YAML.Document(object, { version: '1.1', aliasDuplicateObjects: false });
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
      `apply delivery/argocd/${ARGOCD_CM_PATCH_FILES['all-endpoints']} (or the managed-endpoints-only variant) as docs/argocd.md shows, ` +
      'then set argoCd.configMapChangeApplied: true (Argo CD 2.x needs no change: set it too)',
  ];
}
