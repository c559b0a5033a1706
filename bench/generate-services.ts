/**
 * The exported services of one generated cluster, as a live observation would record them: a mode
 * mix of ~70 % gateway, ~15 % flat (remote-discovery), ~10 % federated members and ~5 % headless
 * StatefulSets with 3 pods, spread over a few namespaces, with realistic and awkward metadata.
 * Service `i` has the same namespace, name, mode and ports in every cluster (fleet-wide apps, so
 * federated members meet); labels and annotations vary per cluster. Deterministic for a seed.
 */
import {
  EXPORTED_GATEWAY_VALUE,
  EXPORTED_LABEL,
  EXPORTED_REMOTE_DISCOVERY_VALUE,
  FEDERATED_LABEL,
  FEDERATED_MEMBER_VALUE,
} from '../src/contract/linkerd.js';
import type { ObservedPort, ObservedService } from '../src/snapshot/snapshot.js';
import { compareBy, sortedRecord } from '../src/util/order.js';
import * as meta from './sample-metadata.js';
import { itemSeed, pick, seededRandom } from './seeded-random.js';

/** How a generated service is exported. */
export type ServiceMode = 'gateway' | 'flat' | 'federated' | 'headless';

/**
 * Modes by `index % 20`: 14 gateway, 3 flat, 2 federated, 1 headless, interleaved so that even ten
 * services hold every mode.
 */
const MODE_CYCLE: readonly ServiceMode[] = (() => {
  const g = 'gateway', f = 'flat', d = 'federated', h = 'headless';
  return [g, f, d, h, g, g, f, g, g, g, d, g, g, f, g, g, g, g, g, g] as ServiceMode[];
})();

/** Pods of every generated StatefulSet. */
export const STATEFULSET_PODS = 3;

/** The mode of service `index`. */
export function serviceMode(index: number): ServiceMode {
  return MODE_CYCLE[index % MODE_CYCLE.length]!;
}

/** Namespace and name of service `index` (the same in every cluster). */
export function serviceIdentity(index: number): { namespace: string; name: string } {
  const base = meta.SERVICE_BASES[(index * 7) % meta.SERVICE_BASES.length]!;
  return { namespace: meta.APP_NAMESPACES[index % meta.APP_NAMESPACES.length]!, name: `${base}-${index}` };
}

function modeLabel(mode: ServiceMode): [string, string] {
  if (mode === 'flat') return [EXPORTED_LABEL, EXPORTED_REMOTE_DISCOVERY_VALUE];
  if (mode === 'federated') return [FEDERATED_LABEL, FEDERATED_MEMBER_VALUE];
  return [EXPORTED_LABEL, EXPORTED_GATEWAY_VALUE];
}

/** Ports of service `index`: fixed per index, so federated members agree across clusters. */
function servicePorts(index: number, mode: ServiceMode): ObservedPort[] {
  if (mode === 'headless') {
    return [
      { name: 'client', protocol: 'TCP', port: 2181, targetPort: 2181 },
      { name: 'peer', protocol: 'TCP', port: 2888, targetPort: 2888 },
      { name: 'leader', protocol: 'TCP', port: 3888, targetPort: 3888 },
    ];
  }
  switch (index % 4) {
    case 0: return [{ name: 'http', protocol: 'TCP', port: 80, targetPort: 'http' }];
    case 1: return [{ name: 'http', protocol: 'TCP', port: 8080, targetPort: 8080 }, { name: 'metrics', protocol: 'TCP', port: 9102, targetPort: 9102 }];
    case 2: return [{ name: 'grpc', protocol: 'TCP', port: 9090, targetPort: 'grpc' }];
    default: return [{ name: 'https', protocol: 'TCP', port: 443, targetPort: 8443 }, { name: 'admin', protocol: 'TCP', port: 9901, targetPort: 9901 }];
  }
}

