/**
 * The mirrors a source cluster holds live, read with the reader identity (the source role's
 * `list services` and `list endpointslices`, nothing more): every Service carrying mirrorc's managed
 * label, and the EndpointSlices of each (`kubernetes.io/service-name`), those Kubernetes makes from a
 * mirror's Endpoints included.
 */
import type * as k8s from '@kubernetes/client-node';
import { SERVICE_NAME_LABEL } from '../contract/kubernetes.js';
import { MANAGED_LABEL, MANAGED_VALUE } from '../contract/mirrorc.js';
import type { ClusterClient } from '../observe/cluster-client.js';
import { dataPlaneFields, type DataPlaneFields } from './data-plane-fields.js';

/** The live mirrors of the client's cluster, by `namespace/name`, with their data-plane fields. */
export async function liveMirrors(client: ClusterClient): Promise<Map<string, DataPlaneFields>> {
  const services = await client.listServices(`${MANAGED_LABEL}=${MANAGED_VALUE}`);
  const byName = new Map<string, k8s.V1Service>();
  for (const s of services) byName.set(`${s.metadata?.namespace ?? ''}/${s.metadata?.name ?? ''}`, s);
  const names = [...byName.keys()];
  const slices = await slicesOf(client, names);
  const out = new Map<string, DataPlaneFields>();
  for (const name of names) out.set(name, dataPlaneFields(byName.get(name)!, slices.get(name) ?? []));
  return out;
}

/** The EndpointSlices of each Service in `names`: one list per Service, or one list of all when there are many. */
async function slicesOf(client: ClusterClient, names: readonly string[]): Promise<Map<string, k8s.V1EndpointSlice[]>> {
  const out = new Map<string, k8s.V1EndpointSlice[]>();
  if (names.length > client.perServiceSliceLists) {
    const wanted = new Set(names);
    for (const slice of await client.listAllEndpointSlices()) {
      const key = `${slice.metadata?.namespace ?? ''}/${slice.metadata?.labels?.[SERVICE_NAME_LABEL] ?? ''}`;
      if (wanted.has(key)) out.set(key, [...(out.get(key) ?? []), slice]);
    }
    return out;
  }
  for (const name of names) {
    const [namespace, service] = name.split('/') as [string, string];
    out.set(name, await client.listEndpointSlices(namespace, service));
  }
  return out;
}
