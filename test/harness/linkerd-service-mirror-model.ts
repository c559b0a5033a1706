/**
 * The writes Linkerd's service-mirror controller makes for one Link when it (re)starts over existing
 * mirrors: a model for test oracles, transcribed from linkerd/linkerd2 at commit b24cd40
 * (docs/linkerd-mirror-contract.md), multicluster/service-mirror/cluster_watcher.go (CW) and
 * cluster_watcher_headless.go (CWH).
 *
 * What runs at start (CW Start): OrphanedServicesGcTriggered is queued first; then the remote
 * informers replay their stores as adds, each remote Service an OnAddCalled (→ createOrUpdateService)
 * and each exported headless remote Endpoints an OnAddEndpointsCalled (→ createOrUpdateHeadlessEndpoints);
 * RepairEndpoints is queued after the handlers are registered, and createOrUpdateService queues the
 * events it decides (RemoteExportedServiceUpdated, ...) at the tail. The handlers enqueue from the
 * informers' goroutines, so the order between these kinds is not fixed: each is a separate function
 * here, each reading the state it is given, so a test can apply them in several orders
 * (see {@link applyWrites}).
 *
 * Modelled: gateway-mode and headless (per-pod) mirrors. Remote-discovery mirrors: only what the
 * code does for them on these paths (endpoints deleted on update, skipped by repair). Not modelled:
 * federated Services, the Link status, the probe Endpoints repairEndpoints writes first
 * (createOrUpdateGatewayEndpoints: not a mirror), namespace creation/checks (namespaces assumed to
 * exist), retries of failed writes, and whatever other controllers do with these writes.
 */
import { HEADLESS_SERVICE_LABEL } from '../../src/contract/kubernetes.js';
import {
  EXPORTED_GATEWAY_VALUE, EXPORTED_LABEL, EXPORTED_REMOTE_DISCOVERY_VALUE, HEADLESS_MIRROR_SVC_NAME_LABEL,
  MIRRORED_RESOURCE_LABEL, OPAQUE_PORTS_ANNOTATION, REMOTE_CLUSTER_NAME_LABEL, REMOTE_DISCOVERY_LABEL,
  REMOTE_GATEWAY_IDENTITY_ANNOTATION, REMOTE_RESOURCE_VERSION_ANNOTATION, REMOTE_SERVICE_LABEL,
  REMOTE_SVC_FQ_NAME_ANNOTATION, SVC_MIRROR_PREFIX,
} from '../../src/contract/linkerd.js';
import { selectorMatches, type LabelSelector } from '../../src/model/label-selector.js';

/** Metadata of a Service or Endpoints as plain JSON. */
export interface MetaJson {
  name: string;
  namespace: string;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
  resourceVersion?: string;
  [field: string]: unknown;
}
export interface ServicePortJson { name?: string; protocol?: string; port: number; targetPort?: number | string; [field: string]: unknown }
export interface ServiceJson { apiVersion?: string; kind?: string; metadata: MetaJson; spec?: { clusterIP?: string; ports?: ServicePortJson[]; [field: string]: unknown } }
export interface EndpointAddressJson { ip: string; hostname?: string; targetRef?: { kind?: string; name?: string; namespace?: string } }
export interface EndpointSubsetJson {
  addresses?: EndpointAddressJson[];
  notReadyAddresses?: EndpointAddressJson[];
  ports?: { name?: string; protocol?: string; port: number }[];
}
export interface EndpointsJson { apiVersion?: string; kind?: string; metadata: MetaJson; subsets?: EndpointSubsetJson[] }

/** One cluster's Services and Endpoints (a lister's view). */
export interface ClusterState {
  readonly services: readonly ServiceJson[];
  readonly endpoints: readonly EndpointsJson[];
}

