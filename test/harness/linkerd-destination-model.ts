/**
 * A model of Linkerd's destination controller's endpoint bookkeeping for EndpointSlices: the set it
 * serves a meshed client that asked for `<service>:<port>` after each informer event (its listener
 * group's snapshot; a client already holding an ID is sent a changed address only when FLG publishDiff's
 * `addressChanged` says so: identity, zones, opaque protocol, pod). Test oracle only.
 *
 * Every function below is a transcription of linkerd/linkerd2 at commit b24cd40 (the commit
 * docs/linkerd-mirror-contract.md cites), directory controller/api/destination/watcher/:
 * endpoints_watcher.go (EW), service_publisher.go (SP), port_publisher.go (PP),
 * filtered_listener_group.go (FLG); the informer's dispatch is client-go's
 * tools/cache/shared_informer.go `processDeltas` (k8s.io/client-go v0.36.3, linkerd's go.mod).
 *
 * What it leaves out, on purpose: Endpoints (non-slice) mode, Servers/opaque ports, zone hints,
 * internalTrafficPolicy=Local and IPv6 family selection (none applies to a mirror: no pods, no
 * hints), metrics, ExternalName Services, and the informer's relist after its watch expires
 * (Replaced deltas: an update per listed slice, a delete per vanished one; feed those as events).
 * One client per port: `unsubscribe` drops the port publisher as the last listener leaving does. Endpoints with a `targetRef` of kind Pod or ExternalWorkload get their real IDs
 * (PodID / ExternalWorkloadID, PP endpointSliceToIDs) but never an address: the model has no pods,
 * so `newPodRefAddress`/`newExtRefAddress` fail as they do for a pod the destination cannot find
 * (PP endpointSliceToAddresses logs and skips). Only targetRef-less endpoints (mirrors) are faithful.
 */
import { SERVICE_NAME_LABEL } from '../../src/contract/kubernetes.js';
import { REMOTE_GATEWAY_IDENTITY_ANNOTATION, REMOTE_SVC_FQ_NAME_ANNOTATION } from '../../src/contract/linkerd.js';

/** Object metadata, as the API returns it (only what the destination reads). */
export interface ObjectMetaJson {
  readonly name: string;
  readonly namespace: string;
  readonly labels?: Readonly<Record<string, string>> | null;
  readonly annotations?: Readonly<Record<string, string>> | null;
  readonly ownerReferences?: readonly { readonly kind: string; readonly name: string }[] | null;
}

/** A `discovery.k8s.io/v1` EndpointSlice as plain JSON. */
export interface EndpointSliceObject {
  readonly metadata: ObjectMetaJson;
  readonly addressType?: string;
  readonly endpoints?: readonly {
    readonly addresses: readonly string[];
    readonly conditions?: { readonly ready?: boolean | null } | null;
    readonly hostname?: string | null;
    readonly targetRef?: { readonly kind?: string; readonly name?: string; readonly namespace?: string } | null;
  }[] | null;
  readonly ports?: readonly { readonly name?: string | null; readonly port?: number | null }[] | null;
}

/** A `v1` Service as plain JSON (the destination reads its ports only). */
export interface ServiceObject {
  readonly metadata: ObjectMetaJson;
  readonly spec?: { readonly ports?: readonly { readonly name?: string; readonly port: number }[] | null } | null;
}

/** One address the destination answers (Go's `Address`, the fields a mirror sets). */
export interface Address {
  readonly ip: string;
  readonly port: number;
  readonly hostname?: string;
  readonly identity?: string;
  readonly authorityOverride?: string;
}

/** A watch event, as `kubectl get -w -o json` / the watch API deliver it. */
export interface SliceEvent {
  readonly type: 'ADDED' | 'MODIFIED' | 'DELETED';
  readonly obj: EndpointSliceObject;
}

