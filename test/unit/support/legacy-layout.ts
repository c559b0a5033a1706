/**
 * The output layout before delivery units (docs/delivery-units.md): every object of a cluster
 * directly in `<cluster>/`, one kustomization.yaml listing them all. The object files are byte for
 * byte those of the unit layout; only their folders differ. Tests build it from a unit-layout tree
 * to prove the move from it.
 */
import { GENERATED_HEADER, stringifyYaml } from '../../../src/emit/render-files.js';

/** `tree` (unit layout, `<cluster>/<unit>/<rest>`) in the layout before delivery units. */
export function legacyLayout(tree: ReadonlyMap<string, string>): Map<string, string> {
  const out = new Map<string, string>();
  const resources = new Map<string, string[]>();
  for (const [path, text] of tree) {
    const parts = path.split('/');
    if (parts.length < 3 || parts[parts.length - 1] === 'kustomization.yaml') continue;
    const rel = parts.slice(2).join('/');
    out.set(`${parts[0]}/${rel}`, text);
    resources.set(parts[0]!, [...(resources.get(parts[0]!) ?? []), rel]);
  }
  for (const [cluster, list] of resources) {
    out.set(`${cluster}/kustomization.yaml`, GENERATED_HEADER + stringifyYaml({ apiVersion: 'kustomize.config.k8s.io/v1beta1', kind: 'Kustomization', resources: list.sort() }));
  }
  return out;
}