/** The Link fields these paths read. */
export interface LinkModelProps {
  readonly targetClusterName: string;
  /** @default 'cluster.local' */
  readonly targetClusterDomain?: string;
  /** What `spec.gatewayAddress` resolves to (CW resolveGatewayAddress sorts them); `[]`: unresolvable. */
  readonly gatewayAddresses: readonly string[];
  readonly gatewayPort: number;
  readonly gatewayIdentity: string;
  /** @default `mirror.linkerd.io/exported=true` (link-gen's); an empty selector matches nothing (CW isExported). */
  readonly selector?: LabelSelector;
  /** @default `mirror.linkerd.io/exported=remote-discovery` */
  readonly remoteDiscoverySelector?: LabelSelector;
  /** @default [] */
  readonly excludedLabels?: readonly string[];
  /** @default [] */
  readonly excludedAnnotations?: readonly string[];
}

/** What the controller sees: the Link, the gateway's liveness, the target (remote) and source (local) clusters. */
export interface MirrorWorld {
  readonly link: LinkModelProps;
  /** @default true (NewRemoteClusterServiceWatcher starts with gatewayAlive=true until the probe says otherwise) */
  readonly gatewayAlive?: boolean;
  /** `-enable-headless-services`. @default true (Linkerd's chart default is false; per-pod mirrors need it) */
  readonly headlessServicesEnabled?: boolean;
  readonly target: ClusterState;
  readonly source: ClusterState;
  /** The ClusterIP the API server assigns to a Service the controller creates. @default - throws */
  readonly allocateClusterIP?: (namespace: string, name: string) => string;
}

/** One API write, in the order the controller makes it. `obj` is the full object sent (for delete: the live one). */
export interface MirrorWrite {
  readonly verb: 'create' | 'update' | 'delete';
  readonly kind: 'Service' | 'Endpoints';
  readonly obj: ServiceJson | EndpointsJson;
}

/** CW resolveGatewayAddress failed: Go returns an error (retried later); the event's later writes are not made. */
class GatewayUnresolved extends Error {}

/** Runs one queued event's handler, keeping the writes made before a gateway resolution failure. */
function event(body: (w: MirrorWrite[]) => void): MirrorWrite[] {
  const w: MirrorWrite[] = [];
  try {
    body(w);
  } catch (e) {
    if (!(e instanceof GatewayUnresolved)) throw e;
  }
  return w;
}

// ---- start-up pieces ----

/** CW cleanupOrphanedServices: deletes this Link's mirrors whose remote Service (by name, per-pod: the root's) is gone. */
export function orphanedServiceDeletes(world: MirrorWorld): MirrorWrite[] {
  return mirrorServices(world).flatMap((svc) => {
    const mirrored = svc.metadata.labels?.[HEADLESS_MIRROR_SVC_NAME_LABEL] ?? svc.metadata.name;
    const remote = find(world.target.services, svc.metadata.namespace, trimTarget(world, mirrored));
    return remote === undefined ? [write('delete', 'Service', svc)] : [];
  });
}

/** {@link exportedServiceUpdate} for every remote Service, in the order given (the informer's replay order is not fixed). */
export function exportedServiceUpdates(world: MirrorWorld): MirrorWrite[] {
  return world.target.services.flatMap((s) => exportedServiceUpdate(world, s));
}

/**
 * CW createOrUpdateService (OnAddCalled / OnUpdateCalled) and the event it queues, handled: mirror
 * missing → RemoteServiceExported; mirror carrying `remote-resource-version` that differs from the
 * remote's resourceVersion → RemoteExportedServiceUpdated (an absent annotation: nothing); no longer
 * exported → RemoteServiceUnexported. Federated membership is not modelled.
 */
export function exportedServiceUpdate(world: MirrorWorld, remote: ServiceJson): MirrorWrite[] {
  const { namespace } = remote.metadata;
  const local = find(world.source.services, namespace, mirrorName(world, remote.metadata.name));
  const labels = remote.metadata.labels ?? {};
  if (isExported(world, labels) || isRemoteDiscovery(world, labels)) {
    if (local === undefined) return handleRemoteServiceExported(world, remote);
    const last = local.metadata.annotations?.[REMOTE_RESOURCE_VERSION_ANNOTATION];
    if (last !== undefined && last !== remote.metadata.resourceVersion) return handleRemoteExportedServiceUpdated(world, remote);
    return [];
  }
  const ll = local?.metadata.labels;
  if (local !== undefined && ll !== undefined && MIRRORED_RESOURCE_LABEL in ll && ll[REMOTE_CLUSTER_NAME_LABEL] === world.link.targetClusterName) {
    return handleRemoteServiceUnexported(world, local);
  }
  return [];
}