/** Go's `namedPort` (intstr): a number, or a service port's name. */
type TargetPort = { readonly int: number } | { readonly name: string };
/**
 * Go's `ID` (watcher/k8s.go): ONE struct {Namespace, Name, IPFamily}, of which ServiceID, PodID and
 * ExternalWorkloadID are aliases, as a map key: a ServiceID and an ExternalWorkloadID with the same
 * namespace and name are the same key, as in Go.
 */
type Id = string;
const idKey = (namespace: string, name: string, ipFamily = ''): Id => JSON.stringify([namespace, name, ipFamily]);
type AddressSet = Map<Id, Address>;

interface PortPublisher {
  readonly srcPort: number;
  targetPort: TargetPort;
  exists: boolean;
  /** `pp.addresses` */
  addresses: AddressSet;
  /** FLG `availableEndpoints`: the last set published to the listeners (what a connected client holds). */
  published: AddressSet;
}

interface ServicePublisher {
  readonly namespace: string;
  readonly name: string;
  readonly ports: Map<number, PortPublisher>;
}

const UNDEFINED_PORT = 0; // EW `undefinedEndpointPort`

const key = (namespace: string, name: string): string => `${namespace}/${name}`;

/** The destination's endpoint bookkeeping for one cluster, fed event by event. */
export class DestinationModel {
  /** EW `publishers`, by ServiceID. */
  private readonly publishers = new Map<string, ServicePublisher>();
  /** The EndpointSlice informer's store (its lister), by slice namespace/name. */
  private readonly slices = new Map<string, EndpointSliceObject>();
  /** The Service informer's store (its lister). */
  private readonly services = new Map<string, ServiceObject>();

  /** Service ADDED or MODIFIED: EW addService / updateService (both end in addService). */
  service(obj: ServiceObject): void {
    const { namespace, name } = obj.metadata;
    this.services.set(key(namespace, name), obj);
    // EW addService: getOrNewServicePublisher, then SP updateService.
    const sp = this.getOrNewServicePublisher(namespace, name);
    // SP updateService: a port whose target port changed is re-listed (PP updatePort).
    for (const [port, pp] of sp.ports) {
      const next = getTargetPort(obj, port);
      if (!sameTargetPort(next, pp.targetPort)) this.updatePort(sp, pp, next);
    }
  }

  /** Service DELETED: EW deleteService → SP deleteEndpoints → PP noEndpoints(false) on every port. */
  deleteService(obj: ServiceObject): void {
    const { namespace, name } = obj.metadata;
    this.services.delete(key(namespace, name));
    const sp = this.publishers.get(key(namespace, name));
    if (sp !== undefined) for (const pp of sp.ports.values()) noEndpoints(pp, false);
  }

  /**
   * A client subscribes to `<name>.<namespace>:<port>` (EW Subscribe → getOrNewServicePublisher →
   * SP subscribe). A new port publisher lists the informer's current slices of the service (by the
   * service-name label, SP newPortPublisher) and adds each; an existing one is left as it is.
   */
  subscribe(namespace: string, name: string, port: number): void {
    const sp = this.getOrNewServicePublisher(namespace, name);
    if (sp.ports.has(port)) return;
    // SP newPortPublisher: target port from the Service in the lister, else the port itself.
    const svc = this.services.get(key(namespace, name));
    const pp: PortPublisher = {
      srcPort: port,
      targetPort: svc === undefined ? { int: port } : getTargetPort(svc, port),
      exists: svc !== undefined,
      addresses: new Map(),
      published: new Map(),
    };
    for (const slice of this.listSlices(namespace, name)) this.addSliceToPort(pp, slice);
    // PP subscribe: a new listener group starts from pp.addresses when the port exists.
    pp.published = pp.exists ? new Map(pp.addresses) : new Map();
    sp.ports.set(port, pp);
  }

  /** The last client of the port goes away: SP unsubscribe deletes the port publisher. */
  unsubscribe(namespace: string, name: string, port: number): void {
    this.publishers.get(key(namespace, name))?.ports.delete(port);
  }

