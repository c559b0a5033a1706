/** Observes one cluster in its role as a link target: exported services and the gateway. */
import { timeoutSignal } from '../util/timeout-signal.js';
import type * as k8s from '@kubernetes/client-node';
import { GATEWAY_IDENTITY_ANNOTATION, GATEWAY_PORT_NAME, GATEWAY_PROBE_FAILURE_THRESHOLD } from '../contract/linkerd.js';
import type { ExplicitExportSpec, GatewaySpec, LinkSpec } from '../model/fleet-spec.js';
import { linkSelectorQueries, selectorMatches } from '../model/label-selector.js';
import { mapLimit } from '../util/map-limit.js';
import { compareBy, compareStrings, sortedUnique } from '../util/order.js';
import { namespaceNameProblem, serviceNameProblem } from '../util/k8s-names.js';
import { readsServiceExports } from '../model/service-exports.js';
import type { ClusterClient } from './cluster-client.js';
import { resolveAddresses } from './resolve-addresses.js';
import { probeGateway, probePlan } from './probe-gateway.js';
import { probeAddresses } from './probe-policy.js';
import type { ObservedGateway, ObservedGatewayProbe, ObservedService, TargetSnapshot } from '../snapshot/snapshot.js';
import { validServices } from './observed-checks.js';
import { observePodEndpoints, observeReadiness, podEndpoints, readiness, toObservedService } from './to-plain.js';
import { SERVICE_NAME_LABEL } from '../contract/kubernetes.js';

/** A target's snapshot plus what observation could not determine about its gateway. */
export interface TargetObservation {
  readonly snapshot: TargetSnapshot;
  /** Why the gateway has no usable address, port or identity right now. */
  readonly gatewayProblems: readonly string[];
  /** Services left out because what the apiserver returned is not a valid Service (one warning each, naming the cluster). @default none */
  readonly skipped?: readonly string[];
  /** What the ServiceExport objects could not give: a missing CRD a link asked for, an export naming no Service. @default none */
  readonly serviceExportProblems?: readonly string[];
}

/**
 * Why an observed gateway must not be used, and so not probed either (see `gatewayRejections` in
 * gateway-checks.ts); empty when it passes every check.
 */
export type GatewayRejections = (gateway: ObservedGateway) => readonly string[];

/**
 * Lists the services of `links`' selectors, gateway and remote-discovery alike (each selector once), and `explicitExports`, and reads the gateway.
 * @throws ObservationError when the cluster cannot be listed
 */
export async function observeTarget(
  client: ClusterClient,
  gatewaySpec: GatewaySpec,
  links: readonly LinkSpec[],
  explicitExports: readonly ExplicitExportSpec[],
  gatewayRejections: GatewayRejections = () => [],
): Promise<TargetObservation> {
  const cluster = client.cluster;
  const selectors = sortedUnique(links.flatMap(linkSelectorQueries));
  const byKey = new Map<string, ObservedService>();
  for (const selector of selectors) {
    for (const svc of await client.listServices(selector)) {
      const observed = toObservedService(svc);
      byKey.set(`${observed.namespace}/${observed.name}`, observed);
    }
  }
  const missing: string[] = [];
  for (const exp of explicitExports) {
    const key = `${exp.namespace}/${exp.name}`;
    const svc = await client.readService(exp.namespace, exp.name);
    if (!svc) missing.push(key);
    else byKey.set(key, { ...(byKey.get(key) ?? toObservedService(svc)), explicit: true });
  }
  const mcsLinks = links.filter(readsServiceExports);
  const serviceExports = mcsLinks.length > 0 ? await observeServiceExports(client, mcsLinks, byKey) : undefined;
  const podReadiness = links.some((l) => l.followPodReadiness === true);
  const checked = [...byKey.entries()].filter(([, svc]) => validServices(cluster, [svc], []).length === 1 && readinessNeeded(svc, links));
  // A service's endpoints are listed only once its own name passed the boundary check. Many services:
  // one list of every EndpointSlice (pages of pageSize) costs less than a list per service.
  if (checked.length > client.perServiceSliceLists) {
    const slicesByService = new Map<string, k8s.V1EndpointSlice[]>();
    for (const slice of await client.listAllEndpointSlices()) {
      const key = `${slice.metadata?.namespace ?? ''}/${slice.metadata?.labels?.[SERVICE_NAME_LABEL] ?? ''}`;
      const list = slicesByService.get(key);
      if (list) list.push(slice);
      else slicesByService.set(key, [slice]);
    }
    for (const [key, svc] of checked) {
      const slices = slicesByService.get(key) ?? [];
      byKey.set(key, { ...svc, ...(svc.headless ? podEndpoints(slices, podReadiness) : readiness(slices)) });
    }
  } else {
    await mapLimit(checked, ENDPOINT_LISTS_IN_FLIGHT, async ([key, svc]) => {
      const endpoints = svc.headless ? await observePodEndpoints(client, svc.namespace, svc.name, podReadiness) : await observeReadiness(client, svc.namespace, svc.name);
      byKey.set(key, { ...svc, ...endpoints });
    });
  }
  const skipped: string[] = [];
  const services = validServices(cluster, [...byKey.values()], skipped);
  const { gateway, problems, probe } = await observeGateway(client, gatewaySpec, gatewayRejections);
  return {
    skipped,
    snapshot: {
      selectors,
      services: services.sort(compareBy((s) => s.namespace, (s) => s.name)),
      missingExplicitExports: sortedUnique(missing),
      ...(serviceExports ? { serviceExportsListed: true as const } : {}),
      ...(gateway ? { gateway } : {}),
      ...(probe ? { gatewayProbe: probe } : {}),
    },
    gatewayProblems: problems,
    ...(serviceExports ? { serviceExportProblems: serviceExports.problems } : {}),
  };
}

