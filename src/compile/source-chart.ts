import { Chart } from 'cdk8s';
import { k8s } from 'cdk8s-plus-28';
import type { Construct } from 'constructs';
import { MIRRORED_RESOURCE_LABEL } from '../contract/linkerd.js';
import { MANAGED_LABEL, MANAGED_VALUE } from '../contract/mirrorc.js';
import type { MirrorUnit } from './mirror-unit.js';

/** Properties of a {@link SourceChart}. */
export interface SourceChartProps {
  /** Namespaces to create in the source because a link asks for missing ones; sorted. */
  readonly namespaces: readonly string[];
  /** The mirrors of this source, sorted by namespace and name. */
  readonly units: readonly MirrorUnit[];
}

/** Everything one source cluster gets: its chart id is the cluster name, its output `dist/<cluster>/`. */
export class SourceChart extends Chart {
  constructor(scope: Construct, public readonly cluster: string, props: SourceChartProps) {
    super(scope, cluster, { disableResourceNameHashes: true });
    for (const ns of props.namespaces) {
      new k8s.KubeNamespace(this, `namespace.${ns}`, {
        metadata: { name: ns, labels: { [MIRRORED_RESOURCE_LABEL]: 'true', [MANAGED_LABEL]: MANAGED_VALUE } },
      });
    }
    for (const unit of props.units) unit.render(this);
  }
}