  /** One EndpointSlice watch event, dispatched as client-go's processDeltas does. */
  apply(event: SliceEvent): void {
    const k = key(event.obj.metadata.namespace, event.obj.metadata.name);
    if (event.type === 'DELETED') {
      // processDeltas, case Deleted: store delete, then OnDelete(obj) with the event's object.
      this.slices.delete(k);
      this.deleteEndpointSlice(event.obj);
      return;
    }
    // processDeltas, case Added/Updated: OnUpdate(old, new) when the store has the key, else OnAdd
    // (so an ADDED for a known key is an update, a MODIFIED for an unknown key an add).
    const old = this.slices.get(k);
    this.slices.set(k, event.obj);
    if (old === undefined) this.addEndpointSlice(event.obj);
    else this.updateEndpointSlice(old, event.obj);
  }

  /** The informer's periodic resync (10 min, controller/k8s/k8s.go ResyncTime): OnUpdate(obj, obj) for every stored slice. */
  resync(): void {
    for (const slice of [...this.slices.values()]) this.updateEndpointSlice(slice, slice);
  }

  /**
   * What a client subscribed to `<name>.<namespace>:<port>` holds: the last set published to it
   * (FLG publishDiff / publishNoEndpoints), filtered by hostname for `<hostname>.<name>...`
   * authorities (FLG filterAddresses), sorted by ip, port, hostname. `[]` after noEndpoints.
   */
  addresses(namespace: string, name: string, port: number, opts: { readonly hostname?: string } = {}): Address[] {
    const pp = this.publishers.get(key(namespace, name))?.ports.get(port);
    if (pp === undefined) throw new Error(`no client subscribed to ${name}.${namespace}:${port}: call subscribe() first`);
    const hostname = opts.hostname ?? '';
    return [...pp.published.values()]
      .filter((a) => hostname === '' || a.hostname === hostname)
      .sort((a, b) => cmp(a.ip, b.ip) || a.port - b.port || cmp(a.hostname ?? '', b.hostname ?? ''));
  }

  // ---- EW: dispatch by the slice's service ----

  /** EW addEndpointSlice: getEndpointSliceServiceID (error → dropped), getOrNewServicePublisher, SP addEndpointSlice. */
  private addEndpointSlice(slice: EndpointSliceObject): void {
    const id = getEndpointSliceServiceID(slice);
    if (id === undefined) return;
    const sp = this.getOrNewServicePublisher(slice.metadata.namespace, id);
    for (const pp of sp.ports.values()) this.addSliceToPort(pp, slice);
  }

  /** EW updateEndpointSlice: the NEW slice's service (error → dropped); getServicePublisher only, never creates one. */
  private updateEndpointSlice(oldSlice: EndpointSliceObject, newSlice: EndpointSliceObject): void {
    const id = getEndpointSliceServiceID(newSlice);
    if (id === undefined) return;
    const sp = this.publishers.get(key(newSlice.metadata.namespace, id));
    if (sp === undefined) return;
    for (const pp of sp.ports.values()) {
      // PP updateEndpointSlice: copy, delete every ID the OLD slice lists, copy the new slice's addresses over.
      const updated = new Map(pp.addresses);
      for (const oldId of endpointSliceToIDs(pp, oldSlice)) updated.delete(oldId);
      for (const [id2, a] of endpointSliceToAddresses(pp, newSlice)) updated.set(id2, a);
      publishAddressChange(pp, updated);
      pp.exists = true;
    }
  }

  /** EW deleteEndpointSlice: the slice's service (on error Go goes on with an empty ServiceID, found nowhere). */
  private deleteEndpointSlice(slice: EndpointSliceObject): void {
    const id = getEndpointSliceServiceID(slice);
    const sp = this.publishers.get(id === undefined ? key('', '') : key(slice.metadata.namespace, id));
    if (sp === undefined) return;
    for (const pp of sp.ports.values()) {
      // PP deleteEndpointSlice: remove the IDs of the slice's ADDRESSES (endpointSliceToAddresses,
      // not ToIDs), whichever slice put them there; empty → noEndpoints(false).
      const updated = new Map(pp.addresses);
      for (const id2 of endpointSliceToAddresses(pp, slice).keys()) updated.delete(id2);
      publishAddressChange(pp, updated);
      if (updated.size === 0) noEndpoints(pp, false);
      else pp.exists = true;
    }
  }

