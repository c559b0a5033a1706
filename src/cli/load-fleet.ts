/** Loads the user's fleet definition module and builds its {@link Fleet}. */
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { App } from 'cdk8s';
import { Fleet } from '../model/fleet.js';

/** A function that defines clusters, links and exports on a fleet (the default export of `clusters/fleet.ts`). */
export type FleetDefinition = (fleet: Fleet) => void;

/** The fleet definition module cannot be loaded. */
export class FleetLoadError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'FleetLoadError';
  }
}

/** Imports `file` and checks that its default export is a {@link FleetDefinition}. */
export async function importFleetDefinition(file: string): Promise<FleetDefinition> {
  const abs = resolve(file);
  if (!existsSync(abs)) throw new FleetLoadError(`fleet definition ${file} does not exist (pass --fleet <file>)`);
  let mod: { default?: unknown };
  try {
    mod = (await import(pathToFileURL(abs).href)) as { default?: unknown };
  } catch (e) {
    throw new FleetLoadError(`fleet definition ${file} cannot be loaded: ${(e as Error).message}`);
  }
  if (typeof mod.default !== 'function') {
    throw new FleetLoadError(`fleet definition ${file} must have a default export: a function (fleet: Fleet) => void that defines clusters and links`);
  }
  return mod.default as FleetDefinition;
}

/** Builds a fleet in a fresh cdk8s app. */
export function buildFleet(define: FleetDefinition): { app: App; fleet: Fleet } {
  const app = new App({ outdir: 'unused' });
  const fleet = new Fleet(app, 'fleet');
  define(fleet);
  return { app, fleet };
}