/**
 * CW handleRemoteExportedServiceUpdated. No headless branch: any existing mirror Endpoints (a headless
 * root's too) get one subset of the gateway addresses, without checking that the remote service has
 * ready endpoints; DeepCopy keeps their labels and annotations; then the mirror Service is updated
 * with labels and annotations recomputed from the remote (anything else on them is dropped).
 */
function handleRemoteExportedServiceUpdated(world: MirrorWorld, remote: ServiceJson): MirrorWrite[] {
  return event((w) => {
    const { namespace } = remote.metadata;
    const name = mirrorName(world, remote.metadata.name);
    const localService = find(world.source.services, namespace, name)!;
    const localEndpoints = find(world.source.endpoints, namespace, name);
    if (isRemoteDiscovery(world, remote.metadata.labels ?? {})) {
      if (localEndpoints !== undefined) w.push(write('delete', 'Endpoints', localEndpoints));
    } else if (localEndpoints === undefined) {
      w.push(...createGatewayEndpoints(world, remote));
    } else {
      const gateway = resolveGatewayAddress(world);
      const copied = structuredClone(localEndpoints);
      copied.subsets = [{ addresses: gateway, ...portsField(getEndpointsPorts(world, remote)) }];
      copied.metadata.annotations = { ...copied.metadata.annotations, [REMOTE_GATEWAY_IDENTITY_ANNOTATION]: world.link.gatewayIdentity };
      w.push(write('update', 'Endpoints', updateReadiness(world, copied)));
    }
    const svc = structuredClone(localService);
    svc.metadata.labels = getMirrorServiceLabels(world, remote);
    svc.metadata.annotations = getMirrorServiceAnnotations(world, remote);
    svc.spec = { ...svc.spec };
    delete svc.spec.ports;
    Object.assign(svc.spec, portsSpec(remapRemoteServicePorts(remote.spec?.ports)));
    w.push(write('update', 'Service', svc));
  });
}

/** CW handleRemoteServiceExported: a new mirror Service, then its gateway Endpoints (headless remotes: left to the Endpoints path). */
function handleRemoteServiceExported(world: MirrorWorld, remote: ServiceJson): MirrorWrite[] {
  if ((world.headlessServicesEnabled ?? true) && remote.spec?.clusterIP === 'None') return [];
  return event((w) => {
    const created = newMirrorService(world, remote, false);
    w.push(write('create', 'Service', created));
    if (!isRemoteDiscovery(world, remote.metadata.labels ?? {})) w.push(...createGatewayEndpoints(world, remote));
  });
}

/** CW handleRemoteServiceUnexported: a headless mirror's per-pod Services, then the mirror Service. */
function handleRemoteServiceUnexported(world: MirrorWorld, local: ServiceJson): MirrorWrite[] {
  const perPod = local.spec?.clusterIP === 'None' ? perPodServices(world, local.metadata.namespace, local.metadata.name) : [];
  return [...perPod.map((s) => write('delete', 'Service', s)), write('delete', 'Service', local)];
}

/**
 * CW repairEndpoints (queued at start, then every repair period): every mirror of this Link
 * (getMirrorServices: mirrored-service=true, cluster-name=<target>, all namespaces, API order),
 * except ClusterIP None (headless roots) and remote-discovery ones, gets one subset of the gateway
 * addresses, or none when the target Service has no ready address (not checked for per-pod mirrors,
 * label headless-mirror-svc-name); the identity annotation is set; updateReadiness applies.
 */
