/**
 * Plans the `<svc>-global` Services of one source: every per-pod mirrored service that opted in
 * (per link or by label) and, when the source's own headless service carries the label, the
 * source's own pods through pinned per-pod Services.
 *
 * Precedence (for the Service's ports and the order of its slices): the source's own pods first,
 * then targets in the order of the source's links (sorted by target name).
 */
import type { ClusterSpec } from '../../../model/fleet-spec.js';
import type { ObservedService } from '../../../snapshot/snapshot.js';
import type { Diagnostics } from '../../diagnostics.js';
import type { MirrorUnit } from '../../mirror-unit.js';
import { globalServiceName, perPodServiceName } from '../../names.js';
import type { HeadlessUnit, PodSetContribution } from '../headless/plan-headless.js';
import { globalServiceObjects } from './global-service.js';
import { localPodServiceObjects } from './local-pod-service.js';
import { appendAll } from '../../../util/append-all.js';
import { Diag } from '../../../diagnostics/diagnostic-codes.js';

/** Inputs of {@link planGlobalServices}. */
export interface GlobalPlanInput {
  readonly source: ClusterSpec;
  /** The source's link targets, in link order. */
  readonly targetOrder: readonly string[];
  /** The source's headless units that join `-global`. */
  readonly headless: readonly HeadlessUnit[];
  /** The source's own headless services labelled to join `-global`. */
  readonly localMembers: readonly ObservedService[];
}

/** The units: per-pod Services of the source's own pods, and one `-global` Service per namespace and service. */
export function planGlobalServices(input: GlobalPlanInput, diagnostics: Diagnostics): MirrorUnit[] {
  const { source } = input;
  const units: MirrorUnit[] = [];
  const contributions: PodSetContribution[] = [];

  for (const member of input.localMembers) {
    const where = `${source.name}/${member.namespace}/${member.name}`;
    if (source.pinnedServiceIPRange === undefined) {
      diagnostics.warn(Diag.GLOBAL_MEMBER_LEFT_OUT, `${source.name}: ${where} asks to join ${globalServiceName(member.name)}, but cluster "${source.name}" declares no pinnedServiceIPRange for the per-pod Services of its own pods; its pods are left out`, { cluster: source.name, namespace: member.namespace, service: member.name });
      continue;
    }
    if (!member.selector || Object.keys(member.selector).length === 0) {
      diagnostics.warn(Diag.GLOBAL_MEMBER_LEFT_OUT, `${source.name}: ${where} asks to join ${globalServiceName(member.name)}, but it has no pod selector, so its pods cannot be selected one by one; its pods are left out`, { cluster: source.name, namespace: member.namespace, service: member.name });
      continue;
    }
    const selector = member.selector;
    const pods = (member.hostnames ?? []).map((hostname) => ({ hostname, serviceName: perPodServiceName(hostname, source.name) }));
    const endpointPorts = member.endpointPorts ?? [];
    contributions.push({ cluster: source.name, namespace: member.namespace, serviceName: member.name, ports: member.ports, endpointPorts, pods });
    if (pods.length === 0) continue;
    units.push({
      source: source.name,
      namespace: member.namespace,
      origin: `${where} (own pods, for ${globalServiceName(member.name)})`,
      mode: 'global',
      serviceNames: pods.map((p) => p.serviceName),
      pinnedServiceNames: pods.map((p) => p.serviceName),
      objects: (context) =>
        pods.flatMap((pod) =>
          localPodServiceObjects({
            namespace: member.namespace,
            name: pod.serviceName,
            podName: pod.hostname,
            selector,
            ports: member.ports,
            clusterIP: context.pinnedIP(member.namespace, pod.serviceName),
            globalServiceName: globalServiceName(member.name),
          }),
        ),
    });
  }

  const rank = (cluster: string): number => (cluster === source.name ? -1 : input.targetOrder.indexOf(cluster));
  appendAll(contributions, input.headless.map((u) => u.podSet));
  const groups = new Map<string, PodSetContribution[]>();
  for (const c of contributions) {
    const key = `${c.namespace}/${c.serviceName}`;
    groups.set(key, [...(groups.get(key) ?? []), c]);
  }
  for (const group of groups.values()) {
    const members = [...group].sort((a, b) => rank(a.cluster) - rank(b.cluster));
    const first = members[0]!;
    const name = globalServiceName(first.serviceName);
    reportPortConflicts(source.name, name, members, diagnostics);
    units.push({
      source: source.name,
      namespace: first.namespace,
      origin: `${first.namespace}/${name} (from ${members.map((m) => m.cluster).join(', ')})`,
      mode: 'global',
      serviceNames: [name],
      objects: (context) =>
        globalServiceObjects({
          namespace: first.namespace,
          name,
          ports: first.ports,
          slices: members.map((m) => ({
            cluster: m.cluster,
            ports: m.endpointPorts,
            pods: m.pods.map((p) => ({ hostname: p.serviceName, ip: context.pinnedIP(m.namespace, p.serviceName) })),
          })),
        }),
    });
  }
  return units;
}

/** Members of the `-global` Service `name` whose Service ports differ from the first member's: the Service uses the first member's. */
function reportPortConflicts(source: string, name: string, members: readonly PodSetContribution[], diagnostics: Diagnostics): void {
  const describe = (m: PodSetContribution): string => m.ports.map((p) => `${p.name || '(unnamed)'} ${p.port}/${p.protocol}`).join(', ');
  const first = members[0]!;
  const namespace = first.namespace;
  for (const other of members.slice(1)) {
    if (describe(other) !== describe(first)) {
      diagnostics.warn(
        Diag.GLOBAL_PORT_CONFLICT,
        `${source}: ${namespace}/${name} aggregates ${first.serviceName} from "${first.cluster}" (ports ${describe(first)}) and from "${other.cluster}" (ports ${describe(other)}); ` +
          `the Service takes the ports of "${first.cluster}", and each cluster's slice keeps its own; align the ports so clients see the same service everywhere`,
        { cluster: source, namespace, service: name },
      );
    }
  }
}
