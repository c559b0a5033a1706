/**
 * The example fleet. Each cluster is reached through the kubeconfig context of the same name
 * (override with `access`), and this file's lock, `fleet.lock.json`, holds what was last observed.
 *
 * - London mirrors `bar` from Paris (the service-mirroring design article's scenario).
 * - east and west mirror each other's exported services.
 * - east and west each run shop/checkout labelled mirror.linkerd.io/federated=member, so each gets
 *   shop/checkout-federated, which unites its own checkout with the other's (federated mode).
 * - east exports shop/inventory with mirror.linkerd.io/exported=remote-discovery: west gets
 *   inventory-east in flat (pod-to-pod) mode.
 * - us, eu and ap each run a 3-replica ZooKeeper StatefulSet (coord/zookeeper, headless, labelled
 *   mirror.linkerd.io/exported=true and mirrorc.io/global=true) and link each other: every cluster
 *   gets per-pod mirrors of the others' replicas and coord/zookeeper-global listing all nine.
 * - London also mirrors lyon, whose traffic enters through a TCP gateway that is not Linkerd's
 *   (a port per service: default/tiles on 31001 from this file, default/geo on 31002 from its
 *   mirrorc.io/gateway-port annotation); london mirrors lyon's geo under the name maps-lyon
 *   (a renamed export: its data plane still names geo.default).
 * - London imports oslo's services through the Multi-Cluster Services API (mcs: true): a
 *   ServiceImport default/search and an EndpointSlice for oslo, sent to oslo's TCP gateway on 30443.
 * - synth also writes the Argo CD and Flux manifests that sync dist/ into delivery/.
 */
import { Cluster, ExplicitExport, GitOpsDelivery, Link, type Fleet } from '../src/index.js';

export default function defineFleet(fleet: Fleet): void {
  const london = new Cluster(fleet, 'london');
  const paris = new Cluster(fleet, 'paris');
  new Link(fleet, 'london-from-paris', { source: london, target: paris });
  const lyon = new Cluster(fleet, 'lyon', { gateway: { kind: 'generic', namespace: 'ingress', name: 'tcp-gateway', servicePorts: { 'default/tiles': 31001 } } });
  new Link(fleet, 'london-from-lyon', { source: london, target: lyon });
  const oslo = new Cluster(fleet, 'oslo', { gateway: { kind: 'generic', namespace: 'ingress', name: 'tcp-gateway', servicePorts: { 'default/search': 30443 } } });
  new Link(fleet, 'london-from-oslo', { source: london, target: oslo, mcs: true });
  new ExplicitExport(fleet, 'geo-as-maps', { cluster: lyon, namespace: 'default', name: 'geo', mirrorAs: { name: 'maps' } });

  const east = new Cluster(fleet, 'east');
  const west = new Cluster(fleet, 'west');
  // Federated members are resolved through the other cluster's API: the platform team provides
  // the credentials Secret (cluster-credentials-<target> in namespace linkerd) with External Secrets.
  new Link(fleet, 'east-from-west', { source: east, target: west, remoteDiscoveryCredentials: { provided: 'external' } });
  new Link(fleet, 'west-from-east', {
    source: west,
    target: east,
    // Team-internal bookkeeping labels stay in east.
    excludedLabels: ['billing.example.com/*'],
    remoteDiscoveryCredentials: { provided: 'external' },
  });

  // The StatefulSet scenario of the multi-cluster discovery proposal. Per-pod mirrors need ClusterIPs
  // at compile time: each cluster reserves the static lower band of its Service CIDR 10.96.0.0/16.
  const ring = ['us', 'eu', 'ap'].map((name) => new Cluster(fleet, name, { pinnedServiceIPRange: '10.96.0.0/24' }));
  for (const source of ring) {
    for (const target of ring) {
      if (source !== target) new Link(fleet, `${source.name}-from-${target.name}`, { source, target });
    }
  }

  new GitOpsDelivery(fleet, 'delivery', {
    repoUrl: 'https://github.com/example/fleet.git',
    revision: 'main',
    // argocd-cm was changed as delivery/argocd/argocd-cm-patch.yaml shows (README, "Delivery with Argo CD").
    argoCd: { configMapChangeApplied: true },
    flux: {},
  });
}