export function repairEndpoints(world: MirrorWorld): MirrorWrite[] {
  return event((w) => {
    const gateway = resolveGatewayAddress(world);
    for (const svc of [...mirrorServices(world)].sort(byNamespaceName)) {
      if (svc.spec?.clusterIP === 'None') continue;
      if (svc.metadata.labels?.[REMOTE_DISCOVERY_LABEL] !== undefined) continue;
      const endpoints = find(world.source.endpoints, svc.metadata.namespace, svc.metadata.name);
      if (endpoints === undefined) continue; // lister and API both NotFound: logged, skipped
      const updated = structuredClone(endpoints);
      updated.subsets = [{ addresses: [...gateway], ...portsField(getEndpointsPorts(world, svc)) }];
      if (svc.metadata.labels?.[HEADLESS_MIRROR_SVC_NAME_LABEL] === undefined) {
        const target = { ...svc, metadata: { ...svc.metadata, name: trimTarget(world, svc.metadata.name) } };
        if (isEmptyService(world, target)) delete updated.subsets; // Subsets = []EndpointSubset{} (omitempty)
      }
      updated.metadata.annotations = { ...updated.metadata.annotations, [REMOTE_GATEWAY_IDENTITY_ANNOTATION]: world.link.gatewayIdentity };
      w.push(write('update', 'Endpoints', updateReadiness(world, updated)));
    }
  });
}

/** {@link headlessEndpointsUpdate} for every remote Endpoints, in the order given. */
export function headlessEndpointsUpdates(world: MirrorWorld): MirrorWrite[] {
  return world.target.endpoints.flatMap((ep) => headlessEndpointsUpdate(world, ep));
}

/**
 * The remote Endpoints informer's AddFunc (exported by labels — the Endpoints controller copies the
 * Service's — and labelled headless) → handleCreateOrUpdateEndpoints → CWH createOrUpdateHeadlessEndpoints:
 * per-pod Services are looked up by name `<hostname>-<target>` and only their ClusterIP is read
 * (never relabelled); missing ones are created; Services labelled with this root that are not in
 * the set are deleted; the root Endpoints get the per-pod ClusterIPs (updateReadiness applies).
 */
export function headlessEndpointsUpdate(world: MirrorWorld, exportedEndpoints: EndpointsJson): MirrorWrite[] {
  const labels = exportedEndpoints.metadata.labels ?? {};
  if (!isExported(world, labels) || labels[HEADLESS_SERVICE_LABEL] === undefined) return [];
  if (!(world.headlessServicesEnabled ?? true)) return [];
  const { namespace, name } = exportedEndpoints.metadata;
  const exported = find(world.target.services, namespace, name);
  if (exported === undefined || (exported.spec?.ports ?? []).length === 0) return [];
  return event((w) => {
    const rootName = mirrorName(world, name);
    let root = find(world.source.services, namespace, rootName);
    if (root === undefined) {
      // CWH createRemoteHeadlessService (no subsets: an empty Service{} and no write).
      root = (exportedEndpoints.subsets ?? []).length === 0 ? { metadata: { name: '', namespace: '' } } : newMirrorService(world, exported, shouldExportAsHeadless(exportedEndpoints));
      if (root.metadata.name !== '') w.push(write('create', 'Service', root));
    }
    const rootEndpoints = find(world.source.endpoints, namespace, rootName);
    if (rootEndpoints === undefined) {
      if (root.spec?.clusterIP !== 'None') w.push(...createGatewayEndpoints(world, exported));
      else createHeadlessMirrorEndpoints(world, exported, exportedEndpoints, w);
      return;
    }
    if (root.spec?.clusterIP !== 'None') return;
    const kept = new Set<string>();
    const subsets: EndpointSubsetJson[] = [];
    for (const subset of exportedEndpoints.subsets ?? []) {
      const addresses: EndpointAddressJson[] = [];
      for (const address of subset.addresses ?? []) {
        if ((address.hostname ?? '') === '') continue;
        const perPodName = mirrorName(world, address.hostname!);
        let perPod = find(world.source.services, namespace, perPodName);
        if (perPod === undefined) perPod = createEndpointMirrorService(world, { hostname: address.hostname!, exportedEndpoints, exported }, w);
        kept.add(perPodName);
        addresses.push({ hostname: address.hostname!, ip: perPod.spec?.clusterIP ?? '' });
      }
      if (addresses.length > 0) subsets.push({ addresses, ...(subset.ports === undefined ? {} : { ports: structuredClone(subset.ports) }) });
    }
    for (const stale of perPodServices(world, namespace, rootName)) if (!kept.has(stale.metadata.name)) w.push(write('delete', 'Service', stale));
    const mirrorEndpoints = structuredClone(rootEndpoints);
    if (subsets.length > 0) mirrorEndpoints.subsets = subsets;
    else delete mirrorEndpoints.subsets;
    w.push(write('update', 'Endpoints', updateReadiness(world, mirrorEndpoints)));
  });
}

