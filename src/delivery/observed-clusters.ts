/** Which clusters observation reads, and in which role: the clusters that need the reader identity. */
import type { FleetSpec } from '../model/fleet-spec.js';
import { compareStrings } from '../util/order.js';
import { readsServiceExports } from '../model/service-exports.js';

/** A cluster that observation reads, with the roles it is read in. */
export interface ObservedCluster {
  readonly name: string;
  /** Some link mirrors into it (its namespaces and Services are listed). */
  readonly source: boolean;
  /** Some link mirrors from it (its exported Services are listed). */
  readonly target: boolean;
  /** Some MCS link mirrors from it and reads its ServiceExport objects. @default false */
  readonly mcsTarget?: boolean;
  /** Some MCS link mirrors into it (its ServiceImports are listed). @default false */
  readonly mcsSource?: boolean;
  /** A source of a fleet delivered by Flux (`mirrorc status` lists its Kustomizations). @default false */
  readonly fluxSource?: boolean;
}

/** Every cluster at either end of a link, sorted by name. */
export function observedClusters(fleet: FleetSpec): ObservedCluster[] {
  const sources = new Set(fleet.links.map((l) => l.source));
  const targets = new Set(fleet.links.map((l) => l.target));
  const mcsTargets = new Set(fleet.links.filter(readsServiceExports).map((l) => l.target));
  const mcsSources = new Set(fleet.links.filter((l) => l.mcs === true).map((l) => l.source));
  const flux = fleet.delivery?.flux !== undefined;
  return [...new Set([...sources, ...targets])]
    .sort(compareStrings)
    .map((name) => ({ name, source: sources.has(name), target: targets.has(name), mcsTarget: mcsTargets.has(name), mcsSource: mcsSources.has(name), fluxSource: flux && sources.has(name) }));
}
