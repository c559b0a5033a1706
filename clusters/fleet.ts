/**
 * The example fleet. Each cluster is reached through the kubeconfig context of the same name
 * (override with `access`), and this file's lock, `fleet.lock.json`, holds what was last observed.
 *
 * - London mirrors `bar` from Paris (the service-mirroring design article's scenario).
 * - east and west mirror each other's exported services.
 * - synth also writes the Argo CD and Flux manifests that sync dist/ into delivery/.
 */
import { Cluster, GitOpsDelivery, Link, type Fleet } from '../src/index.js';

export default function defineFleet(fleet: Fleet): void {
  const london = new Cluster(fleet, 'london');
  const paris = new Cluster(fleet, 'paris');
  new Link(fleet, 'london-from-paris', { source: london, target: paris });

  const east = new Cluster(fleet, 'east');
  const west = new Cluster(fleet, 'west');
  new Link(fleet, 'east-from-west', { source: east, target: west });
  new Link(fleet, 'west-from-east', {
    source: west,
    target: east,
    // Team-internal bookkeeping labels stay in east.
    excludedLabels: ['billing.example.com/*'],
  });

  new GitOpsDelivery(fleet, 'delivery', {
    repoUrl: 'https://github.com/example/fleet.git',
    revision: 'main',
    // argocd-cm was changed as delivery/argocd/argocd-cm-patch.yaml shows (README, "Delivery with Argo CD").
    argoCd: { configMapChangeApplied: true },
    flux: {},
  });
}