/** The source state after `writes` (create adds, update replaces, delete removes; nothing else reacts). */
export function applyWrites(source: ClusterState, writes: readonly MirrorWrite[]): ClusterState {
  let services = [...source.services];
  let endpoints = [...source.endpoints];
  for (const { verb, kind, obj } of writes) {
    const same = (o: { metadata: MetaJson }): boolean => o.metadata.namespace === obj.metadata.namespace && o.metadata.name === obj.metadata.name;
    if (kind === 'Service') services = [...services.filter((o) => !same(o)), ...(verb === 'delete' ? [] : [obj as ServiceJson])];
    else endpoints = [...endpoints.filter((o) => !same(o)), ...(verb === 'delete' ? [] : [obj as EndpointsJson])];
  }
  return { services, endpoints };
}

// ---- object builders ----

/** CW createGatewayEndpoints → createMirrorEndpoints: a new mirror Endpoints; no subsets when the remote service is empty. */
function createGatewayEndpoints(world: MirrorWorld, exported: ServiceJson): MirrorWrite[] {
  const empty = isEmptyService(world, exported);
  const gateway = resolveGatewayAddress(world);
  const annotations: Record<string, string> = { [REMOTE_SVC_FQ_NAME_ANNOTATION]: fqName(world, exported) };
  if (world.link.gatewayIdentity !== '') annotations[REMOTE_GATEWAY_IDENTITY_ANNOTATION] = world.link.gatewayIdentity;
  const ep: EndpointsJson = {
    apiVersion: 'v1', kind: 'Endpoints',
    metadata: { name: mirrorName(world, exported.metadata.name), namespace: exported.metadata.namespace, labels: getMirrorEndpointLabels(world, exported), annotations },
    ...(empty ? {} : { subsets: [{ addresses: gateway, ...portsField(getEndpointsPorts(world, exported)) }] }),
  };
  return [write('create', 'Endpoints', updateReadiness(world, ep))];
}

/** CWH createHeadlessMirrorEndpoints: per-pod Services first, then the root Endpoints, created directly (no updateReadiness). */
function createHeadlessMirrorEndpoints(world: MirrorWorld, exported: ServiceJson, exportedEndpoints: EndpointsJson, w: MirrorWrite[]): void {
  const subsets: EndpointSubsetJson[] = [];
  for (const subset of exportedEndpoints.subsets ?? []) {
    const addresses: EndpointAddressJson[] = [];
    for (const address of subset.addresses ?? []) {
      if ((address.hostname ?? '') === '') continue;
      let created: ServiceJson;
      try {
        created = createEndpointMirrorService(world, { hostname: address.hostname!, exportedEndpoints, exported }, w);
      } catch (e) {
        if (e instanceof GatewayUnresolved) continue; // Go logs the error and goes on with the next address
        throw e;
      }
      addresses.push({ hostname: address.targetRef?.name ?? '', ip: created.spec?.clusterIP ?? '' }); // Go: addr.TargetRef.Name
    }
    if (addresses.length > 0) subsets.push({ addresses, ...(subset.ports === undefined ? {} : { ports: structuredClone(subset.ports) }) });
  }
  const annotations: Record<string, string> = { [REMOTE_SVC_FQ_NAME_ANNOTATION]: fqName(world, exported) };
  if (world.link.gatewayIdentity !== '') annotations[REMOTE_GATEWAY_IDENTITY_ANNOTATION] = world.link.gatewayIdentity;
  const metadata: MetaJson = { name: mirrorName(world, exported.metadata.name), namespace: exported.metadata.namespace, labels: getMirrorEndpointLabels(world, exported), annotations };
  w.push(write('create', 'Endpoints', { apiVersion: 'v1', kind: 'Endpoints', metadata, ...(subsets.length > 0 ? { subsets } : {}) }));
}

