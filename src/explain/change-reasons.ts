/**
 * Why each mirror a run removes is removed, and why each mirror's endpoints change: the reason
 * `plan` prints next to the file, and the causes the removal guard names. A removal is explained
 * as `mirrorc explain` explains a service that is not mirrored (the same code), compared with the
 * previous observation where that says more (an export label that is gone); an endpoints change
 * by the facts that feed endpoints (the target's readiness, its gateway's address and probe).
 */
import YAML from 'yaml';
import type { FleetPlan } from '../compile/compile-fleet.js';
import type { CompileError } from '../compile/diagnostics.js';
import type { ClusterChanges } from '../emit/diff-trees.js';
import { HEADLESS_MIRROR_SVC_NAME_LABEL, REMOTE_CLUSTER_NAME_LABEL, REMOTE_SVC_FQ_NAME_ANNOTATION } from '../contract/linkerd.js';
import { MIRROR_FILE, mirrorOrigin } from '../state/unit-inventory.js';
import type { FileTree } from '../emit/render-files.js';
import { DOCUMENT_START } from '../emit/output-names.js';
import type { FleetSpec } from '../model/fleet-spec.js';
import { linkExportQuery, linkSelectorQueries, selectorMatches } from '../model/label-selector.js';
import type { FleetSnapshot, ObservedGateway } from '../snapshot/snapshot.js';
import { compareStrings } from '../util/order.js';
import type { UnitRecords } from '../state/lock-document.js';
import { ExplainReason } from './explain-reason.js';
import { explainPlan, explainService, trustFailures, type ReasonLine } from './explain-service.js';

/** Inputs of {@link changeReasons}. */
export interface ChangeReasonInput {
  readonly spec: FleetSpec;
  /** The lock before this run's observation. */
  readonly previous: FleetSnapshot;
  /** What the run compiled from. */
  readonly snapshot: FleetSnapshot;
  /** The committed output. */
  readonly before: FileTree;
  /** The output the run would write. */
  readonly after: FileTree;
  /** The lock's unit records the run compiled from (name owners, as synth settles clashes). */
  readonly records: UnitRecords;
}

/** The reasons of one run's changes. */
export interface ChangeReasons {
  /** `<cluster>/<file>` → why that removed or changed file is removed or changed. */
  readonly byFile: ReadonlyMap<string, ReasonLine>;
  /**
   * Why the mirrors of `target` (or of every target) in `source` are removed: one line per
   * distinct reason, with how many mirrors it removes and an example, most frequent first.
   */
  removalCauses(source: string, target?: string): string[];
}

/** A mirror's file, from its name (src/state/unit-inventory.ts MIRROR_FILE). */
export interface MirrorFile {
  readonly source: string;
  readonly namespace: string;
  /** The name of the mirror's Service. */
  readonly name: string;
}

/** The mirror whose file (its Service, Endpoints and EndpointSlices) is `<cluster>/…/<namespace>/<file>`, or undefined when it is none. */
export function mirrorFile(key: string): MirrorFile | undefined {
  const parts = key.split('/');
  if (parts.length < 3) return undefined;
  const m = MIRROR_FILE.exec(parts[parts.length - 1]!);
  if (!m) return undefined;
  return { source: parts[0]!, namespace: parts[parts.length - 2]!, name: m[1]! };
}

function originIn(tree: FileTree, key: string): string | undefined {
  const text = tree.get(key);
  if (text === undefined) return undefined;
  // The writer's fixed layout first (no parse: a gateway move changes every mirror's endpoints), the YAML parser otherwise.
  const target = new RegExp(`\\n {4}${escape(REMOTE_CLUSTER_NAME_LABEL)}: "?([a-z0-9-]+)"?\\n`).exec(text)?.[1];
  const fqName = new RegExp(`\\n {4}${escape(REMOTE_SVC_FQ_NAME_ANNOTATION)}: "?([a-z0-9.-]+)"?\\n`).exec(text)?.[1];
  const [service, namespace] = fqName?.split('.svc.')[0]?.split('.').slice(-2) ?? [];
  if (target && service && namespace) return `${target}/${namespace}/${service}`;
  try {
    // The mirror's Service is its file's first document.
    return mirrorOrigin(YAML.parseAllDocuments(text, { uniqueKeys: false })[0]?.toJS());
  } catch {
    return undefined;
  }
}

/**
 * Whether a mirror file's objects after its Service (its Endpoints and EndpointSlices) differ: a
 * change of the Service alone has no endpoints reason, nor has a file of the layout before a
 * mirror's objects shared one (its Service alone), whose Endpoints were files of their own.
 */
export function endpointsChanged(before: string | undefined, after: string | undefined): boolean {
  const tail = (text: string | undefined): string | undefined => {
    const at = text?.indexOf(DOCUMENT_START) ?? -1;
    return at < 0 ? undefined : text!.slice(at);
  };
  const [was, now] = [tail(before), tail(after)];
  return was !== undefined && now !== undefined && was !== now;
}