/**
 * Lists the target's MCS `ServiceExport` objects and marks each Service they name (same namespace
 * and name) `serviceExport`, reading by name those no selector listed. A cluster without the CRD
 * has none; that is worth a warning only when a link set `serviceExports: true`.
 */
async function observeServiceExports(client: ClusterClient, mcsLinks: readonly LinkSpec[], byKey: Map<string, ObservedService>): Promise<{ problems: string[] }> {
  const cluster = client.cluster;
  const problems: string[] = [];
  const keys = await client.listServiceExports();
  if (keys === undefined) {
    const asking = mcsLinks.filter((l) => l.serviceExports === true).map((l) => l.path);
    if (asking.length > 0) {
      problems.push(`cluster "${cluster}": the MCS API's ServiceExport CRD is not installed (list serviceexports.multicluster.x-k8s.io answered 404), so link${asking.length === 1 ? '' : 's'} ${asking.join(', ')} export${asking.length === 1 ? 's' : ''} only what ${asking.length === 1 ? 'its' : 'their'} selector and explicit exports name; install the CRD in "${cluster}", or remove serviceExports: true`);
    }
    return { problems };
  }
  await mapLimit(sortedUnique(keys), ENDPOINT_LISTS_IN_FLIGHT, async (key) => {
    const [namespace = '', name = ''] = key.split('/');
    const known = byKey.get(key);
    if (known) {
      byKey.set(key, { ...known, serviceExport: true });
      return;
    }
    // A ServiceExport's name is a Service name by the MCS API; anything else names no Service here.
    const svc = namespaceNameProblem(namespace) === undefined && serviceNameProblem(name) === undefined ? await client.readService(namespace, name) : undefined;
    if (svc) byKey.set(key, { ...toObservedService(svc), serviceExport: true });
    else problems.push(`cluster "${cluster}": ServiceExport ${key} names no Service in "${cluster}", so nothing is exported for it; create the Service or delete the ServiceExport`);
  });
  return { problems: problems.sort(compareStrings) };
}

/** EndpointSlice lists of one target in flight at once. */
const ENDPOINT_LISTS_IN_FLIGHT = 8;

/**
 * Whether a service's EndpointSlices are read: always for a headless service (its pods' hostnames);
 * otherwise only when it is a gateway-mode mirror of some link that follows service readiness
 * (flat-mode mirrors and federated members have no endpoints of ours).
 */
function readinessNeeded(svc: ObservedService, links: readonly LinkSpec[]): boolean {
  if (svc.headless) return true;
  const gatewayMode = (l: LinkSpec): boolean => !selectorMatches(l.remoteDiscoverySelector, svc.labels) && (svc.explicit === true || selectorMatches(l.selector, svc.labels));
  return links.some((l) => l.followServiceReadiness !== false && gatewayMode(l));
}

/** Reads the gateway Service (unless the model fixes every value) and resolves its addresses. */
async function observeGateway(client: ClusterClient, spec: GatewaySpec, rejections: GatewayRejections): Promise<{ gateway?: ObservedGateway; problems: string[]; probe?: ObservedGatewayProbe }> {
  const where = `gateway Service ${spec.namespace}/${spec.name}`;
  const generic = spec.kind === 'generic';
  // A generic gateway has no identity; its recorded port is only a default (each mirror uses its service's port).
  const needsService = spec.addresses === undefined || spec.port === undefined || (!generic && spec.identity === undefined) || spec.probe !== undefined;
  const svc = needsService ? await client.readService(spec.namespace, spec.name) : undefined;
  if (needsService && !svc) return { problems: [`${where} does not exist (is linkerd-multicluster installed with a gateway?)`] };

  const problems: string[] = [];
  const addresses = spec.addresses ?? ingressAddresses(svc);
  if (addresses.length === 0) problems.push(`${where} has no load-balancer address yet`);
  const port = spec.port ?? gatewayPort(svc) ?? (generic ? svc?.spec?.ports?.[0]?.port : undefined);
  if (port === undefined) problems.push(`${where} has no port named "${GATEWAY_PORT_NAME}"`);
  const identity = generic ? undefined : spec.identity ?? svc?.metadata?.annotations?.[GATEWAY_IDENTITY_ANNOTATION];
  if (!identity && !generic) {
    problems.push(`${where} has no "${GATEWAY_IDENTITY_ANNOTATION}" annotation and the model sets no gateway.identity; its mirrors carry no gateway identity, so proxies cannot verify the gateway`);
  }

  const resolved = await resolveAddresses(addresses);
  for (const failure of resolved.failures) problems.push(`${where}: address ${failure} did not resolve`);
  if (addresses.length > 0 && resolved.ips.length === 0) problems.push(`${where}: none of its addresses resolved to an IP`);
  if (resolved.ips.length === 0 || port === undefined) return { problems };
  const gateway: ObservedGateway = { addresses: resolved.ips, port, ...(identity ? { identity } : {}) };
  // The probe goes to the address the fleet file names, or only to a gateway that passed every
  // check, and then only to its addresses the fleet allows for probing (probe-policy.ts): the target
  // chooses its addresses and port, and must not make synth send requests to loopback, the cloud
  // metadata endpoint, the source's own ranges or any private address the fleet did not declare.
  const rejected = spec.probe && spec.probe.address === undefined ? rejections(gateway) : [];
  if (spec.probe && rejected.length > 0) {
    problems.push(`${where} is not probed, because its gateway is rejected (see the REJECTED warning); no request is sent to it`);
  }
  const probe = spec.probe && rejected.length === 0 ? await probeOutcome(where, spec, svc, resolved.ips, problems, client) : undefined;
  return { gateway, problems, ...(probe ? { probe } : {}) };
}

