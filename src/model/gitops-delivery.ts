import { redact } from '../util/redact.js';
import { compareStrings } from '../util/order.js';
import { Construct } from 'constructs';
import { DEFAULT_ARGOCD_NAMESPACE } from '../contract/argocd.js';
import { DEFAULT_FLUX_NAMESPACE, DEFAULT_FLUX_SOURCE_NAME } from '../contract/flux.js';
import { appendAll } from '../util/append-all.js';
import { recordOrigin } from './construct-origin.js';
import { GITOPS_DELIVERY_PROPS } from './known-props.js';

const DELIVERY_BRAND = Symbol.for('mirrorc.GitOpsDelivery');

/** Argo CD delivery: an AppProject and an ApplicationSet with one Application per `dist/<cluster>/`. */
export interface ArgoCdDeliveryProps {
  /**
   * Namespace of the Argo CD install (where the ApplicationSet and AppProject go).
   *
   * @default 'argocd'
   */
  readonly namespace?: string;
  /**
   * Name of the AppProject that mirrorc writes and its Applications belong to.
   *
   * @default 'mirrorc'
   */
  readonly project?: string;
  /**
   * Confirms that `argocd-cm` no longer hides Endpoints and EndpointSlices (Argo CD ≥ 3.0 does by
   * default; see docs/argocd.md). Without it, synth warns on every run.
   *
   * @default false
   */
  readonly configMapChangeApplied?: boolean;
  /**
   * The name each fleet cluster is registered under in Argo CD (`argocd cluster list`), when it
   * differs from the fleet's name, e.g. `{ london: 'prod-eu-west-1' }`. The Applications and the
   * AppProject's destinations use it; a cluster not listed keeps its fleet name.
   *
   * @default - every cluster under its fleet name
   */
  readonly clusterNames?: Readonly<Record<string, string>>;
}

/** Flux delivery: one Kustomization per cluster, applied in that cluster's own Flux. */
export interface FluxDeliveryProps {
  /**
   * Namespace of the Flux install.
   *
   * @default 'flux-system'
   */
  readonly namespace?: string;
  /**
   * Name of the GitRepository (in that namespace) that holds this repository.
   *
   * @default - 'flux-system' (made by `flux bootstrap`)
   */
  readonly sourceName?: string;
  /**
   * How often Flux reconciles the cluster folder (a Go duration).
   *
   * @default '5m'
   */
  readonly interval?: string;
}

/** Properties of a {@link GitOpsDelivery}. */
export interface GitOpsDeliveryProps {
  /**
   * URL of the git repository that holds the committed output, as Argo CD knows it.
   */
  readonly repoUrl: string;
  /**
   * Branch, tag or commit to sync.
   *
   * @default 'HEAD'
   */
  readonly revision?: string;
  /**
   * Folder of the compiler output inside the repository.
   *
   * @default 'dist'
   */
  readonly path?: string;
  /**
   * Write Argo CD manifests.
   *
   * @default - none
   */
  readonly argoCd?: ArgoCdDeliveryProps;
  /**
   * Write Flux manifests.
   *
   * @default - none
   */
  readonly flux?: FluxDeliveryProps;
}

/** Argo CD delivery with defaults applied. */
export interface ArgoCdDeliverySpec {
  readonly namespace: string;
  readonly project: string;
  readonly configMapChangeApplied: boolean;
  /** Fleet cluster → Argo CD cluster name, only where they differ (sorted by fleet name). */
  readonly clusterNames: Readonly<Record<string, string>>;
}

/** Flux delivery with defaults applied. */
export interface FluxDeliverySpec {
  readonly namespace: string;
  readonly sourceName: string;
  readonly interval: string;
}

/** A {@link GitOpsDelivery} as plain data. */
export interface DeliverySpec {
  /** Construct path, for messages. */
  readonly path: string;
  readonly repoUrl: string;
  readonly revision: string;
  /** Folder of `dist/` inside the repository, without leading or trailing '/'. */
  readonly outputPath: string;
  readonly argoCd?: ArgoCdDeliverySpec;
  readonly flux?: FluxDeliverySpec;
}

