/** Whether a link's MCS output also takes the target's `ServiceExport` objects as exports. */
import type { LinkSpec } from './fleet-spec.js';

/** A link with `mcs: true` reads the target's ServiceExports unless it sets `serviceExports: false`. */
export function readsServiceExports(link: LinkSpec): boolean {
  return link.mcs === true && link.serviceExports !== false;
}
