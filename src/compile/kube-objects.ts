/**
 * The Kubernetes objects mirrorc writes, as the plain JSON that goes into each file: one pure
 * function per shape, from its props to exactly what cdk8s' `toJson()` gives for the same object
 * (Kubernetes field names such as `clusterIP`; `apiVersion`, `kind`, `metadata` first and every
 * other key of every map in code-unit order, the order of both cdk8s' sanitising and the generated
 * `toJson_<Kind>Props` mappings of these kinds; null and undefined left out, and in `metadata` empty
 * maps too). The render path writes these objects directly (no construct tree, no resolve pass, no
 * generated-class mapping); the mode constructs (GatewayMirror, …) create ApiObjects from the same
 * functions, so each shape has this one definition.
 *
 * test/unit/kube-objects.test.ts compares every object of the example and generated fleets with
 * what cdk8s' generated classes (`k8s.KubeService`, …) give for the same fields.
 */
import { isIPv6 } from 'node:net';
import { ApiObject } from 'cdk8s';
import type { Construct } from 'constructs';
import { PINNED_SERVICE_SYNC_WAVE, SYNC_WAVE_ANNOTATION } from '../contract/argocd.js';

/** The metadata of a {@link KubeObject}, keys in the order written. */
export interface KubeObjectMeta {
  readonly annotations?: Readonly<Record<string, string>>;
  readonly labels?: Readonly<Record<string, string>>;
  readonly name: string;
  readonly namespace?: string;
}

/** One Kubernetes object as written to its file (see the module comment for its key order). */
export interface KubeObject {
  readonly apiVersion: string;
  readonly kind: string;
  readonly metadata: KubeObjectMeta;
  readonly [field: string]: unknown;
}

/** A Service port as written: `name` only when set, `targetPort` a number or a port name. */
export interface ServicePortJson {
  readonly name?: string;
  readonly port: number;
  readonly protocol: string;
  readonly targetPort?: number | string;
}

/** A port of Endpoints or an EndpointSlice as written. */
export interface EndpointPortJson {
  readonly appProtocol?: string;
  readonly name?: string;
  readonly port: number;
  readonly protocol: string;
}

/** One address of an EndpointSlice as written. */
export interface SliceEndpointJson {
  readonly addresses: readonly string[];
  readonly conditions: { readonly ready: boolean };
  readonly hostname?: string;
}

/** One subset of an Endpoints object as written: `addresses` (ready) or `notReadyAddresses`. */
export interface EndpointSubsetJson {
  readonly addresses?: readonly { readonly hostname?: string; readonly ip: string }[];
  readonly notReadyAddresses?: readonly { readonly hostname?: string; readonly ip: string }[];
  readonly ports: readonly EndpointPortJson[];
}

/** `map` with its keys in code-unit order (as cdk8s sorts them), null and undefined values left out. */
export function sortedMap(map: Readonly<Record<string, string | null | undefined>>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const k of Object.keys(map).sort()) {
    const v = map[k];
    if (v !== undefined && v !== null) out[k] = v;
  }
  return out;
}

/** Whether `map` has an entry (cdk8s leaves empty metadata maps out). */
function hasEntries(map: Readonly<Record<string, string>> | undefined): map is Readonly<Record<string, string>> {
  if (map === undefined) return false;
  for (const _ in map) return true;
  return false;
}

/**
 * An object's metadata. `labels` and `annotations` must already be {@link sortedMap}s (they are
 * shared, not copied, so one sorted map serves several objects); empty ones are left out.
 */
export function objectMeta(name: string, namespace: string | undefined, labels?: Readonly<Record<string, string>>, annotations?: Readonly<Record<string, string>>): KubeObjectMeta {
  return {
    ...(hasEntries(annotations) ? { annotations } : {}),
    ...(hasEntries(labels) ? { labels } : {}),
    name,
    ...(namespace !== undefined ? { namespace } : {}),
  };
}

