import { Construct } from 'constructs';
import {
  credentialsSecretName,
  EXPORTED_GATEWAY_VALUE,
  EXPORTED_LABEL,
  EXPORTED_REMOTE_DISCOVERY_VALUE,
  FEDERATED_LABEL,
  FEDERATED_MEMBER_VALUE,
} from '../contract/linkerd.js';
import type { Cluster } from './cluster.js';
import type { LinkSpec } from './fleet-spec.js';
import type { LabelSelector } from './label-selector.js';
import { recordOrigin } from './construct-origin.js';
import { LINK_PROPS } from './known-props.js';

const LINK_BRAND = Symbol.for('mirrorc.Link');

/** Linkerd's default gateway-mode export selector: `mirror.linkerd.io/exported=true`. */
export const DEFAULT_EXPORT_SELECTOR: LabelSelector = { matchLabels: { [EXPORTED_LABEL]: EXPORTED_GATEWAY_VALUE } };

/** Linkerd's default flat-mode (remote-discovery) selector: `mirror.linkerd.io/exported=remote-discovery`. */
export const DEFAULT_REMOTE_DISCOVERY_SELECTOR: LabelSelector = { matchLabels: { [EXPORTED_LABEL]: EXPORTED_REMOTE_DISCOVERY_VALUE } };

/** Linkerd's default federated-member selector: `mirror.linkerd.io/federated=member`. */
export const DEFAULT_FEDERATED_SERVICE_SELECTOR: LabelSelector = { matchLabels: { [FEDERATED_LABEL]: FEDERATED_MEMBER_VALUE } };

/**
 * How the source cluster gets the credentials Secret that flat (remote-discovery) mode needs:
 * Linkerd's destination controller in the source reads the target's API with it (contract §4.1).
 * mirrorc never writes that Secret (it would put credentials in git); declaring it here states that
 * something else (External Secrets, Sealed Secrets, SOPS, `linkerd mc link-gen`, a person) provides it,
 * and silences the compile warning that describes it.
 */
export interface RemoteDiscoveryCredentials {
  /**
   * Who writes the Secret into the source's `linkerd` namespace: something outside mirrorc.
   */
  readonly provided: 'external';
  /**
   * The Secret's name (the destination controller ignores it).
   *
   * @default - `cluster-credentials-<target>`
   */
  readonly secretName?: string;
}

/** Which target namespaces a link mirrors. Names may contain `*` wildcards. */
export interface NamespaceFilter {
  /**
   * Mirror only these namespaces.
   *
   * @default - all namespaces
   */
  readonly include?: readonly string[];
  /**
   * Never mirror these namespaces; wins over `include`.
   *
   * @default - none
   */
  readonly exclude?: readonly string[];
}

