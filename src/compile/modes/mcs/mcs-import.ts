/**
 * MCS-API output (KEP-1645): one `ServiceImport` per imported service and namespace, plus one
 * EndpointSlice per exporting cluster and address family, labelled with the service and the cluster.
 */
import { Construct } from 'constructs';
import { ENDPOINTSLICE_MANAGED_BY_LABEL, MCS_API_VERSION, MCS_SERVICE_NAME_LABEL, MCS_SOURCE_CLUSTER_LABEL } from '../../../contract/kubernetes.js';
import { COMPILER_NAME, MANAGED_LABEL, MANAGED_VALUE } from '../../../contract/mirrorc.js';
import { compareStrings } from '../../../util/order.js';
import { addApiObjects, byAddressFamily, endpointSliceObject, objectMeta, sortedMap, type KubeObject } from '../../kube-objects.js';

/** At most this many endpoints per EndpointSlice (the MCS API's and the EndpointSlice controller's limit). */
export const MAX_ENDPOINTS_PER_SLICE = 1000;

/** One exporting cluster's endpoints of an imported service. */
export interface McsClusterEndpoints {
  /** The exporting (target) cluster. */
  readonly cluster: string;
  /** Addresses traffic for it goes to (the cluster's gateway). */
  readonly addresses: readonly string[];
  /** The port every service port goes to at those addresses. */
  readonly port: number;
  /** `empty`: the exported service has no ready endpoint (no endpoints written); `not-ready`: the gateway failed synth's probe. @default ready */
  readonly readiness?: 'ready' | 'not-ready' | 'empty';
}

/** A port of a ServiceImport. */
export interface McsPort {
  readonly name: string;
  readonly protocol: string;
  readonly port: number;
  readonly appProtocol?: string;
}

/** Properties of an {@link McsImport}. */
export interface McsImportProps {
  /**
   * Namespace of the ServiceImport (the exported service's).
   */
  readonly namespace: string;
  /**
   * Name of the ServiceImport (the exported service's: the MCS API keeps names across the clusterset).
   */
  readonly name: string;
  /**
   * `ClusterSetIP`, or `Headless` for a headless exported service.
   */
  readonly type: 'ClusterSetIP' | 'Headless';
  /**
   * The ports, in the exported service's order.
   */
  readonly ports: readonly McsPort[];
  /**
   * One entry per exporting cluster, in cluster name order.
   */
  readonly clusters: readonly McsClusterEndpoints[];
}

/**
 * The objects of an MCS import, as written: the ServiceImport and one EndpointSlice per exporting
 * cluster, address family and chunk of {@link MAX_ENDPOINTS_PER_SLICE} (src/compile/kube-objects.ts).
 */
export function mcsImportObjects(props: McsImportProps): KubeObject[] {
  const { namespace, name } = props;
  const managed = { [MANAGED_LABEL]: MANAGED_VALUE };
  const objects: KubeObject[] = [{
    apiVersion: MCS_API_VERSION,
    kind: 'ServiceImport',
    metadata: objectMeta(name, namespace, sortedMap(managed)),
    spec: { ports: props.ports.map((p) => ({ ...(p.appProtocol ? { appProtocol: p.appProtocol } : {}), name: p.name, port: p.port, protocol: p.protocol })), type: props.type },
  }];
  for (const cluster of props.clusters) {
    // As for Linkerd mirrors: with no ready endpoint behind the service, the slices (same names) hold
    // no endpoints; with a dead gateway, its addresses are not ready.
    const addresses = [...cluster.addresses].sort(compareStrings);
    const ready = cluster.readiness !== 'not-ready';
    const labels = sortedMap({ ...managed, [MCS_SERVICE_NAME_LABEL]: name, [MCS_SOURCE_CLUSTER_LABEL]: cluster.cluster, [ENDPOINTSLICE_MANAGED_BY_LABEL]: COMPILER_NAME });
    const ports = props.ports.map((p) => ({ name: p.name, port: cluster.port, protocol: p.protocol }));
    for (const [addressType, family] of byAddressFamily(addresses, (ip) => ip)) {
      const chunks = cluster.readiness === 'empty' ? Math.min(family.length, 1) : Math.ceil(family.length / MAX_ENDPOINTS_PER_SLICE);
      for (let chunk = 0; chunk < chunks; chunk++) {
        const part = cluster.readiness === 'empty' ? [] : family.slice(chunk * MAX_ENDPOINTS_PER_SLICE, (chunk + 1) * MAX_ENDPOINTS_PER_SLICE);
        objects.push(endpointSliceObject(
          objectMeta(`${name}-${cluster.cluster}-mcs-${addressType.toLowerCase()}${chunk === 0 ? '' : `-${chunk}`}`, namespace, labels),
          addressType,
          part.map((ip) => ({ addresses: [ip], conditions: { ready } })),
          ports,
        ));
      }
    }
  }
  return objects;
}

/** A ServiceImport and its EndpointSlices; the ServiceImport's IPs are left to the MCS implementation: ApiObjects of `mcsImportObjects`, the objects the render path writes. */
export class McsImport extends Construct {
  constructor(scope: Construct, id: string, props: McsImportProps) {
    super(scope, id);
    addApiObjects(this, mcsImportObjects(props), (o) => (o.kind === 'ServiceImport' ? 'service-import' : `slice-${o.metadata.name}`));
  }
}
