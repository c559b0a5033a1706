/**
 * What `mirrorc explain <cluster>/<namespace>/<service>` asks about: a target service, or a mirror in
 * a source (`west/shop/web-east`), which is explained as the target service it mirrors.
 */
import type { FleetPlan } from '../compile/compile-fleet.js';
import type { CompileError } from '../compile/diagnostics.js';
import type { PreviousOwnerLookup } from '../compile/compile-fleet.js';
import type { FileTree } from '../emit/render-files.js';
import type { FleetSpec } from '../model/fleet-spec.js';
import type { FleetSnapshot } from '../snapshot/snapshot.js';
import { didYouMean } from '../util/did-you-mean.js';
import type { ServiceRef } from './explain-service.js';
import { ExplainReason } from './explain-reason.js';
import { linkExportQuery, linkSelectorQueries } from '../model/label-selector.js';

/** The question cannot be answered: not `cluster/namespace/name`, an unknown cluster, or a service neither the lock nor the output knows. */
export class UnknownServiceError extends Error {
  /** @param reason the reason code, when the service is simply not exported (rather than a malformed or mistyped question) */
  constructor(message: string, public readonly reason?: ExplainReason) {
    super(message);
    this.name = 'UnknownServiceError';
  }
}

/** The service to explain, and the mirror name asked about when it was one. */
export interface ResolvedRef {
  readonly service: ServiceRef;
  readonly askedMirror?: string;
  /** When the mirror asked about is a federated Service `<svc>-federated`: its members (`cluster/namespace/name`), the one explained first among the remote ones. */
  readonly federatedMembers?: readonly string[];
}

/** The origin of a federated unit (plan-federated.ts): `namespace/service (members svc@cluster, ...)`. */
const FEDERATED_ORIGIN = /^([^/ ]+)\/([^/ ]+) \(members ([^)]*)\)$/;

const SERVICE_FILE = /^([^/]+)\/(?:[^/]+\/)?([^/]+)\/service-([^/]+)\.yaml$/;

/** What a reference is resolved against: the fleet, the lock and the committed output. */
export interface RefInput {
  readonly spec: FleetSpec;
  /** The lock. */
  readonly snapshot: FleetSnapshot;
  /** The committed output. */
  readonly before: FileTree;
}

/**
 * Resolves `text`. A target service listed in the lock is taken as it is; otherwise a mirror
 * Service of that source (compiled now, or in the committed output, or named `<svc>-<target>` after
 * one of its links) stands for the target service it mirrors. Anything else is an error: the lock
 * lists every service some link's selector matched, so a service it lacks is mistyped or not exported.
 * @throws UnknownServiceError naming the closest known service
 */
export function resolveRef(text: string, input: RefInput, plan: FleetPlan | CompileError, owners: PreviousOwnerLookup): ResolvedRef {
  const { spec, snapshot, before } = input;
  const parts = text.split('/');
  if (parts.length !== 3 || parts.some((p) => p === '')) {
    throw new UnknownServiceError(`"${text}" is not <cluster>/<namespace>/<service> (e.g. east/shop/web, or a mirror in a source: west/shop/web-east)`);
  }
  const [cluster, namespace, name] = parts as [string, string, string];
  const clusters = spec.clusters.map((c) => c.name);
  if (!clusters.includes(cluster)) {
    const suggestion = didYouMean(cluster, clusters);
    throw new UnknownServiceError(`no cluster "${cluster}" in the fleet${suggestion ? `; did you mean "${suggestion}"?` : ''} (clusters: ${clusters.join(', ')})`);
  }
  const key = `${namespace}/${name}`;
  const listed = snapshot.targets[cluster]?.services.some((s) => `${s.namespace}/${s.name}` === key) ?? false;
  if (listed) return { service: { cluster, namespace, name } };
  const federated = federatedMembersOf(cluster, key, spec, plan);
  if (federated) return federated.members.length > 0 ? { service: federated.explained, askedMirror: text, federatedMembers: federated.members } : federatedWithoutMembers(text);
  const origin = mirrorOriginOf(cluster, key, spec, owners, plan);
  if (origin) {
    const [target, ns, svc] = origin.split('/') as [string, string, string];
    return { service: { cluster: target, namespace: ns, name: svc }, askedMirror: text };
  }
  // Not listed, but the lock cannot rule it out: an ExplicitExport names it (the target lacks it), or a
  // link's selector was never observed (the link changed since the last live run). explain says which, link by link.
  const observedTarget = snapshot.targets[cluster];
  const linksTo = spec.links.filter((l) => l.target === cluster);
  if (observedTarget && (observedTarget.missingExplicitExports.includes(key) || linksTo.some((l) => linkSelectorQueries(l).some((q) => !observedTarget.selectors.includes(q))))) {
    return { service: { cluster, namespace, name } };
  }
  // Neither listed nor a mirror: a mistyped name, or a service that no selector matched (a forgotten export label).
  const known = [...(snapshot.targets[cluster]?.services.map((s) => `${s.namespace}/${s.name}`) ?? []), ...mirrorKeys(cluster, before, plan)];
  // (Never the name asked about: it is known, but not as a service explain can answer for.)
  const suggestion = didYouMean(key, known.filter((k) => k !== key));
  const links = spec.links.filter((l) => l.target === cluster);
  const why = links.length === 0
    ? `no link has "${cluster}" as its target, so none of its services is mirrored`
    : snapshot.targets[cluster] === undefined
      ? `"${cluster}" has never been observed successfully, so the lock lists none of its services; run synth with access to it`
      : `if it exists in "${cluster}", it lacks the export label: when "${cluster}" was last observed, none of the selectors of its links matched it ` +
        `(${links.map((l) => `${l.path}: ${linkSelectorQueries(l).map((q) => `"${q}"`).join(', ')}`).join('; ')}); ` +
        `add the label ${linkExportQuery(links[0]!)} to it (or an ExplicitExport), then run synth`;
  const reason = links.length === 0 ? ExplainReason.NO_LINK : snapshot.targets[cluster] === undefined ? ExplainReason.TARGET_NOT_OBSERVED : ExplainReason.NOT_EXPORTED;
  throw new UnknownServiceError(`no service ${cluster}/${key} in the lock or the output${suggestion ? `; did you mean ${cluster}/${suggestion}?` : ''}\n  ${why}`, reason);
}