/** Properties of a {@link Link}. */
export interface LinkProps {
  /**
   * The cluster that gets the mirrors.
   */
  readonly source: Cluster;
  /**
   * The cluster whose exported services are mirrored.
   */
  readonly target: Cluster;
  /**
   * Selects the target services mirrored through the gateway. `null`: none (a flat-only link, e.g.
   * to a target without a gateway).
   *
   * @default - `mirror.linkerd.io/exported=true`
   */
  readonly selector?: LabelSelector | null;
  /**
   * Selects the target services mirrored in flat (remote-discovery, pod-to-pod) mode: a mirror
   * Service without Endpoints that Linkerd resolves through the target's API. Wins over `selector`
   * when a service matches both. `null`: none (the link mirrors nothing in flat mode; with
   * `federatedServiceSelector: null` too, a gateway-only link, which needs no credentials Secret).
   *
   * @default - `mirror.linkerd.io/exported=remote-discovery`
   */
  readonly remoteDiscoverySelector?: LabelSelector | null;
  /**
   * Selects the target services that join the source's federated Service `<svc>-federated` (one
   * per namespace and name, listing every member as `svc@cluster`); see docs/modes/federated.md.
   * `null`: none (the target's services join no federated Service through this link, and need no
   * credentials Secret for it).
   *
   * @default - `mirror.linkerd.io/federated=member`
   */
  readonly federatedServiceSelector?: LabelSelector | null;
  /**
   * How the credentials Secret of flat-mode mirrors and federated members reaches the source. Without it, compile warns (once per
   * link that has flat-mode mirrors) and spells out the Secret the source needs.
   *
   * @default - undeclared
   */
  readonly remoteDiscoveryCredentials?: RemoteDiscoveryCredentials;
  /**
   * Label keys never copied to mirrors; `example.com/*` excludes every key starting with `example.com`.
   *
   * @default - none
   */
  readonly excludedLabels?: readonly string[];
  /**
   * Annotation keys never copied to mirrors; same wildcard rule.
   *
   * @default - none
   */
  readonly excludedAnnotations?: readonly string[];
  /**
   * Copy only these target label keys to mirrors: keys, or `example.com/*` for every key with the prefix
   * `example.com`. Keys the metadata policy never copies stay out whatever the list says (naming one is an error).
   *
   * @default - every key the metadata policy allows
   */
  readonly allowedLabels?: readonly string[];
  /**
   * Copy only these target annotation keys (`config.linkerd.io/opaque-ports` always is); same rules.
   *
   * @default - every key the metadata policy allows
   */
  readonly allowedAnnotations?: readonly string[];
  /**
   * Which target namespaces are mirrored.
   *
   * @default - all
   */
  readonly namespaces?: NamespaceFilter;
  /**
   * Emit a Namespace into the source when a mirrored namespace is missing there, instead of skipping it.
   *
   * @default false
   */
  readonly createMissingNamespaces?: boolean;
  /**
   * Mirror services of the target's system namespaces (`kube-system`, `kube-public`,
   * `kube-node-lease`, `linkerd`, `linkerd-multicluster`, `linkerd-viz` and Linkerd's other
   * extensions, and the clusters' own control-plane and gateway namespaces), and write mirrors into
   * the source's. Without it such a service is skipped with a warning naming it: a target's DNS,
   * control plane or gateway is not another team's export, and a mirror there would sit next to the
   * source's own control plane.
   *
   * @default false
   */
  readonly mirrorSystemNamespaces?: boolean;
  /**
   * Add the pods of every headless (StatefulSet) service this link mirrors per pod to the source's
   * aggregated `<svc>-global` headless Service, so a StatefulSet finds its peers in every linked
   * cluster under one name. A single target service opts in with the label `mirrorc.io/global=true`.
   *
   * @default false
   */
  readonly globalServices?: boolean;
  /**
   * Follow the readiness of each target service, as Linkerd does: a gateway-mode mirror whose target
   * service has no ready endpoint gets empty Endpoints and EndpointSlices (the mirror Service stays),
   * so clients fail fast instead of crossing to a gateway with nowhere to send them. `false` keeps the
   * gateway address whatever the target's readiness.
   *
   * @default true
   */
  readonly followServiceReadiness?: boolean;
  /**
   * Follow the readiness of StatefulSet pods, as Linkerd does: a pod whose endpoint is not ready loses
   * its per-pod mirror and its place in the headless mirror and `<svc>-global`. Every readiness change
   * of a pod then changes `dist/` (and the lock). `false` keeps every pod with a hostname, so pod churn
   * stays out of git.
   *
   * @default false
   */
  readonly followPodReadiness?: boolean;
  /**
   * Mirror the gateway-mode services of a target namespace into another source namespace, e.g.
   * `{ shop: 'shop-paris' }`. `remote-svc-fq-name` and every data-plane field still name the original.
   *
   * @default - each mirror in its service's own namespace
   */
  readonly namespaceMap?: Readonly<Record<string, string>>;
  /**
   * Write Multi-Cluster Services API objects instead of Linkerd mirrors for this link's gateway-mode
   * services: a `ServiceImport` per service (shared by every MCS link of the source) and one
   * EndpointSlice per exporting cluster (see docs/modes/mcs.md).
   *
   * @default false
   */
  readonly mcs?: boolean;
  /**
   * With `mcs`: also export each target Service named by a `ServiceExport` object of the MCS API
   * (same namespace and name), whatever its labels. `true` asks for them explicitly, so a target
   * without the ServiceExport CRD is warned about; `false` reads none (and the target's reader role
   * gets no `list serviceexports`).
   *
   * @default - read them; a target without the CRD has none, silently
   */
  readonly serviceExports?: boolean;
  /**
   * Take over, in place, the mirrors that Linkerd's service-mirror controller already wrote for this
   * link (Services labelled `mirror.linkerd.io/mirrored-service=true` and
   * `mirror.linkerd.io/cluster-name=<target>` in the source): instead of refusing their names as
   * "not written by mirrorc", mirrorc writes the same objects under the same names, so a GitOps apply
   * updates them (same uid, no delete). Per-pod (StatefulSet) mirrors keep the ClusterIPs the source
   * already gave them, read from the source and pinned in the lock; other mirrors keep theirs because
   * mirrorc never writes their `clusterIP`. The link's mirrors are written in Linkerd's form: Endpoints
   * without `endpointslice.kubernetes.io/skip-mirror`, so the EndpointSlice Kubernetes makes of them
   * stays the one slice Linkerd's destination reads, and mirrorc's own slices written retired (tied to
   * no Service). Leave it on after the takeover: the form is kept once taken (a link that stops
   * adopting keeps it, with a warning), since leaving it would empty the mirrors in Linkerd's
   * destination. Linkerd's `<svc>-federated` Services are taken over when a member's link adopts. Stop
   * Linkerd's controller for the link before syncing: the runbook is
   * docs/migrate-from-linkerd-controller.md (and the way back).
   *
   * @default false
   */
  readonly adoptLinkerdMirrors?: boolean;
}