  /** EW getOrNewServicePublisher: a stub publisher when the service is unknown. */
  private getOrNewServicePublisher(namespace: string, name: string): ServicePublisher {
    let sp = this.publishers.get(key(namespace, name));
    if (sp === undefined) {
      sp = { namespace, name, ports: new Map() };
      this.publishers.set(key(namespace, name), sp);
    }
    return sp;
  }

  /** PP addEndpointSlice: the slice's addresses, plus every current address whose ID it does not list. */
  private addSliceToPort(pp: PortPublisher, slice: EndpointSliceObject): void {
    const next = endpointSliceToAddresses(pp, slice);
    for (const [id, a] of pp.addresses) if (!next.has(id)) next.set(id, a);
    publishAddressChange(pp, next);
    pp.exists = true;
  }

  /** PP updatePort: new target port, addresses reset, every listed slice added (no publish when none). */
  private updatePort(sp: ServicePublisher, pp: PortPublisher, targetPort: TargetPort): void {
    pp.targetPort = targetPort;
    pp.addresses = new Map();
    for (const slice of this.listSlices(sp.namespace, sp.name)) this.addSliceToPort(pp, slice);
  }

  /** The ES lister with selector `kubernetes.io/service-name=<name>` (SP newPortPublisher, PP updatePort). */
  private listSlices(namespace: string, name: string): EndpointSliceObject[] {
    return [...this.slices.values()].filter(
      (s) => s.metadata.namespace === namespace && s.metadata.labels?.[SERVICE_NAME_LABEL] === name,
    );
  }
}

// ---- PP: slice → addresses / IDs ----

/** PP publishAddressChange (FLG publishDiff: the listeners now hold this set), then `pp.addresses = set`. */
function publishAddressChange(pp: PortPublisher, set: AddressSet): void {
  pp.published = new Map(set);
  pp.addresses = set;
}

/** PP noEndpoints: exists, addresses cleared, FLG publishNoEndpoints (listeners hold nothing). */
function noEndpoints(pp: PortPublisher, exists: boolean): void {
  pp.exists = exists;
  pp.addresses = new Map();
  pp.published = new Map();
}

/** A ServiceID as a key (PP newServiceRefAddress): `<service>-<ip>-<port>[-<hostname>]` in the slice's namespace. */
function serviceRefId(namespace: string, parts: readonly string[]): Id {
  return idKey(namespace, parts.join('-'));
}

/**
 * PP endpointSliceToAddresses. Not-ready endpoints (conditions.ready === false) are skipped; an
 * absent `ready` counts as ready. Pod / ExternalWorkload endpoints: unresolvable here (see header).
 */
function endpointSliceToAddresses(pp: PortPublisher, es: EndpointSliceObject): AddressSet {
  const out: AddressSet = new Map();
  const port = resolveESTargetPort(pp, es);
  if (port === UNDEFINED_PORT) return out;
  const serviceName = getEndpointSliceServiceID(es) ?? ''; // on error Go goes on with ServiceID{}
  const annotations = es.metadata.annotations ?? {};
  for (const ep of es.endpoints ?? []) {
    if (ep.conditions?.ready === false) continue;
    if (ep.targetRef !== undefined && ep.targetRef !== null) continue; // newPodRefAddress / newExtRefAddress fail
    for (const ip of ep.addresses) {
      const hostname = ep.hostname ?? '';
      const parts = hostname === '' ? [serviceName, ip, String(port)] : [serviceName, ip, String(port), hostname];
      const fq = annotations[REMOTE_SVC_FQ_NAME_ANNOTATION];
      const identity = annotations[REMOTE_GATEWAY_IDENTITY_ANNOTATION] ?? '';
      out.set(serviceRefId(es.metadata.namespace, parts), {
        ip,
        port,
        ...(hostname === '' ? {} : { hostname }),
        ...(identity === '' ? {} : { identity }),
        // `if fqName, ok := ...; ok`: present, even empty, sets it (net.JoinHostPort with the client's port).
        ...(fq === undefined ? {} : { authorityOverride: joinHostPort(fq, pp.srcPort) }),
      });
    }
  }
  return out;
}