/** CWH createEndpointMirrorService: a per-pod Service (root's labels + headless-mirror-svc-name) and its gateway Endpoints. */
function createEndpointMirrorService(
  world: MirrorWorld,
  pod: { readonly hostname: string; readonly exportedEndpoints: EndpointsJson; readonly exported: ServiceJson },
  w: MirrorWrite[],
): ServiceJson {
  const gateway = resolveGatewayAddress(world);
  const { exported } = pod;
  const { namespace } = exported.metadata;
  const name = mirrorName(world, pod.hostname);
  const fq = `${pod.hostname}.${exported.metadata.name}.${namespace}.svc.${world.link.targetClusterDomain ?? 'cluster.local'}`;
  const labels = { ...getMirrorServiceLabels(world, exported), [HEADLESS_MIRROR_SVC_NAME_LABEL]: mirrorName(world, exported.metadata.name) };
  const svc: ServiceJson = {
    apiVersion: 'v1', kind: 'Service',
    metadata: { name, namespace, labels, annotations: { [REMOTE_RESOURCE_VERSION_ANNOTATION]: pod.exportedEndpoints.metadata.resourceVersion ?? '', [REMOTE_SVC_FQ_NAME_ANNOTATION]: fq } },
    spec: { ...portsSpec(remapRemoteServicePorts(exported.spec?.ports)), clusterIP: allocate(world, namespace, name) },
  };
  w.push(write('create', 'Service', svc));
  const annotations: Record<string, string> = { [REMOTE_SVC_FQ_NAME_ANNOTATION]: fq };
  if (world.link.gatewayIdentity !== '') annotations[REMOTE_GATEWAY_IDENTITY_ANNOTATION] = world.link.gatewayIdentity;
  const ep: EndpointsJson = { apiVersion: 'v1', kind: 'Endpoints', metadata: { name, namespace, labels: { ...labels }, annotations }, subsets: [{ addresses: gateway, ...portsField(getEndpointsPorts(world, exported)) }] };
  w.push(write('create', 'Endpoints', updateReadiness(world, ep)));
  return svc;
}

/** A mirror Service as handleRemoteServiceExported / createRemoteHeadlessService build it (ClusterIP from the API server, or None). */
function newMirrorService(world: MirrorWorld, remote: ServiceJson, headless: boolean): ServiceJson {
  const { namespace } = remote.metadata;
  const name = mirrorName(world, remote.metadata.name);
  return {
    apiVersion: 'v1', kind: 'Service',
    metadata: { name, namespace, annotations: getMirrorServiceAnnotations(world, remote), labels: getMirrorServiceLabels(world, remote) },
    spec: { ...portsSpec(remapRemoteServicePorts(remote.spec?.ports)), clusterIP: headless ? 'None' : allocate(world, namespace, name) },
  };
}

// ---- CW helpers ----

/** CW updateReadiness: gateway not alive → every subset's addresses become notReadyAddresses. */
function updateReadiness(world: MirrorWorld, ep: EndpointsJson): EndpointsJson {
  if (world.gatewayAlive ?? true) return ep;
  for (const s of ep.subsets ?? []) {
    const notReady = [...(s.notReadyAddresses ?? []), ...(s.addresses ?? [])];
    delete s.addresses;
    if (notReady.length > 0) s.notReadyAddresses = notReady;
  }
  return ep;
}

