/** Observes one cluster in its role as a link target: exported services and the gateway. */
import type * as k8s from '@kubernetes/client-node';
import { GATEWAY_IDENTITY_ANNOTATION, GATEWAY_PORT_NAME } from '../contract/linkerd.js';
import type { ExplicitExportSpec, GatewaySpec, LinkSpec } from '../model/fleet-spec.js';
import { linkSelectorQueries } from '../model/label-selector.js';
import { compareBy, sortedUnique } from '../util/order.js';
import type { ClusterClient } from './cluster-client.js';
import { resolveAddresses } from './resolve-addresses.js';
import type { ObservedGateway, ObservedService, TargetSnapshot } from './snapshot.js';
import { validServices } from './observed-checks.js';
import { observePodEndpoints, toObservedService } from './to-plain.js';

/** A target's snapshot plus what observation could not determine about its gateway. */
export interface TargetObservation {
  readonly snapshot: TargetSnapshot;
  /** Why the gateway has no usable address, port or identity right now. */
  readonly gatewayProblems: readonly string[];
  /** Services left out because what the apiserver returned is not a valid Service (one warning each, naming the cluster). @default none */
  readonly skipped?: readonly string[];
}

/**
 * Lists the services of `links`' selectors, gateway and remote-discovery alike (each selector once), and `explicitExports`, and reads the gateway.
 * @throws ObservationError when the cluster cannot be listed
 */
export async function observeTarget(
  client: ClusterClient,
  gatewaySpec: GatewaySpec,
  links: readonly LinkSpec[],
  explicitExports: readonly ExplicitExportSpec[],
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
  for (const [key, svc] of byKey) {
    // A headless service's endpoints are listed only once its own name passed the boundary check.
    if (svc.headless && validServices(cluster, [svc], []).length === 1) byKey.set(key, { ...svc, ...(await observePodEndpoints(client, svc.namespace, svc.name)) });
  }
  const skipped: string[] = [];
  const services = validServices(cluster, [...byKey.values()], skipped);
  const { gateway, problems } = await observeGateway(client, gatewaySpec);
  return {
    skipped,
    snapshot: {
      selectors,
      services: services.sort(compareBy((s) => s.namespace, (s) => s.name)),
      missingExplicitExports: sortedUnique(missing),
      ...(gateway ? { gateway } : {}),
    },
    gatewayProblems: problems,
  };
}

/** Reads the gateway Service (unless the model fixes every value) and resolves its addresses. */
async function observeGateway(client: ClusterClient, spec: GatewaySpec): Promise<{ gateway?: ObservedGateway; problems: string[] }> {
  const where = `gateway Service ${spec.namespace}/${spec.name}`;
  const generic = spec.kind === 'generic';
  // A generic gateway has no identity; its recorded port is only a default (each mirror uses its service's port).
  const needsService = spec.addresses === undefined || spec.port === undefined || (!generic && spec.identity === undefined);
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
  return { gateway: { addresses: resolved.ips, port, ...(identity ? { identity } : {}) }, problems };
}

function ingressAddresses(svc: k8s.V1Service | undefined): string[] {
  return (svc?.status?.loadBalancer?.ingress ?? []).map((i) => i.ip ?? i.hostname ?? '').filter((a) => a !== '');
}

function gatewayPort(svc: k8s.V1Service | undefined): number | undefined {
  const port = svc?.spec?.ports?.find((p) => p.name === GATEWAY_PORT_NAME);
  if (!port) return undefined;
  return svc?.spec?.type === 'NodePort' ? port.nodePort : port.port;
}