/** PP endpointSliceToIDs: the same skip rules; Pod → PodID, ExternalWorkload → ExternalWorkloadID. */
function endpointSliceToIDs(pp: PortPublisher, es: EndpointSliceObject): Id[] {
  const port = resolveESTargetPort(pp, es);
  if (port === UNDEFINED_PORT) return [];
  const serviceName = getEndpointSliceServiceID(es) ?? '';
  const ids: Id[] = [];
  for (const ep of es.endpoints ?? []) {
    if (ep.conditions?.ready === false) continue;
    const ref = ep.targetRef ?? undefined;
    if (ref === undefined) {
      for (const ip of ep.addresses) {
        const hostname = ep.hostname ?? '';
        ids.push(serviceRefId(es.metadata.namespace, hostname === '' ? [serviceName, ip, String(port)] : [serviceName, ip, String(port), hostname]));
      }
    } else if (ref.kind === 'Pod') ids.push(idKey(ref.namespace ?? '', ref.name ?? '', es.addressType ?? ''));
    else if (ref.kind === 'ExternalWorkload') ids.push(idKey(ref.namespace ?? '', ref.name ?? ''));
  }
  return ids;
}

/**
 * PP resolveESTargetPort: no ports → undefined; a numeric target port is used as is; a named one
 * picks the slice port of that name (nil name = ""). `ports: []` counts as absent: the API server
 * stores slices as protobuf, where an empty list reads back as nil, so it never serves `[]`.
 */
function resolveESTargetPort(pp: PortPublisher, es: EndpointSliceObject): number {
  const ports = es.ports ?? [];
  if (ports.length === 0) return UNDEFINED_PORT;
  if ('int' in pp.targetPort) return pp.targetPort.int;
  const name = pp.targetPort.name;
  const p = ports.find((q) => (q.name ?? '') === name);
  if (p === undefined) return UNDEFINED_PORT;
  if (p.port === undefined || p.port === null) throw new Error(`slice ${es.metadata.name}: port ${name} has no number (Go dereferences nil here)`);
  return p.port;
}

// ---- EW util ----

/** EW getTargetPort: the NAME of the service port whose number is `port` (even ""), else the number. */
function getTargetPort(svc: ServiceObject, port: number): TargetPort {
  const spec = svc.spec?.ports?.find((p) => p.port === port);
  return spec === undefined ? { int: port } : { name: spec.name ?? '' };
}

function sameTargetPort(a: TargetPort, b: TargetPort): boolean {
  return 'int' in a ? 'int' in b && a.int === b.int : 'name' in b && a.name === b.name;
}

/**
 * EW getEndpointSliceServiceID + isValidSlice: the `kubernetes.io/service-name` label (even empty,
 * when the slice has owner references), else the first owner reference of kind Service with a name.
 * `undefined` where Go returns an error.
 */
function getEndpointSliceServiceID(es: EndpointSliceObject): string | undefined {
  const labels = es.metadata.labels ?? {};
  const has = Object.prototype.hasOwnProperty.call(labels, SERVICE_NAME_LABEL);
  const owners = es.metadata.ownerReferences ?? [];
  if (!has && owners.length === 0) return undefined;
  if (owners.length === 0 && labels[SERVICE_NAME_LABEL] === '') return undefined;
  if (has) return labels[SERVICE_NAME_LABEL];
  return owners.find((o) => o.kind === 'Service' && o.name !== '')?.name;
}

/** Go's net.JoinHostPort. */
function joinHostPort(host: string, port: number): string {
  return host.includes(':') ? `[${host}]:${port}` : `${host}:${port}`;
}

function cmp(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
