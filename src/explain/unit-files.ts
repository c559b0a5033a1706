/** Where a mirror's objects are in the output: its file (src/emit/render-units.ts), named after its Service or ServiceImport. */
import type { FileTree } from '../emit/render-files.js';

/** A mirror Service (`name`), or for an MCS import the service `name` and the exporting cluster whose slices it has. */
export interface MirrorObjectName {
  readonly namespace: string;
  readonly name: string;
  /** An MCS import: its ServiceImport, whose file holds this cluster's EndpointSlices. */
  readonly mcsCluster?: string;
}

function escape(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/**
 * The paths in `tree` (`<source>/<unit>/<namespace>/<kind>-<name>.yaml`) of the files of `names`
 * in the folder of `source`, sorted; the unit folder is whichever holds them. A per-pod Service is
 * in its headless mirror's file, so its own name finds none.
 */
export function unitFiles(tree: FileTree, source: string, names: readonly MirrorObjectName[]): string[] {
  const patterns = names.map((n) =>
    new RegExp(`^${escape(source)}/(?:[^/]+/)?${escape(n.namespace)}/${n.mcsCluster !== undefined ? 'serviceimport' : 'service'}-${escape(n.name)}\\.yaml$`),
  );
  return [...tree.keys()].filter((path) => patterns.some((p) => p.test(path))).sort();
}
