import { Construct } from 'constructs';
import type { Cluster } from './cluster.js';
import type { ExplicitExportSpec } from './fleet-spec.js';
import { recordOrigin } from './construct-origin.js';
import { EXPLICIT_EXPORT_PROPS } from './known-props.js';

const EXPORT_BRAND = Symbol.for('mirrorc.ExplicitExport');

/** Properties of an {@link ExplicitExport}. */
export interface ExplicitExportProps {
  /**
   * The target cluster that owns the service.
   */
  readonly cluster: Cluster;
  /**
   * Namespace of the service.
   */
  readonly namespace: string;
  /**
   * Name of the service.
   */
  readonly name: string;
  /**
   * Mirror it in every source under another name and/or namespace: `<mirrorAs.name>-<target>` in
   * namespace `mirrorAs.namespace`. Gateway mode only; `remote-svc-fq-name` and every data-plane
   * field still name the original service.
   *
   * @default - the service's own name and namespace
   */
  readonly mirrorAs?: MirrorAs;
}

/** Where a renamed or relocated export is mirrored in the sources. */
export interface MirrorAs {
  /**
   * The mirror's name before the `-<target>` suffix.
   *
   * @default - the service's name
   */
  readonly name?: string;
  /**
   * The source namespace of the mirror.
   *
   * @default - the service's namespace (or the link's namespaceMap)
   */
  readonly namespace?: string;
}

/**
 * Exports one target service by name, as if it carried the gateway export label: for services
 * whose labels you cannot change (a vendor chart, a managed add-on). Every link from that
 * target mirrors it in gateway mode, subject to the link's namespace filter.
 */
export class ExplicitExport extends Construct {
  /** Whether `x` is an ExplicitExport (works across copies of this library). */
  public static isExplicitExport(x: unknown): x is ExplicitExport {
    return x !== null && typeof x === 'object' && EXPORT_BRAND in x;
  }

  /** The target cluster that owns the service. */
  public readonly cluster: Cluster;
  private readonly props: ExplicitExportProps;

  constructor(scope: Construct, id: string, props: ExplicitExportProps) {
    super(scope, id);
    Object.defineProperty(this, EXPORT_BRAND, { value: true });
    recordOrigin(this, props, EXPLICIT_EXPORT_PROPS);
    this.cluster = props.cluster;
    this.props = props;
  }

  /** The export as plain data. */
  public toSpec(): ExplicitExportSpec {
    const as = this.props.mirrorAs;
    return {
      cluster: this.props.cluster?.name,
      namespace: this.props.namespace,
      name: this.props.name,
      path: this.node.path,
      ...(as !== undefined ? { mirrorAs: { ...(as.name !== undefined ? { name: as.name } : {}), ...(as.namespace !== undefined ? { namespace: as.namespace } : {}) } } : {}),
    };
  }
}