/**
 * A core/v1 Service with the given spec fields (those of mirrors: a pinned or `None` ClusterIP, ports, a pod selector).
 * A Service with a pinned ClusterIP also gets Argo CD's sync wave {@link PINNED_SERVICE_SYNC_WAVE}, so
 * that Argo CD applies it before every Service of its Application that lets the API server choose an
 * address: one of those could otherwise take the pinned address in the same sync (docs/argocd.md,
 * "Pinned ClusterIPs"). Flux ignores the annotation.
 */
export function serviceObject(metadata: KubeObjectMeta, spec: { readonly clusterIP?: string; readonly ports: readonly ServicePortJson[]; readonly selector?: Readonly<Record<string, string>> }): KubeObject {
  const pinned = spec.clusterIP !== undefined && spec.clusterIP !== 'None';
  return {
    apiVersion: 'v1',
    kind: 'Service',
    metadata: pinned ? withPinnedWave(metadata) : metadata,
    spec: {
      ...(spec.clusterIP !== undefined ? { clusterIP: spec.clusterIP } : {}),
      ports: spec.ports,
      ...(spec.selector !== undefined ? { selector: spec.selector } : {}),
    },
  };
}

/** `metadata` with the pinned Services' sync wave among its annotations (kept in key order). */
function withPinnedWave(metadata: KubeObjectMeta): KubeObjectMeta {
  const annotations = sortedMap({ ...(metadata.annotations ?? {}), [SYNC_WAVE_ANNOTATION]: PINNED_SERVICE_SYNC_WAVE });
  return objectMeta(metadata.name, metadata.namespace, metadata.labels, annotations);
}

/** A core/v1 Endpoints object; no `subsets` field when `subsets` is undefined. */
export function endpointsObject(metadata: KubeObjectMeta, subsets?: readonly EndpointSubsetJson[]): KubeObject {
  return { apiVersion: 'v1', kind: 'Endpoints', metadata, ...(subsets !== undefined ? { subsets } : {}) };
}

/** A discovery.k8s.io/v1 EndpointSlice. */
export function endpointSliceObject(metadata: KubeObjectMeta, addressType: 'IPv4' | 'IPv6', endpoints: readonly SliceEndpointJson[], ports: readonly EndpointPortJson[]): KubeObject {
  return { apiVersion: 'discovery.k8s.io/v1', kind: 'EndpointSlice', metadata, addressType, endpoints, ports };
}

/**
 * `items` by address family, IPv4 first, leaving out a family without items: what an EndpointSlice
 * is written for (a slice holds one address type). `ipOf` gives an item's address.
 */
export function byAddressFamily<T>(items: readonly T[], ipOf: (item: T) => string): ['IPv4' | 'IPv6', T[]][] {
  const out: ['IPv4' | 'IPv6', T[]][] = [];
  for (const addressType of ['IPv4', 'IPv6'] as const) {
    const family = items.filter((item) => isIPv6(ipOf(item)) === (addressType === 'IPv6'));
    if (family.length > 0) out.push([addressType, family]);
  }
  return out;
}

/** A core/v1 Namespace. */
export function namespaceObject(metadata: KubeObjectMeta): KubeObject {
  return { apiVersion: 'v1', kind: 'Namespace', metadata };
}

/**
 * Creates one ApiObject under `scope` for each of `objects` (the typed constructs' way to the
 * same objects: an ApiObject's `toJson()` of one of these is the object itself).
 * @param id the construct id of each object
 */
export function addApiObjects(scope: Construct, objects: readonly KubeObject[], id: (object: KubeObject) => string): ApiObject[] {
  return objects.map((object) => {
    const { labels, annotations } = object.metadata;
    // Each ApiObject gets maps of its own: one object's addLabel must not change another's.
    const metadata = { ...object.metadata, ...(labels ? { labels: { ...labels } } : {}), ...(annotations ? { annotations: { ...annotations } } : {}) };
    return new ApiObject(scope, id(object), { ...object, metadata });
  });
}