/** `source` mirrors the services that `target` exports (Linkerd's Link, compiled statically). */
export class Link extends Construct {
  /** Whether `x` is a Link (works across copies of this library). */
  public static isLink(x: unknown): x is Link {
    return x !== null && typeof x === 'object' && LINK_BRAND in x;
  }

  /** The cluster the mirrors are written for. */
  public readonly source: Cluster;
  /** The cluster whose exported services are mirrored. */
  public readonly target: Cluster;
  private readonly props: LinkProps;

  constructor(scope: Construct, id: string, props: LinkProps) {
    super(scope, id);
    Object.defineProperty(this, LINK_BRAND, { value: true });
    recordOrigin(this, props, LINK_PROPS);
    this.source = props.source;
    this.target = props.target;
    this.props = props;
  }

  /** The link with defaults applied, as plain data. */
  public toSpec(): LinkSpec {
    return {
      source: this.props.source?.name,
      target: this.props.target?.name,
      path: this.node.path,
      // null (a mode turned off) is kept; only an absent selector takes its default.
      selector: this.props.selector === null ? null : (this.props.selector ?? DEFAULT_EXPORT_SELECTOR),
      remoteDiscoverySelector: this.props.remoteDiscoverySelector === null ? null : (this.props.remoteDiscoverySelector ?? DEFAULT_REMOTE_DISCOVERY_SELECTOR),
      federatedServiceSelector: this.props.federatedServiceSelector === null ? null : (this.props.federatedServiceSelector ?? DEFAULT_FEDERATED_SERVICE_SELECTOR),
      ...(this.props.remoteDiscoveryCredentials !== undefined
        ? {
            remoteDiscoveryCredentials: {
              provided: this.props.remoteDiscoveryCredentials.provided,
              secretName: this.props.remoteDiscoveryCredentials.secretName ?? credentialsSecretName(this.props.target?.name),
            },
          }
        : {}),
      excludedLabels: [...(this.props.excludedLabels ?? [])],
      excludedAnnotations: [...(this.props.excludedAnnotations ?? [])],
      ...(this.props.allowedLabels !== undefined ? { allowedLabels: [...this.props.allowedLabels] } : {}),
      ...(this.props.allowedAnnotations !== undefined ? { allowedAnnotations: [...this.props.allowedAnnotations] } : {}),
      namespaces: {
        include: [...(this.props.namespaces?.include ?? [])],
        exclude: [...(this.props.namespaces?.exclude ?? [])],
      },
      createMissingNamespaces: this.props.createMissingNamespaces ?? false,
      globalServices: this.props.globalServices ?? false,
      // Written only when not the default, so specs (and their tests) of existing fleets stay as they were.
      ...(this.props.followServiceReadiness === false ? { followServiceReadiness: false } : {}),
      ...(this.props.followPodReadiness === true ? { followPodReadiness: true } : {}),
      ...(this.props.namespaceMap !== undefined ? { namespaceMap: { ...this.props.namespaceMap } } : {}),
      ...(this.props.mcs === true ? { mcs: true } : {}),
      ...(this.props.mirrorSystemNamespaces === true ? { mirrorSystemNamespaces: true as const } : {}),
      ...(this.props.serviceExports !== undefined ? { serviceExports: this.props.serviceExports } : {}),
      ...(this.props.adoptLinkerdMirrors === true ? { adoptLinkerdMirrors: true as const } : {}),
    };
  }
}
