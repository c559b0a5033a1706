/** The mirrors of a source cluster in the lock and `dist/` against the ones it holds live: per mirror its state, and the problems found. */
import { compareStrings } from '../util/order.js';
import type { CommittedMirror } from './committed-mirrors.js';
import { differingFields, type DataPlaneFields } from './data-plane-fields.js';
import type { MirrorStatus, StatusProblem } from './status-report.js';

/** The comparison of one source cluster's mirrors. */
export interface MirrorComparison {
  readonly mirrors: readonly MirrorStatus[];
  readonly problems: readonly StatusProblem[];
}

/** Compares the `committed` mirrors of `cluster` with its `live` ones (both by `namespace/name`). */
export function compareMirrors(cluster: string, committed: ReadonlyMap<string, CommittedMirror>, live: ReadonlyMap<string, DataPlaneFields>): MirrorComparison {
  const mirrors: MirrorStatus[] = [];
  const problems: StatusProblem[] = [];
  for (const name of [...new Set([...committed.keys(), ...live.keys()])].sort(compareStrings)) {
    const want = committed.get(name);
    const have = live.get(name);
    const readyEndpoints = have?.readyAddresses ?? null;
    if (want === undefined) {
      mirrors.push({ mirror: name, origin: null, state: 'unexpected', differs: [], readyEndpoints });
      problems.push({ class: 'mirrors-differ', cluster, mirror: name, message: `${name} is a managed mirror live in "${cluster}" that the lock does not hold (left behind, or made by hand)` });
      continue;
    }
    if (have === undefined) {
      mirrors.push({ mirror: name, origin: want.origin, state: 'missing', differs: [], readyEndpoints: null });
      problems.push({ class: 'mirrors-differ', cluster, mirror: name, message: `${name} is in the lock but not live in "${cluster}" (not synced yet, or deleted)` });
      continue;
    }
    const differs = want.fields ? differingFields(want.fields, have) : [];
    mirrors.push({ mirror: name, origin: want.origin, state: differs.length > 0 ? 'differs' : 'ok', differs, readyEndpoints });
    if (differs.length > 0) problems.push({ class: 'mirrors-differ', cluster, mirror: name, message: `${name} in "${cluster}" differs from dist/ in ${differs.join(', ')}` });
    if (have.readyAddresses === 0) problems.push({ class: 'no-ready-endpoints', cluster, mirror: name, message: `${name} in "${cluster}" has no ready endpoint: traffic to it fails` });
  }
  return { mirrors, problems };
}