/** CW resolveGatewayAddress: the resolved IPs sorted as strings; none → error. */
function resolveGatewayAddress(world: MirrorWorld): EndpointAddressJson[] {
  if (world.link.gatewayAddresses.length === 0) throw new GatewayUnresolved();
  return [...world.link.gatewayAddresses].sort().map((ip) => ({ ip }));
}

/** CW getEndpointsPorts: each service port's name and protocol, on the gateway port. */
function getEndpointsPorts(world: MirrorWorld, svc: ServiceJson): { name?: string; protocol?: string; port: number }[] {
  return (svc.spec?.ports ?? []).map((p) => ({ ...(p.name ? { name: p.name } : {}), ...(p.protocol ? { protocol: p.protocol } : {}), port: world.link.gatewayPort }));
}

/** CW remapRemoteServicePorts: name, protocol, port, targetPort (nodePort, appProtocol dropped). */
function remapRemoteServicePorts(ports: readonly ServicePortJson[] | undefined): ServicePortJson[] {
  return (ports ?? []).map((p) => ({
    ...(p.name ? { name: p.name } : {}), ...(p.protocol ? { protocol: p.protocol } : {}), port: p.port,
    ...(p.targetPort === undefined ? {} : { targetPort: p.targetPort }),
  }));
}

/** CW getMirrorServiceLabels: remote labels (minus mirror.linkerd.io/* and excluded) + mirrored-service, cluster-name (+ remote-discovery). */
function getMirrorServiceLabels(world: MirrorWorld, remote: ServiceJson): Record<string, string> {
  const labels = getMirrorEndpointLabels(world, remote);
  if (isRemoteDiscovery(world, remote.metadata.labels ?? {})) {
    labels[REMOTE_DISCOVERY_LABEL] = world.link.targetClusterName;
    labels[REMOTE_SERVICE_LABEL] = remote.metadata.name;
  }
  return labels;
}

/** CW getMirrorEndpointLabels (= getCommonServiceLabels + cluster-name). */
function getMirrorEndpointLabels(world: MirrorWorld, remote: ServiceJson): Record<string, string> {
  const labels: Record<string, string> = { [MIRRORED_RESOURCE_LABEL]: 'true' };
  for (const [k, v] of Object.entries(remote.metadata.labels ?? {})) {
    if (k.startsWith(SVC_MIRROR_PREFIX) || excluded(world.link.excludedLabels, k)) continue;
    labels[k] = v;
  }
  labels[REMOTE_CLUSTER_NAME_LABEL] = world.link.targetClusterName;
  return labels;
}

/** CW getMirrorServiceAnnotations: remote annotations (minus topology and excluded; opaque-ports always) + fq name + resourceVersion. */
function getMirrorServiceAnnotations(world: MirrorWorld, remote: ServiceJson): Record<string, string> {
  const out: Record<string, string> = {};
  const annotations = remote.metadata.annotations ?? {};
  for (const [k, v] of Object.entries(annotations)) {
    if (k === 'service.kubernetes.io/topology-aware-hints' || k === 'service.kubernetes.io/topology-mode') continue;
    if (!excluded(world.link.excludedAnnotations, k)) out[k] = v;
  }
  if (annotations[OPAQUE_PORTS_ANNOTATION] !== undefined) out[OPAQUE_PORTS_ANNOTATION] = annotations[OPAQUE_PORTS_ANNOTATION];
  out[REMOTE_SVC_FQ_NAME_ANNOTATION] = fqName(world, remote);
  out[REMOTE_RESOURCE_VERSION_ANNOTATION] = remote.metadata.resourceVersion ?? '';
  return out;
}

/** CW isLabelExlucded / isAnnotationExlucded: exact keys, or `prefix/*`. */
function excluded(list: readonly string[] | undefined, k: string): boolean {
  return (list ?? []).some((e) => (e.endsWith('/*') ? k.startsWith(e.slice(0, -2)) : k === e));
}

/** CW isEmptyService / isEmptyEndpoints: the remote Endpoints missing, without subsets, or without ready addresses. */
function isEmptyService(world: MirrorWorld, svc: ServiceJson): boolean {
  const ep = find(world.target.endpoints, svc.metadata.namespace, svc.metadata.name);
  return ep === undefined || !(ep.subsets ?? []).some((s) => (s.addresses ?? []).length > 0);
}

