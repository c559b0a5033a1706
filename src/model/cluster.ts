import { Construct } from 'constructs';
import { DEFAULT_GATEWAY_NAME, DEFAULT_GATEWAY_NAMESPACE, DEFAULT_GATEWAY_PROBE_PATH, DEFAULT_TRUST_DOMAIN, LINKERD_CONTROL_PLANE_NAMESPACE } from '../contract/linkerd.js';
import type { ClusterSpec, GatewayProbeSpec } from './fleet-spec.js';
import type { LabelSelector } from './label-selector.js';
import { resolveObservationBudget, type ObservationBudgetProps } from './observation-budget.js';
import { DEFAULT_FEDERATED_SERVICE_SELECTOR } from './link.js';
import { recordOrigin } from './construct-origin.js';
import { CLUSTER_PROPS } from './known-props.js';

const CLUSTER_BRAND = Symbol.for('mirrorc.Cluster');

/** How to reach a cluster's API: references to a kubeconfig, never inline credentials. */
export interface ClusterAccess {
  /**
   * Path of the kubeconfig file, relative to the working directory.
   *
   * @default - `$KUBECONFIG`, else `~/.kube/config`
   */
  readonly kubeconfig?: string;
  /**
   * Context in that kubeconfig.
   *
   * @default - the cluster name
   */
  readonly context?: string;
}

/** Which gateway receives the cluster's multicluster traffic: Linkerd's, or any other (see docs/modes/gateway.md, "A gateway that need not be Linkerd's"). */
export type GatewayKind = 'linkerd' | 'generic';

/** Where to find the cluster's multicluster gateway, with optional fixed values. */
export interface GatewayProps {
  /**
   * `linkerd`: Linkerd's gateway (one port, identity verified by the proxies). `generic`: any
   * gateway that reserves one port per service (a TCP gateway, or an ingress routing by SNI or
   * host); each mirror points at the gateway on its service's port, taken from `servicePorts` or
   * the service's `mirrorc.io/gateway-port` annotation, and carries no gateway identity.
   *
   * @default 'linkerd'
   */
  readonly kind?: GatewayKind;
  /**
   * Generic gateways only: the gateway port of each exported service, keyed `namespace/name`.
   *
   * @default - none: each service's `mirrorc.io/gateway-port` annotation
   */
  readonly servicePorts?: Readonly<Record<string, number>>;
  /**
   * Namespace of the gateway Service.
   *
   * @default 'linkerd-multicluster'
   */
  readonly namespace?: string;
  /**
   * Name of the gateway Service.
   *
   * @default 'linkerd-gateway'
   */
  readonly name?: string;
  /**
   * Fixed gateway addresses (IPs or host names), instead of the Service's load-balancer ingress.
   *
   * @default - read from the gateway Service
   */
  readonly addresses?: readonly string[];
  /**
   * Fixed gateway port, instead of the Service's `mc-gateway` port.
   *
   * @default - read from the gateway Service
   */
  readonly port?: number;
  /**
   * Fixed gateway TLS identity, instead of the Service's `mirror.linkerd.io/gateway-identity` annotation.
   *
   * @default - read from the gateway Service
   */
  readonly identity?: string;
  /**
   * Probe the gateway during synth, the way Linkerd's service mirror does (see "Gateway health" in the
   * README). Only useful when the machine running synth reaches the gateway's probe port.
   *
   * @default - no probe: mirrors stay ready whatever the gateway's health
   */
  readonly probe?: GatewayProbeProps;
}

/** How synth probes a target's gateway. */
export interface GatewayProbeProps {
  /**
   * What a failed probe does: `warn` only warns; `not-ready` also writes every gateway-mode mirror of
   * this target with not-ready addresses (Linkerd's behaviour after three failed probes).
   *
   * @default 'warn'
   */
  readonly mode?: 'warn' | 'not-ready';
  /**
   * `host:port` that synth probes instead of each gateway address at the gateway Service's `mc-probe`
   * port: for a machine that reaches the probe endpoint another way (a VPN address, a port-forward).
   * The period still comes from the gateway Service's annotation.
   *
   * @default - each gateway address the fleet allows for probing (see `allowedCidrs`) at the `mc-probe` port
   */
  readonly address?: string;
  /**
   * The HTTP path synth probes. The target's `mirror.linkerd.io/probe-path` annotation is not used:
   * the target would choose what synth requests.
   *
   * @default '/ready' (the probe path of Linkerd's multicluster chart)
   */
  readonly path?: string;
  /**
   * CIDR blocks in which synth may probe a gateway address that is not public (a private, CGNAT,
   * unique local or other special-purpose address): the range your gateways' load balancers use, e.g.
   * `['10.20.0.0/16']`. The target chooses its gateway's address, so a gateway outside every allowed
   * range is not probed (a warning says so). Loopback, link-local and the linking sources' declared
   * ranges are never probed, whatever this says.
   *
   * @default - none: only public addresses, and IPs that `gateway.addresses` names
   */
  readonly allowedCidrs?: readonly string[];
}

