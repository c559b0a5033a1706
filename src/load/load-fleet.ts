/** Loads the user's fleet definition module and builds its {@link Fleet}. */
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { App } from 'cdk8s';
import { Fleet, FleetDefinitionError, type FleetDefinition } from '../model/fleet.js';
import { fleetCodeErrorMessage } from './fleet-code-error.js';
import { fleetRootHint } from './fleet-root-hint.js';
import { importFleetModule, TypeScriptLoaderMissingError } from './import-fleet-module.js';
import { InvalidInputError } from '../errors/mirrorc-error.js';

/** The fleet definition's type lives with the model; re-exported for the CLI's callers. */
export type { FleetDefinition };

/** The fleet definition module cannot be loaded, or threw while defining the fleet; the message names file and line. */
export class FleetLoadError extends InvalidInputError {
  constructor(message: string) {
    super(message);
    this.name = 'FleetLoadError';
  }
}

/** Imports `file` and checks that its default export is a {@link FleetDefinition}. */
export async function importFleetDefinition(file: string): Promise<FleetDefinition> {
  const abs = resolve(file);
  if (!existsSync(abs)) throw new FleetLoadError(`fleet definition ${file} does not exist (pass --fleet <file>)${fleetRootHint(file, process.cwd())}`);
  let mod: { default?: unknown };
  try {
    mod = await importFleetModule(abs);
  } catch (e) {
    if (e instanceof TypeScriptLoaderMissingError) throw new FleetLoadError(`cannot load ${file}: ${e.message}`);
    throw new FleetLoadError(fleetCodeErrorMessage(e, file, 'load'));
  }
  if (typeof mod.default !== 'function') {
    throw new FleetLoadError(`fleet definition ${file} must have a default export: a function (fleet: Fleet) => void that defines clusters and links`);
  }
  return mod.default as FleetDefinition;
}

/**
 * Builds a fleet in a fresh cdk8s app.
 * @param file the module `define` comes from, named in errors. @default 'clusters/fleet.ts'
 * @throws FleetLoadError when `define` throws or is asynchronous
 */
export function buildFleet(define: FleetDefinition, file = 'clusters/fleet.ts'): { app: App; fleet: Fleet } {
  const app = new App({ outdir: 'unused' });
  const fleet = new Fleet(app, 'fleet');
  let returned: unknown;
  try {
    returned = define(fleet);
  } catch (e) {
    if (e instanceof FleetDefinitionError || e instanceof FleetLoadError) throw e;
    throw new FleetLoadError(fleetCodeErrorMessage(e, file, 'define'));
  }
  if (returned instanceof Promise) {
    returned.catch(() => {}); // its outcome is not waited for: the definition is refused
    throw new FleetLoadError(`${file}: the default export returned a Promise; the fleet definition must be a synchronous function (fleet: Fleet) => void (no I/O: synth must be deterministic)`);
  }
  return { app, fleet };
}