/** CWH shouldExportAsHeadlessService: a hostname among ready or not-ready addresses. */
function shouldExportAsHeadless(ep: EndpointsJson): boolean {
  return (ep.subsets ?? []).some((s) => [...(s.addresses ?? []), ...(s.notReadyAddresses ?? [])].some((a) => (a.hostname ?? '') !== ''));
}

/** CW isExported / isRemoteDiscovery: an unset or empty selector matches nothing. */
function isExported(world: MirrorWorld, labels: Record<string, string>): boolean {
  return matches(world.link.selector ?? { matchLabels: { [EXPORTED_LABEL]: EXPORTED_GATEWAY_VALUE } }, labels);
}
function isRemoteDiscovery(world: MirrorWorld, labels: Record<string, string>): boolean {
  return matches(world.link.remoteDiscoverySelector ?? { matchLabels: { [EXPORTED_LABEL]: EXPORTED_REMOTE_DISCOVERY_VALUE } }, labels);
}
function matches(selector: LabelSelector, labels: Record<string, string>): boolean {
  const size = Object.keys(selector.matchLabels ?? {}).length + (selector.matchExpressions ?? []).length;
  return size > 0 && selectorMatches(selector, labels);
}

/** CW getMirrorServices: label selector mirrored-service=true, cluster-name=<target>. */
function mirrorServices(world: MirrorWorld): readonly ServiceJson[] {
  return world.source.services.filter((s) => s.metadata.labels?.[MIRRORED_RESOURCE_LABEL] === 'true' && s.metadata.labels?.[REMOTE_CLUSTER_NAME_LABEL] === world.link.targetClusterName);
}

/** Local Services labelled headless-mirror-svc-name=<root> in the namespace (the lister's List). */
function perPodServices(world: MirrorWorld, namespace: string, root: string): ServiceJson[] {
  return world.source.services.filter((s) => s.metadata.namespace === namespace && s.metadata.labels?.[HEADLESS_MIRROR_SVC_NAME_LABEL] === root);
}

const mirrorName = (world: MirrorWorld, remoteName: string): string => `${remoteName}-${world.link.targetClusterName}`;
/** CW targetResourceName / originalResourceName: strings.TrimSuffix(name, "-<target>"). */
const trimTarget = (world: MirrorWorld, name: string): string => (name.endsWith(`-${world.link.targetClusterName}`) ? name.slice(0, -(world.link.targetClusterName.length + 1)) : name);
const fqName = (world: MirrorWorld, svc: ServiceJson): string => `${svc.metadata.name}.${svc.metadata.namespace}.svc.${world.link.targetClusterDomain ?? 'cluster.local'}`;
const portsField = (ports: { port: number }[]): { ports?: { port: number }[] } => (ports.length > 0 ? { ports } : {});
const portsSpec = (ports: ServicePortJson[]): { ports?: ServicePortJson[] } => (ports.length > 0 ? { ports } : {});
const write = (verb: MirrorWrite['verb'], kind: MirrorWrite['kind'], obj: ServiceJson | EndpointsJson): MirrorWrite => ({ verb, kind, obj });

function find<T extends { metadata: MetaJson }>(list: readonly T[], namespace: string, name: string): T | undefined {
  return list.find((o) => o.metadata.namespace === namespace && o.metadata.name === name);
}

function byNamespaceName(a: ServiceJson, b: ServiceJson): number {
  const x = `${a.metadata.namespace}/${a.metadata.name}`;
  const y = `${b.metadata.namespace}/${b.metadata.name}`;
  return x < y ? -1 : x > y ? 1 : 0;
}

function allocate(world: MirrorWorld, namespace: string, name: string): string {
  if (world.allocateClusterIP === undefined) throw new Error(`the controller would create Service ${namespace}/${name}: pass allocateClusterIP`);
  return world.allocateClusterIP(namespace, name);
}