/** Properties of a {@link Cluster}. */
export interface ClusterProps {
  /**
   * The cluster name: suffix of mirror names and folder under `dist/`. Must be a DNS label.
   *
   * @default - the construct id
   */
  readonly name?: string;
  /**
   * How observation reaches the cluster's API.
   *
   * @default - context named like the cluster in the default kubeconfig
   */
  readonly access?: ClusterAccess;
  /**
   * The cluster's DNS domain.
   *
   * @default 'cluster.local'
   */
  readonly clusterDomain?: string;
  /**
   * The trust domain of the cluster's Linkerd install (its pod identities). Written into the
   * `multicluster.linkerd.io/trust-domain` annotation of the credentials Secret that flat-mode
   * (remote-discovery) links to this cluster need.
   *
   * @default 'cluster.local'
   */
  readonly trustDomain?: string;
  /**
   * Selects this cluster's own Services that join its federated Services `<svc>-federated` (the
   * `multicluster.linkerd.io/local-discovery` member), when it is a link source. Linkerd's local
   * service mirror uses one selector per cluster, so this is a cluster setting, not a link setting.
   *
   * @default - `mirror.linkerd.io/federated=member`
   */
  readonly localFederatedSelector?: LabelSelector;
  /**
   * The multicluster gateway, when this cluster is a link target.
   *
   * @default - linkerd-multicluster/linkerd-gateway
   */
  readonly gateway?: GatewayProps;
  /**
   * A CIDR block inside this cluster's Service CIDR where mirrorc pins the ClusterIPs of per-pod
   * mirror Services (headless/StatefulSet mirrors need their IPs at compile time). Take it from the
   * lower, static band of the Service CIDR (its lowest min(max(16, size/16), 256) addresses), which
   * the API server hands out last, e.g. `10.96.0.0/24` of `10.96.0.0/16`: a range reaching beyond
   * the band is warned about (MRC3026), exactly when `serviceCidrs` is declared, else when it has more
   * than 256 addresses to pin. Live Services in the block are observed, so collisions are errors.
   *
   * @default - none: headless services are mirrored as ordinary gateway mirrors, with a warning
   */
  readonly pinnedServiceIPRange?: string;
  /**
   * More blocks for pinned ClusterIPs, for a source with more per-pod mirrors than one static band
   * holds (about 254 per IPv4 block): each the bottom of the static band of another Service CIDR of
   * the cluster (a `networking.k8s.io/v1` ServiceCIDR of at least 4,096 addresses, an IPv4 `/20`, has
   * a band of 256; kube-apiserver gives every ServiceCIDR its own band), e.g. `['10.100.0.0/24']`
   * with a ServiceCIDR `10.100.0.0/20`; list those Service CIDRs in `serviceCidrs` too. New pins
   * take the free addresses inside a static band first, in the order the blocks are declared, and
   * only then the rest. Needs `pinnedServiceIPRange`.
   *
   * @default - none
   */
  readonly additionalPinnedServiceIPRanges?: readonly string[];
  /**
   * This cluster's Service CIDRs (its `--service-cluster-ip-range`), e.g. `['10.96.0.0/12']`. When it
   * is a link source, a target gateway address inside them (such as its `kubernetes` Service IP) is
   * rejected; `pinnedServiceIPRange` always counts as part of them, and is checked against the static
   * band of the Service CIDR that holds it (MRC3026).
   *
   * @default - none declared
   */
  readonly serviceCidrs?: readonly string[];
  /**
   * This cluster's pod CIDRs; when it is a link source, a target gateway address inside them is rejected.
   *
   * @default - none declared
   */
  readonly podCidrs?: readonly string[];
  /**
   * Namespace of this cluster's Linkerd control plane, where observation reads the trust roots
   * (ConfigMap `linkerd-identity-trust-roots`) for the shared trust-anchor check of its links.
   *
   * @default 'linkerd'
   */
  readonly controlPlaneNamespace?: string;
  /**
   * A trust root of this cluster that expires within this many days is a warning.
   *
   * @default 30
   */
  readonly trustRootExpiryWarningDays?: number;
  /**
   * How much and how long observing this cluster may take: an overall deadline, API requests,
   * pages, items and bytes per list, and the gateway probe's addresses and time. A cluster over
   * its budget is treated like an unreachable one: its last known state is kept (stale but safe),
   * a warning names the cluster and the budget, and the rest of the fleet proceeds. Raise a field
   * for a cluster that really is that large or slow. See docs/observation-budgets.md.
   *
   * @default - the defaults of {@link ObservationBudgetProps} (120 s, 10,000 requests, 500 items per page, 1,000 pages, 50,000 items and 64 MiB per list, 8 probe addresses, 30 s of probing)
   */
  readonly observationBudget?: ObservationBudgetProps;
}

