/** Where a mirror's objects are in the output: the files of its Services, Endpoints, EndpointSlices or ServiceImport. */
import type { FileTree } from '../emit/render-files.js';

/** A mirror Service (`name`), or for an MCS import the service `name` and the exporting cluster whose slices it has. */
export interface MirrorObjectName {
  readonly namespace: string;
  readonly name: string;
  /** An MCS import: its ServiceImport and this cluster's EndpointSlices. */
  readonly mcsCluster?: string;
}

const KINDS = '(?:service|endpoints|endpointslice)';

function escape(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/**
 * The paths in `tree` (`<source>/<unit>/<namespace>/<kind>-<name>.yaml`) of the objects of `names`
 * in the folder of `source`, sorted; the unit folder is whichever holds them.
 */
export function unitFiles(tree: FileTree, source: string, names: readonly MirrorObjectName[]): string[] {
  const patterns = names.map((n) =>
    n.mcsCluster !== undefined
      ? new RegExp(`^${escape(source)}/(?:[^/]+/)?${escape(n.namespace)}/(?:serviceimport-${escape(n.name)}|endpointslice-${escape(`${n.name}-${n.mcsCluster}-mcs`)}-ipv[46](?:-\\d+)?)\\.yaml$`)
      : new RegExp(`^${escape(source)}/(?:[^/]+/)?${escape(n.namespace)}/${KINDS}-${escape(n.name)}(?:-ipv[46](?:-\\d+)?)?\\.yaml$`),
  );
  return [...tree.keys()].filter((path) => patterns.some((p) => p.test(path))).sort();
}