/**
 * The federated Service `namespace/name` of source `cluster` (a `<svc>-federated` the plan puts
 * there), as its members in precedence order, each `cluster/namespace/name` (a remote member's
 * namespace mapped back through its link's namespaceMap), and the first remote member to explain.
 */
function federatedMembersOf(cluster: string, key: string, spec: FleetSpec, plan: FleetPlan | CompileError): { members: string[]; explained: ServiceRef } | undefined {
  const [namespace, name] = key.split('/') as [string, string];
  const units = 'plans' in plan ? (plan.plans.find((p) => p.source === cluster)?.units ?? []) : [];
  const unit = units.find((u) => u.mode === 'federated' && u.namespace === namespace && u.serviceNames.includes(name));
  const m = unit ? FEDERATED_ORIGIN.exec(unit.origin) : null;
  if (!m) return undefined;
  const members = m[3]!.split(', ').filter((id) => id.includes('@')).map((id): ServiceRef => {
    const at = id.lastIndexOf('@');
    const member = { name: id.slice(0, at), cluster: id.slice(at + 1) };
    const link = spec.links.find((l) => l.source === cluster && l.target === member.cluster);
    const fromNamespace = Object.entries(link?.namespaceMap ?? {}).find(([, to]) => to === namespace)?.[0] ?? namespace;
    return { cluster: member.cluster, namespace: member.cluster === cluster ? namespace : fromNamespace, name: member.name };
  });
  const explained = members.find((s) => s.cluster !== cluster) ?? members[0];
  return { members: members.map((s) => `${s.cluster}/${s.namespace}/${s.name}`), explained: explained ?? { cluster, namespace, name } };
}

/** A federated Service with no member left to explain (cannot happen for a compiled one; guarded all the same). */
function federatedWithoutMembers(text: string): never {
  throw new UnknownServiceError(`${text} is a federated Service with no member; explain one of its members (<cluster>/<namespace>/<service>)`);
}

/** The origin of the mirror `namespace/name` of source `cluster`: compiled now, recorded in the lock, or by its name suffix. */
function mirrorOriginOf(cluster: string, key: string, spec: FleetSpec, owners: PreviousOwnerLookup, plan: FleetPlan | CompileError): string | undefined {
  if (!spec.links.some((l) => l.source === cluster)) return undefined;
  const [namespace, name] = key.split('/') as [string, string];
  const units = 'plans' in plan ? (plan.plans.find((p) => p.source === cluster)?.units ?? []) : [];
  const unit = units.find((u) => u.namespace === namespace && u.serviceNames.includes(name) && /^[^/ ]+\/[^/ ]+\/[^/ ]+$/.test(u.origin));
  if (unit) return unit.origin;
  const committed = owners(cluster, key);
  if (committed) return committed;
  for (const link of spec.links.filter((l) => l.source === cluster)) {
    if (name.endsWith(`-${link.target}`) && name.length > link.target.length + 1) {
      const fromNamespace = Object.entries(link.namespaceMap ?? {}).find(([, to]) => to === namespace)?.[0] ?? namespace;
      return `${link.target}/${fromNamespace}/${name.slice(0, -link.target.length - 1)}`;
    }
  }
  return undefined;
}

/**
 * `namespace/name` of the mirror Services of source `cluster`: every Service the plan puts there (a
 * headless mirror's per-pod Services too: they share the mirror's file, so no file is named after
 * them), and those named by the files of its committed folder (a plan that failed lists none).
 */
function mirrorKeys(cluster: string, before: FileTree, plan: FleetPlan | CompileError): string[] {
  const out = new Set<string>();
  const units = 'plans' in plan ? (plan.plans.find((p) => p.source === cluster)?.units ?? []) : [];
  for (const u of units) for (const n of u.serviceNames) out.add(`${u.namespace}/${n}`);
  for (const path of before.keys()) {
    const m = SERVICE_FILE.exec(path);
    if (m && m[1] === cluster) out.add(`${m[2]}/${m[3]}`);
  }
  return [...out];
}