/** Default of {@link ClusterProps.trustRootExpiryWarningDays}. */
export const DEFAULT_TRUST_ROOT_EXPIRY_WARNING_DAYS = 30;

/** A Kubernetes cluster of the fleet. */
export class Cluster extends Construct {
  /** Whether `x` is a Cluster (works across copies of this library). */
  public static isCluster(x: unknown): x is Cluster {
    return x !== null && typeof x === 'object' && CLUSTER_BRAND in x;
  }

  /** The cluster name. */
  public readonly name: string;
  private readonly props: ClusterProps;

  constructor(scope: Construct, id: string, props: ClusterProps = {}) {
    super(scope, id);
    Object.defineProperty(this, CLUSTER_BRAND, { value: true });
    recordOrigin(this, props, CLUSTER_PROPS);
    this.name = props.name ?? id;
    this.props = props;
  }

  /** The cluster with defaults applied, as plain data. */
  public toSpec(): ClusterSpec {
    const gw = this.props.gateway ?? {};
    return {
      name: this.name,
      path: this.node.path,
      access: {
        ...(this.props.access?.kubeconfig !== undefined ? { kubeconfig: this.props.access.kubeconfig } : {}),
        context: this.props.access?.context ?? this.name,
      },
      clusterDomain: this.props.clusterDomain ?? 'cluster.local',
      trustDomain: this.props.trustDomain ?? DEFAULT_TRUST_DOMAIN,
      localFederatedSelector: this.props.localFederatedSelector ?? DEFAULT_FEDERATED_SERVICE_SELECTOR,
      gateway: {
        ...(gw.kind !== undefined ? { kind: gw.kind } : {}),
        ...(gw.servicePorts !== undefined ? { servicePorts: { ...gw.servicePorts } } : {}),
        namespace: gw.namespace ?? DEFAULT_GATEWAY_NAMESPACE,
        name: gw.name ?? DEFAULT_GATEWAY_NAME,
        ...(gw.addresses !== undefined ? { addresses: [...gw.addresses] } : {}),
        ...(gw.port !== undefined ? { port: gw.port } : {}),
        ...(gw.identity !== undefined ? { identity: gw.identity } : {}),
        ...(gw.probe !== undefined ? { probe: probeSpec(gw.probe) } : {}),
      },
      ...(this.props.pinnedServiceIPRange !== undefined ? { pinnedServiceIPRange: this.props.pinnedServiceIPRange } : {}),
      ...(this.props.additionalPinnedServiceIPRanges !== undefined ? { additionalPinnedServiceIPRanges: [...this.props.additionalPinnedServiceIPRanges] } : {}),
      ...(this.props.serviceCidrs !== undefined ? { serviceCidrs: [...this.props.serviceCidrs] } : {}),
      ...(this.props.podCidrs !== undefined ? { podCidrs: [...this.props.podCidrs] } : {}),
      controlPlaneNamespace: this.props.controlPlaneNamespace ?? LINKERD_CONTROL_PLANE_NAMESPACE,
      trustRootExpiryWarningDays: this.props.trustRootExpiryWarningDays ?? DEFAULT_TRUST_ROOT_EXPIRY_WARNING_DAYS,
      observationBudget: resolveObservationBudget(this.props.observationBudget),
    };
  }
}

function probeSpec(probe: GatewayProbeProps): GatewayProbeSpec {
  return {
    mode: probe.mode ?? 'warn',
    ...(probe.address !== undefined ? { address: probe.address } : {}),
    path: probe.path ?? DEFAULT_GATEWAY_PROBE_PATH,
    ...(probe.allowedCidrs !== undefined ? { allowedCidrs: [...probe.allowedCidrs] } : {}),
  };
}
