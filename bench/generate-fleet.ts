/**
 * Writes a generated fleet repository: N clusters in full mesh (every cluster links to every other),
 * S exported services per cluster (see generate-services.ts), as `clusters/fleet.ts` plus the lock
 * `clusters/fleet.lock.json` a live observation of such clusters would write (canonical JSON). The
 * lock is streamed one cluster at a time, so 20 × 500 never holds the whole fleet in memory.
 */
import { LOCK_FORMAT } from '../src/state/lock-document.js';
import { closeSync, mkdirSync, openSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { FEDERATED_LABEL, FEDERATED_MEMBER_VALUE } from '../src/contract/linkerd.js';
import { selectorToQuery } from '../src/model/label-selector.js';
import { DEFAULT_FEDERATED_SERVICE_SELECTOR } from '../src/model/link.js';
import { type SourceSnapshot, type TargetSnapshot } from '../src/snapshot/snapshot.js';
import { canonicalJson } from '../src/util/canonical-json.js';
import { sortedUnique } from '../src/util/order.js';
import { APP_NAMESPACES, COST_CENTER_LABEL, SYSTEM_NAMESPACES } from './sample-metadata.js';
import { generatedServices, serviceMode, STATEFULSET_PODS } from './generate-services.js';

/** The repository root (where package.json lives). */
export const REPO_ROOT = join(import.meta.dirname, '..');

/** The size and seed of a generated fleet. */
export interface FleetShape {
  /** Number of clusters, all linked to each other. */
  readonly clusters: number;
  /** Exported services per cluster. */
  readonly services: number;
  /** Seed of the metadata. @default 1 */
  readonly seed?: number;
}

/** Where a generated repository's files are. */
export interface GeneratedRepo {
  readonly dir: string;
  readonly fleetFile: string;
  readonly lockFile: string;
  readonly outDir: string;
}

/**
 * Every cluster's pinned blocks for per-pod mirrors follow docs/modes/headless.md: a /24 at the bottom
 * of each Service CIDR, whose pinnable addresses (.1–.254) lie in that CIDR's static band (a /16 has a
 * band of 256 addresses, .0.1–.1.0, KEP-3070), so synth never warns MRC3026 and no ClusterIP the API
 * server hands to an unpinned Service can take a pin. The first block lies in the harness's Service
 * CIDR (test/harness/kube-fleet.ts SERVICE_CIDR); a source that pins more per-pod mirrors than it
 * holds gets further ServiceCIDRs 10.97.0.0/16, 10.98.0.0/16, … ({@link furtherServiceCidrs}, which
 * the Flux and Argo CD phases create before the first sync), each with its block in
 * `additionalPinnedServiceIPRanges`.
 */
export const PRIMARY_SERVICE_CIDR = '10.96.0.0/16';
/** The pinned block at the bottom of {@link PRIMARY_SERVICE_CIDR}'s static band. */
export const PINNED_SERVICE_IP_RANGE = '10.96.0.0/24';
/** Pinnable addresses of one /24 block (its network and broadcast addresses are never pinned). */
const BLOCK_PINS = 254;
/** Addresses of the first block held by Services the API server creates itself (`kubernetes` .1, `kube-dns` .10, see {@link sourceSnapshot}). */
const PRIMARY_BLOCK_HELD = 2;

/** Per-pod mirrors one source of `shape` pins: one per pod of every headless service of every other cluster. */
export function perPodMirrorsPerSource(shape: FleetShape): number {
  let headless = 0;
  for (let i = 0; i < shape.services; i++) if (serviceMode(i) === 'headless') headless++;
  return (shape.clusters - 1) * headless * STATEFULSET_PODS;
}

/** The Service CIDRs of every generated cluster, the primary first: as many /16s as the pins of one source need, one /24 block each. */
export function generatedServiceCidrs(shape: FleetShape): string[] {
  const further = Math.max(0, Math.ceil((perPodMirrorsPerSource(shape) + PRIMARY_BLOCK_HELD - BLOCK_PINS) / BLOCK_PINS));
  return [PRIMARY_SERVICE_CIDR, ...Array.from({ length: further }, (_, i) => `10.${97 + i}.0.0/16`)];
}

/** The ServiceCIDRs beyond the harness's own that a generated cluster needs (created by the phases before the first sync). */
export function furtherServiceCidrs(shape: FleetShape): string[] {
  return generatedServiceCidrs(shape).slice(1);
}

/** The pinned blocks of every generated cluster, `pinnedServiceIPRange` first: the /24 at the bottom of each Service CIDR. */
export function pinnedBlocks(shape: FleetShape): string[] {
  return generatedServiceCidrs(shape).map((cidr) => cidr.replace(/\/16$/, '/24'));
}

/** The label selectors every generated link observes (the three defaults), in query form, sorted. */
export const GENERATED_SELECTORS: readonly string[] = [
  'mirror.linkerd.io/exported=remote-discovery',
  'mirror.linkerd.io/exported=true',
  'mirror.linkerd.io/federated=member',
];

/** The gateway identity every generated target's gateway announces. */
export const GENERATED_GATEWAY_IDENTITY = 'linkerd-gateway.linkerd-multicluster.serviceaccount.identity.linkerd.cluster.local';

/** Cluster names `c01`…`cNN` (wider when N ≥ 100), sorted. */
export function clusterNames(count: number): string[] {
  const width = Math.max(2, String(count).length);
  return Array.from({ length: count }, (_, i) => `c${String(i + 1).padStart(width, '0')}`);
}

/**
 * The fleet definition module: full mesh, pinned blocks and Service CIDRs per cluster (`serviceCidrs`
 * declared, so MRC3026 checks each block against its CIDR's exact band), credentials provided
 * externally, and Flux delivery (delivery/flux/<cluster>/: the Kustomizations the bench's Flux phase applies).
 */
export function fleetModuleText(names: readonly string[], shape: FleetShape): string {
  const [first, ...additional] = pinnedBlocks(shape);
  const pins = { pinnedServiceIPRange: first, ...(additional.length > 0 ? { additionalPinnedServiceIPRanges: additional } : {}), serviceCidrs: generatedServiceCidrs(shape) };
  const indexUrl = pathToFileURL(join(REPO_ROOT, 'src', 'index.ts')).href;
  return `/** Generated by bench/generate-fleet.ts: ${names.length} clusters in full mesh. */
import { Cluster, GitOpsDelivery, Link, type Fleet } from ${JSON.stringify(indexUrl)};

const NAMES = ${JSON.stringify(names)};

export default function defineFleet(fleet: Fleet): void {
  const clusters = NAMES.map((name) => new Cluster(fleet, name, ${JSON.stringify(pins)}));
  for (const source of clusters) {
    for (const target of clusters) {
      if (source === target) continue;
      new Link(fleet, \`\${source.name}-from-\${target.name}\`, {
        source,
        target,
        excludedLabels: [${JSON.stringify(COST_CENTER_LABEL.split('/')[0] + '/*')}],
        remoteDiscoveryCredentials: { provided: 'external' },
      });
    }
  }
  new GitOpsDelivery(fleet, 'delivery', { repoUrl: 'https://git.invalid/fleet.git', revision: 'main', flux: {} });
}
`;
}

/** What observation records of cluster number `cluster` as a target. */
export function targetSnapshot(shape: FleetShape, cluster: number): TargetSnapshot {
  return {
    selectors: GENERATED_SELECTORS,
    services: generatedServices(shape.seed ?? 1, cluster, shape.services),
    missingExplicitExports: [],
    gateway: { addresses: [gatewayAddress(cluster)], port: 4143, identity: GENERATED_GATEWAY_IDENTITY },
  };
}

/** What observation records of cluster number `cluster` as a source (before any mirror is applied). */
export function sourceSnapshot(shape: FleetShape, cluster: number): SourceSnapshot {
  const members = generatedServices(shape.seed ?? 1, cluster, shape.services).filter((s) => s.labels[FEDERATED_LABEL] === FEDERATED_MEMBER_VALUE);
  return {
    namespaces: sortedUnique([...SYSTEM_NAMESPACES, ...APP_NAMESPACES]),
    foreignServices: [],
    federatedSelector: selectorToQuery(DEFAULT_FEDERATED_SERVICE_SELECTOR),
    federatedMembers: members,
    pinnedRangeServices: [
      { namespace: 'default', name: 'kubernetes', ip: '10.96.0.1', managed: false },
      { namespace: 'kube-system', name: 'kube-dns', ip: '10.96.0.10', managed: false },
    ],
  };
}

/** A documentation address (RFC 5737 / 3849 ranges are not routable) for the gateway of cluster number `cluster`. */
function gatewayAddress(cluster: number): string {
  return `198.51.${100 + Math.floor(cluster / 250)}.${1 + (cluster % 250)}`;
}

/** Writes the fleet module and its lock into `dir` (`clusters/fleet.ts`, `clusters/fleet.lock.json`). */
export function writeGeneratedRepo(dir: string, shape: FleetShape): GeneratedRepo {
  const names = clusterNames(shape.clusters);
  const repo: GeneratedRepo = { dir, fleetFile: join(dir, 'clusters', 'fleet.ts'), lockFile: join(dir, 'clusters', 'fleet.lock.json'), outDir: join(dir, 'dist') };
  mkdirSync(join(dir, 'clusters'), { recursive: true });
  const fd = openSync(repo.fleetFile, 'w');
  writeSync(fd, fleetModuleText(names, shape));
  closeSync(fd);
  writeLockStreaming(repo.lockFile, names, shape);
  return repo;
}

/**
 * The lock's canonical text (format 2, docs/lock-and-state.md), written section by section: keys in
 * sorted order (`compiled` with no units yet, `format`, `observed` with `sources` and `targets`),
 * each cluster rendered by canonicalJson and indented in place.
 */
function writeLockStreaming(path: string, names: readonly string[], shape: FleetShape): void {
  const fd = openSync(path, 'w');
  try {
    const section = (key: string, render: (cluster: number) => unknown, last: boolean): void => {
      writeSync(fd, `    ${JSON.stringify(key)}: {\n`);
      names.forEach((name, i) => {
        const body = canonicalJson(render(i)).trimEnd().replace(/\n/g, '\n      ');
        writeSync(fd, `      ${JSON.stringify(name)}: ${body}${i === names.length - 1 ? '' : ','}\n`);
      });
      writeSync(fd, `    }${last ? '' : ','}\n`);
    };
    writeSync(fd, `{\n  "compiled": {\n    "units": {}\n  },\n  "format": ${LOCK_FORMAT},\n  "observed": {\n`);
    section('sources', (i) => sourceSnapshot(shape, i), false);
    section('targets', (i) => targetSnapshot(shape, i), true);
    writeSync(fd, '  }\n}\n');
  } finally {
    closeSync(fd);
  }
}
