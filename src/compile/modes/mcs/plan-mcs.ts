/**
 * Plans the MCS-API output of one source: the gateway-mode services of its links with `mcs: true`,
 * grouped by namespace and name across exporting clusters. Conflicts follow the MCS API's rule with
 * a deterministic stand-in for "the oldest export wins": the exporting cluster whose name sorts
 * first sets type and ports, and a cluster that disagrees is left out of the import and reported.
 */
import type { MirrorRequest, MirrorUnit } from '../../mirror-unit.js';
import type { Diagnostics } from '../../diagnostics.js';
import { compareStrings } from '../../../util/order.js';
import { genericGatewayPort, isGenericGateway } from '../gateway/generic-gateway-port.js';
import { gatewayEndpoints } from '../gateway/plan-gateway.js';
import { mcsImportObjects, type McsClusterEndpoints, type McsPort } from './mcs-import.js';
import { Diag } from '../../../diagnostics/diagnostic-codes.js';

/**
 * The MCS units of `source` from `requests` (gateway-mode requests of its MCS links). A ServiceImport
 * that another controller already owns in the source (`foreign`) is skipped with a warning, as a
 * foreign Service with a mirror's name is: applying ours would take it over, and a later prune delete it.
 */
export function planMcsImports(source: string, requests: readonly MirrorRequest[], diagnostics: Diagnostics, foreign: readonly { namespace: string; name: string }[] = []): MirrorUnit[] {
  const foreignKeys = new Set(foreign.map((f) => `${f.namespace}/${f.name}`));
  const groups = new Map<string, MirrorRequest[]>();
  for (const request of requests) {
    const key = `${request.service.namespace}/${request.service.name}`;
    groups.set(key, [...(groups.get(key) ?? []), request]);
  }
  const units: MirrorUnit[] = [];
  // `<name>-<cluster>-mcs-…` can be the same for two imports (service api-us from east, api from us-east): first come, first served.
  const sliceOwners = new Map<string, string>();
  for (const key of [...groups.keys()].sort(compareStrings)) {
    const members = groups.get(key)!.sort((a, b) => compareStrings(a.target.name, b.target.name));
    const [namespace, name] = key.split('/') as [string, string];
    if (foreignKeys.has(key)) {
      diagnostics.skip(
        Diag.SERVICE_IMPORT_SKIPPED,
        `${source}: ServiceImport ${key} already exists in "${source}" and was not written by mirrorc (another controller owns it); rename or remove it, or exclude namespace "${namespace}" from the MCS link`,
        `${members.map((m) => `${m.target.name}/${key}`).join(' and ')} ${members.length === 1 ? 'is' : 'are'} not imported`,
        { cluster: source, namespace, service: name },
      );
      continue;
    }
    const winner = members[0]!;
    const { clusters, conflicting } = importedClusters(source, { key, namespace, name, members }, sliceOwners, diagnostics);
    if (clusters.length === 0) continue;
    const type = winner.service.headless ? 'Headless' : 'ClusterSetIP';
    const importPorts = ports(winner);
    if (importPorts.length === 0) {
      diagnostics.warn(Diag.NO_PORTS, `${source}: ServiceImport ${key} would have no ports (the exported service has none); skipped`, { cluster: source, namespace, service: name });
      continue;
    }
    diagnostics.note(
      `mcs: ${source} ← ServiceImport ${key} (${type}; ${importPorts.map((p) => `${p.name || '-'}/${p.protocol}/${p.port}`).join(', ')}) from ${clusters.map((c) => c.cluster).join(', ')}` +
        (conflicting.length > 0 ? `; conflict: ${conflicting.join(', ')} left out` : ''),
    );
    units.push({
      source,
      namespace,
      origin: `ServiceImport ${key}`,
      mode: 'mcs',
      // The ServiceImport keeps the exported service's (already valid) name; no Service is written.
      serviceNames: [],
      objects: () => mcsImportObjects({ namespace, name, type, ports: importPorts, clusters }),
    });
  }
  return units;
}

/** The exporting clusters of one ServiceImport `namespace/name` (`key`), sorted by cluster name. */
interface ImportGroup {
  readonly key: string;
  readonly namespace: string;
  readonly name: string;
  readonly members: readonly MirrorRequest[];
}

/**
 * The endpoints each exporting cluster of `group` gives its ServiceImport, and the clusters left out
 * for a type or ports other than the first's. `sliceOwners` (slice name prefix → ServiceImport) is
 * shared by every import of the source: first come, first served.
 */
function importedClusters(source: string, group: ImportGroup, sliceOwners: Map<string, string>, diagnostics: Diagnostics): { clusters: McsClusterEndpoints[]; conflicting: string[] } {
  const { key, namespace, name, members } = group;
  const winner = members[0]!;
  const signature = (r: MirrorRequest): string => JSON.stringify([r.service.headless, ports(r)]);
  const clusters: McsClusterEndpoints[] = [];
  const conflicting: string[] = [];
  for (const member of members) {
    if (signature(member) !== signature(winner)) {
      conflicting.push(member.target.name);
      diagnostics.warn(
        Diag.SERVICE_IMPORT_SKIPPED,
        `${source}: ServiceImport ${key}: "${member.target.name}" exports it with a different type or ports than "${winner.target.name}"; ` +
          `as in the MCS API (where the oldest export wins), the first exporting cluster by name, "${winner.target.name}", sets them and "${member.target.name}" is left out of the import; make the services agree`,
        { cluster: source, target: member.target.name, namespace, service: name },
      );
      continue;
    }
    const gateway = member.targetSnapshot.gateway;
    if (!gateway) continue; // reported once per target by selection
    let port = gateway.port;
    if (isGenericGateway(member.target)) {
      const outcome = genericGatewayPort(member.target, member.targetSnapshot, member.service, member.established);
      if ('problem' in outcome) {
        diagnostics.skip(Diag.GATEWAY_PORT_UNKNOWN, `${source}: ${outcome.problem}`, `its endpoints are left out of ServiceImport ${key}`, { cluster: source, target: member.target.name, namespace, service: name });
        continue;
      }
      port = outcome.port;
    }
    const slices = `${namespace}/${name}-${member.target.name}-mcs`;
    const owner = sliceOwners.get(slices);
    if (owner !== undefined && owner !== key) {
      diagnostics.skip(
        Diag.SERVICE_IMPORT_SKIPPED,
        `${source}: the EndpointSlices of ServiceImport ${key} from "${member.target.name}" would be named like those of ServiceImport ${owner} (${slices}-…)`,
        `its endpoints from "${member.target.name}" are left out of ServiceImport ${key}; rename one of the services`,
        { cluster: source, target: member.target.name, namespace, service: name },
      );
      continue;
    }
    sliceOwners.set(slices, key);
    const readiness = member.service.hasReadyEndpoints === false && member.link.followServiceReadiness !== false ? 'empty' : gatewayEndpoints(member);
    clusters.push({ cluster: member.target.name, addresses: gateway.addresses, port, ...(readiness !== 'ready' ? { readiness } : {}) });
  }
  return { clusters, conflicting };
}

/** The service's ports as a ServiceImport lists them. */
function ports(request: MirrorRequest): McsPort[] {
  return request.service.ports.map((p) => ({ name: p.name, protocol: p.protocol, port: p.port }));
}
