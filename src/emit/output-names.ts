/**
 * Names of the output that modules on the light path (the write transaction, loaded before the
 * walk starts: src/pipeline/claim-output.ts) share with the renderer, in a module without
 * dependencies.
 */

/** The file of a folder that kustomize builds: it lists the folder's resources. */
export const KUSTOMIZATION_FILE = 'kustomization.yaml';

/** What separates two documents of one file (a mirror's objects: src/emit/render-units.ts). */
export const DOCUMENT_SEPARATOR = '---\n';

/** What starts every document of a file but the first: the separator line after the previous one's last newline. */
export const DOCUMENT_START = `\n${DOCUMENT_SEPARATOR}`;
