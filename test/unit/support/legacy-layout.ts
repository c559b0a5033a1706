/**
 * The output layout before delivery units (docs/delivery-units.md): every object of a cluster
 * directly in `<cluster>/`, in a file of its own (`<namespace>/<kind>-<name>.yaml`: a mirror's
 * file of the unit layout is split into the files its objects had then), one kustomization.yaml
 * listing them all. Each object's text is byte for byte the one the unit layout holds. Tests build
 * it from a unit-layout tree to prove the move from it.
 */
import { parse } from 'yaml';
import { GENERATED_HEADER, stringifyYaml } from '../../../src/emit/render-files.js';

/**
 * The objects of one output file as the files they had before a mirror's objects shared one:
 * `<kind>-<name>.yaml` beside `rel`, each its own text (the header and its document). A file of
 * one object is itself.
 */
export function perObjectFiles(rel: string, text: string): [string, string][] {
  const documents = text.slice(GENERATED_HEADER.length).split(/(?<=\n)---\n/);
  if (!text.startsWith(GENERATED_HEADER) || documents.length === 1) return [[rel, text]];
  const dir = rel.includes('/') ? rel.slice(0, rel.lastIndexOf('/') + 1) : '';
  return documents.map((doc) => {
    const object = parse(doc) as { kind: string; metadata: { name: string } };
    return [`${dir}${object.kind.toLowerCase()}-${object.metadata.name}.yaml`, GENERATED_HEADER + doc];
  });
}

/** `tree` (unit layout, `<cluster>/<unit>/<rest>`) in the layout before delivery units. */
export function legacyLayout(tree: ReadonlyMap<string, string>): Map<string, string> {
  const out = new Map<string, string>();
  const resources = new Map<string, string[]>();
  for (const [path, text] of tree) {
    const parts = path.split('/');
    if (parts.length < 3 || parts[parts.length - 1] === 'kustomization.yaml') continue;
    for (const [rel, objectText] of perObjectFiles(parts.slice(2).join('/'), text)) {
      out.set(`${parts[0]}/${rel}`, objectText);
      resources.set(parts[0]!, [...(resources.get(parts[0]!) ?? []), rel]);
    }
  }
  for (const [cluster, list] of resources) {
    out.set(`${cluster}/kustomization.yaml`, GENERATED_HEADER + stringifyYaml({ apiVersion: 'kustomize.config.k8s.io/v1beta1', kind: 'Kustomization', resources: list.sort() }));
  }
  return out;
}