const DNS_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
const GO_DURATION = /^([0-9]+(\.[0-9]+)?(ns|us|µs|ms|s|m|h))+$/;

/**
 * Asks synth to write GitOps delivery manifests for the fleet into `delivery/` (beside `dist/`,
 * never inside it): an Argo CD AppProject and ApplicationSet, the `argocd-cm` change Argo CD ≥ 3.0
 * needs, and per-cluster Flux Kustomizations. At most one per fleet.
 */
export class GitOpsDelivery extends Construct {
  /** Whether `x` is a GitOpsDelivery (works across copies of this library). */
  public static isGitOpsDelivery(x: unknown): x is GitOpsDelivery {
    return x !== null && typeof x === 'object' && DELIVERY_BRAND in x;
  }

  private readonly props: GitOpsDeliveryProps;

  constructor(scope: Construct, id: string, props: GitOpsDeliveryProps) {
    super(scope, id);
    Object.defineProperty(this, DELIVERY_BRAND, { value: true });
    recordOrigin(this, props, GITOPS_DELIVERY_PROPS);
    this.props = props;
  }

  /** `argoCd.clusterNames` as given (for validation). */
  public get argoCdClusterNames(): unknown {
    return this.props.argoCd?.clusterNames;
  }

  /** The delivery with defaults applied, as plain data. */
  public toSpec(): DeliverySpec {
    const { argoCd, flux } = this.props;
    return {
      path: this.node.path,
      repoUrl: this.props.repoUrl,
      revision: this.props.revision ?? 'HEAD',
      outputPath: (this.props.path ?? 'dist').replace(/^\.\//, '').replace(/\/+$/, ''),
      ...(argoCd ? {
        argoCd: {
          namespace: argoCd.namespace ?? DEFAULT_ARGOCD_NAMESPACE,
          project: argoCd.project ?? 'mirrorc',
          configMapChangeApplied: argoCd.configMapChangeApplied ?? false,
          clusterNames: Object.fromEntries(Object.entries(argoCd.clusterNames ?? {})
            .filter(([fleetName, argoName]) => fleetName !== argoName)
            .sort(([a], [b]) => compareStrings(a, b))),
        },
      } : {}),
      ...(flux ? {
        flux: {
          namespace: flux.namespace ?? DEFAULT_FLUX_NAMESPACE,
          sourceName: flux.sourceName ?? DEFAULT_FLUX_SOURCE_NAME,
          interval: flux.interval ?? '5m',
        },
      } : {}),
    };
  }
}

/** Whether `url` carries a secret: a password, an http(s) user (often a token), or a token-like query parameter. `ssh://git@host` does not. */
function repoUrlHasCredentials(url: string): boolean {
  const withoutSshUser = url.replace(/^ssh:\/\/[^/?#@:]+@/i, 'ssh://');
  return redact(withoutSshUser) !== withoutSshUser;
}

/** The Argo CD cluster name of fleet cluster `cluster` (its fleet name unless mapped). */
export function argoCdClusterName(argoCd: ArgoCdDeliverySpec, cluster: string): string {
  return argoCd.clusterNames[cluster] ?? cluster;
}

/** Problems of an `argoCd.clusterNames` mapping: unknown fleet clusters, unusable or shared Argo CD names. */
function clusterNameProblems(where: string, clusterNames: unknown, fleetClusters: readonly string[]): string[] {
  if (clusterNames === undefined) return [];
  if (clusterNames === null || typeof clusterNames !== 'object' || Array.isArray(clusterNames)) {
    return [`${where}: argoCd.clusterNames must map fleet cluster names to Argo CD cluster names, e.g. { london: 'prod-eu-west-1' }`];
  }
  const given = clusterNames as Record<string, unknown>;
  const problems: string[] = [];
  for (const [fleetName, argoName] of Object.entries(given)) {
    if (!fleetClusters.includes(fleetName)) {
      problems.push(`${where}: argoCd.clusterNames names "${fleetName}", which is not a cluster of this fleet (${fleetClusters.join(', ') || 'none'})`);
    }
    // The names go through Argo CD's ApplicationSet templating: no template delimiters, no control characters.
    if (typeof argoName !== 'string' || argoName.trim() !== argoName || argoName === '' || argoName.length > 253 ||
      /[\u0000-\u001f\u007f]/.test(argoName) || argoName.includes('{{') || argoName.includes('}}')) {
      problems.push(`${where}: argoCd.clusterNames.${fleetName} ${JSON.stringify(argoName)} is not an Argo CD cluster name; give the NAME column of \`argocd cluster list\``);
    }
  }
  const byArgoName = new Map<string, string[]>();
  for (const fleetName of fleetClusters) {
    const argoName = Object.prototype.hasOwnProperty.call(given, fleetName) ? given[fleetName] : fleetName;
    if (typeof argoName === 'string') byArgoName.set(argoName, [...(byArgoName.get(argoName) ?? []), fleetName]);
  }
  for (const [argoName, fleetNames] of byArgoName) {
    if (fleetNames.length > 1) problems.push(`${where}: argoCd.clusterNames sends ${[...fleetNames].sort(compareStrings).join(' and ')} to the same Argo CD cluster "${argoName}"; each fleet cluster needs its own`);
  }
  return problems;
}

/** Every problem of the fleet's delivery constructs, in plain words; empty when they are valid. */
export function deliveryProblems(deliveries: readonly GitOpsDelivery[], fleetClusters: readonly string[] = []): string[] {
  const problems: string[] = [];
  if (deliveries.length > 1) {
    problems.push(`delivery ${deliveries[1]!.node.path}: the fleet already has a GitOpsDelivery (${deliveries[0]!.node.path}); keep one`);
  }
  for (const delivery of deliveries) {
    const spec = delivery.toSpec();
    const where = `delivery ${spec.path}`;
    if (typeof spec.repoUrl !== 'string' || spec.repoUrl.trim() === '' || /\s/.test(spec.repoUrl)) {
      problems.push(`${where}: repoUrl ${JSON.stringify(spec.repoUrl)} is not a repository URL; give the URL Argo CD or Flux clones, e.g. https://github.com/acme/fleet.git`);
    }
    else if (repoUrlHasCredentials(spec.repoUrl)) {
      problems.push(`${where}: repoUrl ${redact(spec.repoUrl)} carries credentials, which would be written into delivery/ and committed; give the plain URL and let Argo CD or Flux take credentials from their repository Secret`);
    }
    if (typeof spec.revision !== 'string' || spec.revision.trim() === '') problems.push(`${where}: revision is empty; leave it out for HEAD`);
    if (spec.outputPath === '' || spec.outputPath.startsWith('/') || spec.outputPath.split('/').includes('..') || /[*?[\]{}]/.test(spec.outputPath)) {
      problems.push(`${where}: path "${spec.outputPath}" must be a plain folder inside the repository, like "dist"`);
    }
    if (!spec.argoCd && !spec.flux) problems.push(`${where}: neither argoCd nor flux is set, so there is nothing to deliver; set one or both`);
    if (spec.argoCd) {
      if (!DNS_LABEL.test(spec.argoCd.namespace)) problems.push(`${where}: argoCd.namespace "${spec.argoCd.namespace}" is not a namespace name`);
      if (!DNS_LABEL.test(spec.argoCd.project)) problems.push(`${where}: argoCd.project "${spec.argoCd.project}" is not a DNS label`);
      appendAll(problems, clusterNameProblems(where, delivery.argoCdClusterNames, fleetClusters));
    }
    if (spec.flux) {
      if (!DNS_LABEL.test(spec.flux.namespace)) problems.push(`${where}: flux.namespace "${spec.flux.namespace}" is not a namespace name`);
      if (!DNS_LABEL.test(spec.flux.sourceName)) problems.push(`${where}: flux.sourceName "${spec.flux.sourceName}" is not a GitRepository name`);
      if (!GO_DURATION.test(spec.flux.interval)) problems.push(`${where}: flux.interval "${spec.flux.interval}" is not a duration like "5m" or "1h30m"`);
    }
  }
  return problems;
}