/**
 * Probes the gateway as the model asks and words what a failure means: a warning either way, and
 * under `not-ready` the verdict that compile turns into not-ready mirrors.
 */
async function probeOutcome(where: string, gatewaySpec: GatewaySpec, svc: k8s.V1Service | undefined, ips: readonly string[], problems: string[], client: ClusterClient): Promise<ObservedGatewayProbe | undefined> {
  const spec = gatewaySpec.probe!;
  const allowed = spec.address === undefined ? allowedProbeAddresses(where, gatewaySpec, ips, problems) : ips;
  if (allowed.length === 0) return undefined;
  const plan = probePlan(svc, allowed, spec);
  if ('problem' in plan) {
    problems.push(`${where} ${plan.problem}; its mirrors stay ready (add the port and annotation, as linkerd-multicluster's chart does, or remove gateway.probe)`);
    return undefined;
  }
  const { maxProbeAddresses, maxProbeSeconds } = client.budget;
  if (plan.urls.length > maxProbeAddresses) {
    problems.push(`${where} has ${plan.urls.length} addresses to probe; only the first ${maxProbeAddresses} are probed (observationBudget.maxProbeAddresses)`);
  }
  const outcome = await probeGateway(plan, {
    maxAddresses: maxProbeAddresses,
    signal: timeoutSignal(maxProbeSeconds * 1000, client.deadline),
    outOfTime: `the probe ran out of time (observationBudget.maxProbeSeconds ${maxProbeSeconds} s)`,
  });
  if (outcome.alive) return undefined;
  const effect = spec.mode === 'not-ready'
    ? 'its gateway-mode mirrors are written NOT READY (gateway.probe.mode "not-ready") until a synth probes it alive'
    : 'its mirrors stay ready (gateway.probe.mode "warn")';
  const reach = outcome.answered
    ? ''
    : '; no probe got an HTTP answer: if this machine cannot reach the gateway the way the source clusters\' pods do, set gateway.probe.address to a way it can, or remove gateway.probe';
  problems.push(`${where} failed its probe ${GATEWAY_PROBE_FAILURE_THRESHOLD} times (${outcome.failures.join('; ')}); ${effect}${reach}`);
  return spec.mode === 'not-ready' ? { alive: false } : undefined;
}

/**
 * The gateway addresses the fleet allows the probe to reach (probe-policy.ts), with one problem
 * naming those it does not; none means no probe, and the mirrors stay ready.
 */
function allowedProbeAddresses(where: string, spec: GatewaySpec, ips: readonly string[], problems: string[]): readonly string[] {
  const { allowed, refused } = probeAddresses(ips, { allowedCidrs: spec.probe?.allowedCidrs, namedAddresses: spec.addresses });
  if (refused.length > 0) {
    const listed = refused.map((r) => `${r.ip} (${r.why})`).join(', ');
    const effect = allowed.length > 0 ? `only ${allowed.join(', ')} ${allowed.length === 1 ? 'is' : 'are'} probed` : 'it is not probed, and its mirrors stay ready';
    problems.push(
      `${where}: the probe sends no request to ${listed}: an address that is not public is probed only inside gateway.probe.allowedCidrs; ${effect}. ` +
        'If the gateway really is there, add its range to gateway.probe.allowedCidrs, or set gateway.probe.address',
    );
  }
  return allowed;
}

function ingressAddresses(svc: k8s.V1Service | undefined): string[] {
  return (svc?.status?.loadBalancer?.ingress ?? []).map((i) => i.ip ?? i.hostname ?? '').filter((a) => a !== '');
}

function gatewayPort(svc: k8s.V1Service | undefined): number | undefined {
  const port = svc?.spec?.ports?.find((p) => p.name === GATEWAY_PORT_NAME);
  if (!port) return undefined;
  return svc?.spec?.type === 'NodePort' ? port.nodePort : port.port;
}
