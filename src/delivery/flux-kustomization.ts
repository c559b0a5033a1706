/**
 * The Flux Kustomizations of one cluster, applied in that cluster's own Flux (no credentials of
 * other clusters anywhere). Three levels (docs/delivery-units.md):
 *
 * - `mirrorc`, the entry the user applies once: syncs `<delivery>/flux/<cluster>/root` with prune
 *   OFF. It is the name the pre-unit layout used for the whole cluster folder, so it may still hold
 *   every mirror in its inventory; with prune off, switching it to the new layout deletes nothing.
 * - `mirrorc-units` (in `root/`): syncs `<delivery>/flux/<cluster>/units` with prune on, so a unit
 *   that goes (a retired link) is deleted with its objects.
 * - one Kustomization per delivery unit (in `units/`): syncs `<output>/<cluster>/<unit>` with prune
 *   on, after `mirrorc-units` has applied the same revision, after `mirrorc-base` and after the next
 *   shard of its family (see delivery-units.ts).
 */
import { createHash } from 'node:crypto';
import { posix } from 'node:path';
import { FLUX_GIT_REPOSITORY_KIND, FLUX_KUSTOMIZATION_API_VERSION } from '../contract/flux.js';
import { MANAGED_LABEL, MANAGED_VALUE } from '../contract/mirrorc.js';
import type { DeliverySpec, FluxDeliverySpec } from '../model/gitops-delivery.js';
import { unitDependencies } from './delivery-units.js';

/** Name of the entry Kustomization in every cluster (the one the user applies). */
export const FLUX_KUSTOMIZATION_NAME = 'mirrorc';
/** Name of the Kustomization that holds (and prunes) the unit Kustomizations. */
export const FLUX_UNITS_KUSTOMIZATION_NAME = 'mirrorc-units';
/** Folders under `<delivery>/flux/<cluster>/`: the entry's and the units'. */
export const FLUX_ROOT_FOLDER = 'root';
export const FLUX_UNITS_FOLDER = 'units';
/** A Kustomization's name is the value of Flux's ownership label on every object it applies: at most 63 characters. */
const MAX_NAME = 63;

/** The repository folder of `delivery/`: beside the output folder (`dist` → `delivery`, `gitops/dist` → `gitops/delivery`). */
export function deliveryRepoPath(delivery: DeliverySpec): string {
  return posix.join(posix.dirname(delivery.outputPath), 'delivery');
}

/** The Kustomization name of a unit: `mirrorc-<unit>`, shortened with a hash when it would exceed 63 characters. */
export function fluxUnitName(unit: string): string {
  const name = `${FLUX_KUSTOMIZATION_NAME}-${unit}`;
  if (name.length <= MAX_NAME) return name;
  const hash = createHash('sha256').update(unit).digest('hex').slice(0, 10);
  return `${name.slice(0, MAX_NAME - hash.length - 1).replace(/[-.]+$/, '')}-${hash}`;
}

function kustomization(flux: FluxDeliverySpec, name: string, path: string, prune: boolean, dependsOn: readonly string[] = []): object {
  return {
    apiVersion: FLUX_KUSTOMIZATION_API_VERSION,
    kind: 'Kustomization',
    metadata: { name, namespace: flux.namespace, labels: { [MANAGED_LABEL]: MANAGED_VALUE } },
    spec: {
      ...(dependsOn.length > 0 ? { dependsOn: dependsOn.map((d) => ({ name: d })) } : {}),
      interval: flux.interval,
      path: `./${path}`,
      prune,
      sourceRef: { kind: FLUX_GIT_REPOSITORY_KIND, name: flux.sourceName },
    },
  };
}

/** The entry Kustomization that cluster `cluster` applies (prune off: see the file comment). */
export function fluxKustomization(delivery: DeliverySpec, flux: FluxDeliverySpec, cluster: string): object {
  return kustomization(flux, FLUX_KUSTOMIZATION_NAME, `${deliveryRepoPath(delivery)}/flux/${cluster}/${FLUX_ROOT_FOLDER}`, false);
}

/** The Kustomization that applies (and prunes) the unit Kustomizations of `cluster`. */
export function fluxUnitsKustomization(delivery: DeliverySpec, flux: FluxDeliverySpec, cluster: string): object {
  return kustomization(flux, FLUX_UNITS_KUSTOMIZATION_NAME, `${deliveryRepoPath(delivery)}/flux/${cluster}/${FLUX_UNITS_FOLDER}`, true);
}

/** The Kustomization of one delivery unit of `cluster`; `units` are all of that cluster's units. */
export function fluxUnitKustomization(delivery: DeliverySpec, flux: FluxDeliverySpec, cluster: string, unit: string, units: ReadonlySet<string>): object {
  // First `mirrorc-units` (same source, so Flux waits until it applied this very revision): a unit's
  // new spec (a new dependsOn after a split) is in place before the unit applies the revision's content.
  const dependsOn = [FLUX_UNITS_KUSTOMIZATION_NAME, ...unitDependencies(unit, units).map(fluxUnitName)];
  return kustomization(flux, fluxUnitName(unit), `${delivery.outputPath}/${cluster}/${unit}`, true, dependsOn);
}
