/**
 * The observation boundary: what an apiserver returns is checked with the lock's own schemas
 * before it enters the snapshot. A real apiserver validates names, but a broken or hostile one
 * can return anything; one bad object is skipped with a warning, and the rest of the fleet
 * updates. Nothing observed becomes a file path or an object name before it passed here, and a
 * snapshot built from what passed always reads back as a lock.
 */
import type { z } from 'zod';
import { namespaceNameProblem, quote } from '../util/k8s-names.js';
import { foreignServiceSchema, observedServiceSchema, pinnedRangeServiceSchema, schemaProblems } from './lock-schema.js';

/** An observed object with a namespace and a name, as the warnings name it. */
interface Named {
  readonly namespace: string;
  readonly name: string;
}

/** The items that pass `schema`; each other one becomes a warning naming the cluster, the object and what is wrong. */
export function keepValid<T extends Named>(cluster: string, what: string, items: readonly T[], schema: z.ZodType, warnings: string[]): T[] {
  const kept: T[] = [];
  for (const item of items) {
    const problems = schemaProblems(schema, item);
    if (problems.length === 0) {
      kept.push(item);
      continue;
    }
    warnings.push(
      `cluster "${cluster}": ${what} ${quote(item.namespace)}/${quote(item.name)} is skipped, because ${problems.map((p) => p.replace(/^\$\.?/, '')).join('; ')}; ` +
        'it is left out of the lock and of every mirror until it is fixed (the rest of the fleet is updated)',
    );
  }
  return kept;
}

/** Observed Services (of a target, or a source's own members) that pass the lock's Service schema. */
export function validServices<T extends Named>(cluster: string, services: readonly T[], warnings: string[]): T[] {
  return keepValid(cluster, 'Service', services, observedServiceSchema, warnings);
}

/** A source's Services that a mirror could collide with, that pass the schema. */
export function validForeignServices<T extends Named>(cluster: string, services: readonly T[], warnings: string[]): T[] {
  return keepValid(cluster, 'Service', services, foreignServiceSchema, warnings);
}

/** A source's live Services in its pinned range, that pass the schema. */
export function validPinnedRangeServices<T extends Named>(cluster: string, services: readonly T[], warnings: string[]): T[] {
  return keepValid(cluster, 'Service', services, pinnedRangeServiceSchema, warnings);
}

/** Namespace names that are namespace names. */
export function validNamespaces(cluster: string, namespaces: readonly string[], warnings: string[]): string[] {
  return namespaces.filter((ns) => {
    const problem = namespaceNameProblem(ns);
    if (problem) warnings.push(`cluster "${cluster}": a namespace is skipped, because ${problem}`);
    return problem === undefined;
  });
}
