/**
 * The fields of a mirror that Linkerd's data plane reads, in one comparable shape, for the mirror as
 * committed in `dist/` and as it is live: its Service's ports and (when `dist/` pins one) ClusterIP,
 * and the endpoint addresses of its EndpointSlices (of its Endpoints, where Kubernetes makes the
 * slices). Defaults the API server fills in (protocol TCP, targetPort = port) are applied to both
 * sides, so only a real difference shows.
 */
import { compareStrings, sortedUnique } from '../util/order.js';
import { appendAll } from '../util/append-all.js';

/** A Service port as the data plane uses it: `name/protocol/port->targetPort`. */
export type PortKey = string;

/** The data-plane fields of one mirror. */
export interface DataPlaneFields {
  /** Its Service's ports, as sorted {@link PortKey}s. */
  readonly ports: readonly PortKey[];
  /** Its Service's `spec.clusterIP`, when set (committed: a pinned IP or `None`). */
  readonly clusterIP?: string;
  /** Its endpoint addresses, sorted and unique. */
  readonly addresses: readonly string[];
  /** Addresses of endpoints not marked not-ready (`conditions.ready` absent counts as ready, as Kubernetes says). */
  readonly readyAddresses: number;
}

/** The parts of a Service that matter here (a live V1Service and a parsed YAML document both fit). */
export interface ServiceLike {
  readonly spec?: { readonly ports?: readonly { readonly name?: string; readonly protocol?: string; readonly port?: number; readonly targetPort?: number | string | object }[]; readonly clusterIP?: string };
}

/** The parts of an EndpointSlice that matter here. */
export interface EndpointSliceLike {
  readonly endpoints?: readonly { readonly addresses?: readonly string[]; readonly conditions?: { readonly ready?: boolean } }[] | null;
}

/** The parts of an Endpoints object that matter here. */
export interface EndpointsLike {
  readonly subsets?: readonly { readonly addresses?: readonly { readonly ip?: string }[] }[];
}

/** A Service's ports as sorted {@link PortKey}s, the API server's defaults applied. */
export function portKeys(service: ServiceLike): PortKey[] {
  return (service.spec?.ports ?? [])
    .map((p) => `${p.name ?? ''}/${p.protocol ?? 'TCP'}/${p.port ?? ''}->${String(p.targetPort ?? p.port ?? '')}`)
    .sort(compareStrings);
}

/** The data-plane fields of a mirror: its Service, and its EndpointSlices (or, without any, its Endpoints' addresses, all ready). */
export function dataPlaneFields(service: ServiceLike, slices: readonly EndpointSliceLike[], endpoints?: EndpointsLike): DataPlaneFields {
  const all: string[] = [];
  let ready = 0;
  if (slices.length > 0) {
    for (const slice of slices) {
      for (const endpoint of slice.endpoints ?? []) {
        const addresses = endpoint.addresses ?? [];
        appendAll(all, addresses);
        if (endpoint.conditions?.ready !== false) ready += addresses.length;
      }
    }
  } else {
    for (const subset of endpoints?.subsets ?? []) {
      for (const a of subset.addresses ?? []) if (a.ip !== undefined) all.push(a.ip);
    }
    ready = all.length;
  }
  const clusterIP = service.spec?.clusterIP;
  return { ports: portKeys(service), ...(clusterIP !== undefined && clusterIP !== '' ? { clusterIP } : {}), addresses: sortedUnique(all), readyAddresses: ready };
}

/** The data-plane fields in which `live` differs from `committed` (`ports`, `clusterIP`, `endpoints`); a ClusterIP only where `dist/` pins one. */
export function differingFields(committed: DataPlaneFields, live: DataPlaneFields): string[] {
  const out: string[] = [];
  if (committed.clusterIP !== undefined && committed.clusterIP !== live.clusterIP) out.push('clusterIP');
  if (committed.addresses.join(',') !== live.addresses.join(',')) out.push('endpoints');
  if (committed.ports.join(',') !== live.ports.join(',')) out.push('ports');
  return out;
}
