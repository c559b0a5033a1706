import { Construct } from 'constructs';
import { EXPORTED_GATEWAY_VALUE, EXPORTED_LABEL } from '../contract/linkerd.js';
import type { Cluster } from './cluster.js';
import type { LinkSpec } from './fleet-spec.js';
import type { LabelSelector } from './label-selector.js';

const LINK_BRAND = Symbol.for('mirrorc.Link');

/** Linkerd's default gateway-mode export selector: `mirror.linkerd.io/exported=true`. */
export const DEFAULT_EXPORT_SELECTOR: LabelSelector = { matchLabels: { [EXPORTED_LABEL]: EXPORTED_GATEWAY_VALUE } };

/** Which target namespaces a link mirrors. Names may contain `*` wildcards. */
export interface NamespaceFilter {
  /** Mirror only these namespaces. @default all namespaces */
  readonly include?: readonly string[];
  /** Never mirror these namespaces; wins over `include`. @default none */
  readonly exclude?: readonly string[];
}

/** Properties of a {@link Link}. */
export interface LinkProps {
  /** The cluster that gets the mirrors. */
  readonly source: Cluster;
  /** The cluster whose exported services are mirrored. */
  readonly target: Cluster;
  /** Selects the target services mirrored through the gateway. @default `mirror.linkerd.io/exported=true` */
  readonly selector?: LabelSelector;
  /** Label keys never copied to mirrors; `example.com/*` excludes every key starting with `example.com`. @default none */
  readonly excludedLabels?: readonly string[];
  /** Annotation keys never copied to mirrors; same wildcard rule. @default none */
  readonly excludedAnnotations?: readonly string[];
  /** Which target namespaces are mirrored. @default all */
  readonly namespaces?: NamespaceFilter;
  /** Emit a Namespace into the source when a mirrored namespace is missing there, instead of skipping it. @default false */
  readonly createMissingNamespaces?: boolean;
}

/** `source` mirrors the services that `target` exports (Linkerd's Link, compiled statically). */
export class Link extends Construct {
  /** Whether `x` is a Link (works across copies of this library). */
  public static isLink(x: unknown): x is Link {
    return x !== null && typeof x === 'object' && LINK_BRAND in x;
  }

  public readonly source: Cluster;
  public readonly target: Cluster;
  private readonly props: LinkProps;

  constructor(scope: Construct, id: string, props: LinkProps) {
    super(scope, id);
    Object.defineProperty(this, LINK_BRAND, { value: true });
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
      selector: this.props.selector ?? DEFAULT_EXPORT_SELECTOR,
      excludedLabels: [...(this.props.excludedLabels ?? [])],
      excludedAnnotations: [...(this.props.excludedAnnotations ?? [])],
      namespaces: {
        include: [...(this.props.namespaces?.include ?? [])],
        exclude: [...(this.props.namespaces?.exclude ?? [])],
      },
      createMissingNamespaces: this.props.createMissingNamespaces ?? false,
    };
  }
}