/** Service `index` of cluster number `cluster` (0-based), as the lock records it. */
export function generatedService(seed: number, cluster: number, index: number): ObservedService {
  const random = seededRandom(itemSeed(seed, cluster, index));
  const mode = serviceMode(index);
  const { namespace, name } = serviceIdentity(index);
  const base = name.slice(0, name.lastIndexOf('-'));
  const [exportKey, exportValue] = modeLabel(mode);
  const version = `${1 + Math.floor(random() * 4)}.${Math.floor(random() * 20)}.${Math.floor(random() * 10)}`;
  const labels: Record<string, string> = {
    [meta.APP_NAME_LABEL]: base,
    [meta.APP_INSTANCE_LABEL]: `${name}-${namespace}`,
    [meta.APP_VERSION_LABEL]: version,
    [meta.APP_COMPONENT_LABEL]: mode === 'headless' ? 'database' : pick(random, meta.COMPONENTS),
    [meta.APP_PART_OF_LABEL]: namespace,
    [meta.APP_MANAGED_BY_LABEL]: 'Helm',
    [meta.HELM_CHART_LABEL]: `${base}-${version}`,
    [meta.TEAM_LABEL]: pick(random, meta.TEAMS),
    [meta.VERSION_LABEL]: `v${version.split('.')[0]}`,
    [exportKey]: exportValue,
  };
  if (random() < 0.3) labels[meta.COST_CENTER_LABEL] = `cc-${100 + Math.floor(random() * 900)}`;
  if (index % 10 === 3) labels[meta.FEATURE_FLAG_LABEL] = pick(random, meta.YAML_AMBIGUOUS_VALUES);
  if (index % 10 === 7) labels[meta.BUILD_LABEL] = '0o12';
  if (index % 10 === 8) labels[meta.REPLICAS_HINT_LABEL] = '1e3';

  const ports = servicePorts(index, mode);
  const annotations: Record<string, string> = {};
  if (ports.some((p) => p.name === 'metrics' || p.name === 'admin') || random() < 0.5) {
    const metricsPort = ports.find((p) => p.name === 'metrics' || p.name === 'admin')?.port ?? 9102;
    annotations[meta.PROMETHEUS_SCRAPE_ANNOTATION] = 'true';
    annotations[meta.PROMETHEUS_PORT_ANNOTATION] = String(metricsPort);
    annotations[meta.PROMETHEUS_PATH_ANNOTATION] = '/metrics';
  }
  if (ports.some((p) => p.name === 'grpc') && random() < 0.5) annotations[meta.OPAQUE_PORTS_ANNOTATION] = '9090';
  if (index % 5 === 0) {
    annotations[meta.DESCRIPTION_ANNOTATION] =
      `${base} serves the ${namespace} domain for every region of the fleet. `.repeat(1 + Math.floor(random() * 6)).trim();
  }
  if (index % 7 === 0) annotations[meta.OWNER_ANNOTATION] = pick(random, meta.OWNERS);
  if (index % 10 === 5) annotations[meta.RUNBOOK_ANNOTATION] = pick(random, meta.YAML_AMBIGUOUS_VALUES);
  if (random() < 0.2) annotations[meta.RUNBOOK_ANNOTATION] = `https://runbooks.example.com/${namespace}/${name}#${'x'.repeat(Math.floor(random() * 80))}`;

  return {
    namespace,
    name,
    labels: sortedRecord(labels),
    annotations: sortedRecord(annotations),
    type: 'ClusterIP',
    headless: mode === 'headless',
    ports,
    ...(mode === 'headless'
      ? {
          hostnames: Array.from({ length: STATEFULSET_PODS }, (_, pod) => `${name}-${pod}`),
          endpointPorts: ports.map((p) => ({ name: p.name, protocol: p.protocol, port: p.port })).sort(compareBy((p) => p.name)),
        }
      : {}),
  };
}

/** The `count` services of cluster number `cluster`, sorted by namespace and name as observation sorts them. */
export function generatedServices(seed: number, cluster: number, count: number): ObservedService[] {
  return Array.from({ length: count }, (_, i) => generatedService(seed, cluster, i)).sort(compareBy((s) => s.namespace, (s) => s.name));
}