/** The label line of a per-pod mirror Service naming its headless mirror. */
const PER_POD_ROOT_LINE = new RegExp(`\\n {4}${escape(HEADLESS_MIRROR_SVC_NAME_LABEL)}: "?([a-z0-9.-]+)"?\\n`);

/** The headless mirror a per-pod mirror Service's text names (its label), or undefined. */
function perPodRoot(text: string): string | undefined {
  return PER_POD_ROOT_LINE.exec(text)?.[1];
}

/** The reasons of `changes` (the removed and changed files of `before` → `after`). */
export function changeReasons(input: ChangeReasonInput, changes: readonly ClusterChanges[]): ChangeReasons {
  const byFile = new Map<string, ReasonLine>();
  /** source → target → reason text → origins */
  const causes = new Map<string, Map<string, Map<string, string[]>>>();
  let plan: FleetPlan | CompileError | undefined;
  const planned = (): FleetPlan | CompileError => (plan ??= explainPlan(input.spec, input.snapshot, input.records));
  let trust: ReadonlySet<string> | undefined;
  const failedTrust = (): ReadonlySet<string> => (trust ??= trustFailures(input.spec, input.snapshot));
  const removalReason = new Map<string, Removal>();

  for (const c of changes) {
    const movedTo = movedFiles(input, c);
    for (const rel of c.removed) {
      const key = `${c.cluster}/${rel}`;
      const file = mirrorFile(key);
      const origin = file ? originIn(input.before, key) : undefined;
      if (!file || !origin) continue;
      // The same mirror (same origin, same file name and namespace) added in another unit folder: moved, not removed.
      const to = movedTo.get(rel);
      if (to !== undefined) {
        byFile.set(key, { reason: ExplainReason.MOVED, message: `moved to ${to}: the same mirror, in another unit folder (its delivery unit changed)` });
        continue;
      }
      // A per-pod Service's own file, from before its headless mirror's file held it: removed while the mirror stays.
      const root = perPodRoot(input.before.get(key)!);
      if (root !== undefined && input.after.has(`${key.slice(0, key.lastIndexOf('/'))}/service-${root}.yaml`)) continue;
      let reason = removalReason.get(`${file.source} ${origin}`);
      if (!reason) {
        reason = whyRemoved(input, file.source, origin, planned, failedTrust);
        removalReason.set(`${file.source} ${origin}`, reason);
      }
      byFile.set(key, { reason: reason.reason, message: reason.message });
      const target = origin.split('/')[0]!;
      let bySource = causes.get(file.source);
      if (!bySource) causes.set(file.source, (bySource = new Map()));
      let byTarget = bySource.get(target);
      if (!byTarget) bySource.set(target, (byTarget = new Map()));
      const text = `${reason.cause} [${reason.reason}]`;
      byTarget.set(text, [...(byTarget.get(text) ?? []), origin]);
    }
    for (const rel of c.changed) {
      const key = `${c.cluster}/${rel}`;
      if (!mirrorFile(key) || !endpointsChanged(input.before.get(key), input.after.get(key))) continue;
      const origin = originIn(input.after, key) ?? originIn(input.before, key);
      const reason = origin ? whyEndpointsChanged(input, origin) : undefined;
      if (reason) byFile.set(key, reason);
    }
  }

  return {
    byFile,
    removalCauses(source, target) {
      const bySource = causes.get(source);
      if (!bySource) return [];
      const merged = new Map<string, string[]>();
      for (const [t, reasons] of bySource) {
        if (target !== undefined && t !== target) continue;
        for (const [text, origins] of reasons) merged.set(text, [...(merged.get(text) ?? []), ...origins]);
      }
      return [...merged]
        .sort(([ta, a], [tb, b]) => b.length - a.length || compareStrings(ta, tb))
        .map(([text, origins]) => {
          const sorted = [...origins].sort(compareStrings);
          const named = sorted.length <= 3 ? sorted.join(', ') : `${sorted.slice(0, 3).join(', ')}, …`;
          return `${origins.length} mirror${origins.length === 1 ? '' : 's'} (${named}): ${text}`;
        });
    },
  };
}

/**
 * The removed mirror files of one source that reappear as added files in another unit folder,
 * removed path → added path: the same `<namespace>/service-<mirror>.yaml` under another unit
 * (`from-east/…` → `from-east.1/…`), mirroring the same origin.
 */
function movedFiles(input: ChangeReasonInput, c: ClusterChanges): Map<string, string> {
  const moved = new Map<string, string>();
  if (c.added.length === 0 || c.removed.length === 0) return moved;
  const tail = (rel: string): string => rel.split('/').slice(-2).join('/');
  const added = new Map<string, string[]>();
  for (const rel of c.added) added.set(tail(rel), [...(added.get(tail(rel)) ?? []), rel]);
  for (const rel of c.removed) {
    const candidates = added.get(tail(rel));
    if (!candidates || !mirrorFile(`${c.cluster}/${rel}`)) continue;
    const origin = originIn(input.before, `${c.cluster}/${rel}`);
    const to = origin === undefined ? undefined : candidates.find((a) => originIn(input.after, `${c.cluster}/${a}`) === origin);
    if (to !== undefined) moved.set(rel, to);
  }
  return moved;
}

/** Why one mirror is removed: the line for its file, and the cause it shares with the other mirrors removed alike (for the removal guard). */
interface Removal extends ReasonLine {
  readonly cause: string;
}

/** Why the mirror of `origin` in `source` is gone from the new output. */
function whyRemoved(input: ChangeReasonInput, source: string, origin: string, planned: () => FleetPlan | CompileError, failedTrust: () => ReadonlySet<string>): Removal {
  const [target, namespace, name] = origin.split('/') as [string, string, string];
  const link = input.spec.links.find((l) => l.source === source && l.target === target);
  if (!link) {
    const known = input.spec.clusters.some((c) => c.name === target);
    const message = known ? `link removed: no link from "${target}" into "${source}" any more` : `cluster "${target}" is no longer in the fleet`;
    return { reason: ExplainReason.NO_LINK, message, cause: message };
  }
  const listed = input.snapshot.targets[target]?.services.some((s) => s.namespace === namespace && s.name === name) ?? false;
  if (!listed) {
    const before = input.previous.targets[target]?.services.find((s) => s.namespace === namespace && s.name === name);
    const observed = input.snapshot.targets[target];
    const queries = linkSelectorQueries(link);
    if (before || (observed && queries.every((q) => observed.selectors.includes(q)))) {
      const had = before && selectorMatches(link.selector, before.labels) ? `; it had ${linkExportQuery(link)}` : '';
      return {
        reason: ExplainReason.NOT_EXPORTED,
        message: `export label gone: "${target}" no longer lists ${namespace}/${name} among the services link ${link.path} selects (${queries.join(', ')})${had}; the label was removed, or the service deleted`,
        cause: `export label gone: "${target}" no longer lists them among the services link ${link.path} selects (${queries.join(', ')}); their labels were removed, or the services deleted`,
      };
    }
  }
  const explanation = explainService({ spec: input.spec, snapshot: input.snapshot, before: input.before, after: input.after }, { cluster: target, namespace, name }, planned(), failedTrust());
  const why = explanation.links.find((l) => l.source === source);
  if (why && !why.mirrored && why.reasons[0]) {
    const first = why.reasons[0];
    if (first.reason === ExplainReason.SELECTOR_NOT_MATCHED) {
      const failing = why.selectors.find((s) => s.field === 'selector')?.failing ?? [];
      return { ...first, message: `selector no longer matches: ${first.message}`, cause: `link ${link.path}'s selector "${linkExportQuery(link)}" no longer matches them (${failing.join('; ')})` };
    }
    return { ...first, cause: first.reason === ExplainReason.SELECTOR_NOT_OBSERVED ? first.message : `${first.reason} (mirrorc explain ${origin})` };
  }
  const message = `no longer compiled into "${source}" (mirrorc explain ${origin} says more)`;
  return { reason: ExplainReason.SKIPPED, message, cause: `no longer compiled (mirrorc explain <service> says why)` };
}

function gatewayText(g: ObservedGateway | undefined): string {
  return g ? `${g.addresses.join(',')}:${g.port}` : 'none';
}

/** Why the endpoints of the mirror of `origin` change, or undefined when the inputs do not say. */
function whyEndpointsChanged(input: ChangeReasonInput, origin: string): ReasonLine | undefined {
  const [target, namespace, name] = origin.split('/') as [string, string, string];
  const find = (s: FleetSnapshot) => s.targets[target]?.services.find((x) => x.namespace === namespace && x.name === name);
  const now = find(input.snapshot);
  const was = find(input.previous);
  if (now && now.hasReadyEndpoints === false) {
    return { reason: ExplainReason.NOT_READY, message: `endpoints removed: ${origin} has no ready endpoint` };
  }
  if (now && now.hasReadyEndpoints !== false && was?.hasReadyEndpoints === false) {
    return { reason: ExplainReason.MIRRORED, message: `endpoints restored: ${origin} has a ready endpoint again` };
  }
  const [probeNow, probeWas] = [input.snapshot, input.previous].map((s) => s.targets[target]?.gatewayProbe?.alive === false);
  if (probeNow !== probeWas) {
    return { reason: ExplainReason.GATEWAY_PROBE_FAILED, message: probeNow ? `endpoints not ready: the gateway of "${target}" failed its probe` : `endpoints ready again: the gateway of "${target}" answers its probe` };
  }
  if (JSON.stringify(now?.notReadyHostnames ?? []) !== JSON.stringify(was?.notReadyHostnames ?? [])) {
    return { reason: ExplainReason.PODS_NOT_READY, message: `pods not ready now: ${(now?.notReadyHostnames ?? []).join(', ') || 'none'} (were: ${(was?.notReadyHostnames ?? []).join(', ') || 'none'})` };
  }
  const [gwNow, gwWas] = [input.snapshot, input.previous].map((s) => gatewayText(s.targets[target]?.gateway));
  if (gwNow !== gwWas) return { reason: ExplainReason.MIRRORED, message: `the gateway of "${target}" moved: ${gwWas} → ${gwNow}` };
  return undefined;
}

function escape(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
