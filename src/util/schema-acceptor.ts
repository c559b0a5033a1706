/**
 * A one-pass check derived from a zod schema: whether the schema certainly accepts a value, without
 * zod's per-field bookkeeping. At fleet size the lock is tens of MiB, and zod's refinements cost most
 * of reading it (20×500: see docs/lock-and-state.md); the lock is read through this check, and only a
 * lock it does not accept is parsed by the schema, which names the problems.
 *
 * The check is built from the schema's own definition (`schema._zod.def`): strict objects, optional
 * fields, arrays, literals, unions, booleans, numbers (finite; `int`, `nonnegative`), strings
 * (`regex`). What zod cannot show — a refinement's predicate — the schema's helpers register here
 * ({@link acceptsWhen}, {@link recordAcceptor}, {@link refinedBy}) with the very predicate the
 * refinement calls. A part of a schema it cannot derive throws when the check is built (a test builds
 * it for the lock's schema), so the check never silently checks less than the schema.
 *
 * It is conservative: only plain objects (as JSON.parse makes them); `false` means "ask the schema".
 */
import type { z } from 'zod';

/** Why a value is not valid (a message), or undefined when it is. */
export type Problem = (value: unknown) => string | undefined;

/** What the schema's helpers register: the predicates of the refinements zod cannot show. */
type Rule =
  | { readonly kind: 'predicate'; readonly problem: Problem }
  | { readonly kind: 'record'; readonly keyProblem: (key: string) => string | undefined; readonly value: z.ZodType }
  | { readonly kind: 'refined'; readonly accepts: (value: never) => boolean };

const RULES = new WeakMap<object, Rule>();

/** `schema`, a value that `problem` (the predicate its refinement calls) accepts. */
export function acceptsWhen<S extends z.ZodType>(schema: S, problem: Problem): S {
  RULES.set(schema, { kind: 'predicate', problem });
  return schema;
}

/** `schema`, a record (a plain object) whose keys `keyProblem` and whose values `value` accept. */
export function recordAcceptor<S extends z.ZodType>(schema: S, keyProblem: (key: string) => string | undefined, value: z.ZodType): S {
  RULES.set(schema, { kind: 'record', keyProblem, value });
  return schema;
}

/**
 * `schema`, whose own refinements (superRefine on an object) `accepts` settles: a value passes when
 * the object without the refinements accepts it and `accepts` does. `accepts` may return false for a
 * valid value (the schema then decides), never true for an invalid one.
 */
export function refinedBy<S extends z.ZodType>(schema: S, accepts: (value: z.infer<S>) => boolean): S {
  RULES.set(schema, { kind: 'refined', accepts: accepts as (value: never) => boolean });
  return schema;
}

/** Whether a value certainly passes. */
export type Accepts = (value: unknown) => boolean;

/** A schema part this module cannot derive a check for. */
export class UnderivableSchemaError extends Error {
  constructor(what: string) {
    super(`no one-pass check can be derived for a zod ${what}: derive it in src/util/schema-acceptor.ts, or register its predicate`);
    this.name = 'UnderivableSchemaError';
  }
}

/** zod's definition of a schema or a check (zod 4: `_zod.def`). */
interface Def {
  readonly type?: string;
  readonly check?: string;
  readonly [key: string]: unknown;
}

const defOf = (schema: unknown): Def => (schema as { _zod: { def: Def } })._zod.def;

/** Whether `value` is an object JSON.parse made (not null, not an array, plain prototype). */
export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value) && Object.getPrototypeOf(value) === Object.prototype;
}

/** `problem` as a predicate; a string it accepted once is accepted again without asking (names repeat across a fleet). */
function remembering(problem: Problem): Accepts {
  const ok = new Set<string>();
  return (value) => {
    if (typeof value === 'string' && ok.has(value)) return true;
    if (problem(value) !== undefined) return false;
    if (typeof value === 'string') ok.add(value);
    return true;
  };
}

/**
 * The one-pass check of `schema`. Built afresh per call (its memory of accepted names lives as long
 * as the returned function); throws {@link UnderivableSchemaError} for a part it cannot derive.
 */
export function schemaAcceptor(schema: z.ZodType): Accepts {
  return new Deriver().accepts(schema);
}

/** Derives the checks of one schema, sharing one remembering predicate per registered predicate. */
class Deriver {
  private readonly predicates = new Map<Problem | ((key: string) => string | undefined), Accepts>();

  accepts(schema: unknown): Accepts {
    const rule = RULES.get(schema as object);
    if (rule?.kind === 'predicate') return this.remembered(rule.problem);
    if (rule?.kind === 'record') return this.record(rule.keyProblem, this.accepts(rule.value));
    const def = defOf(schema);
    const checks = (def.checks as readonly unknown[] | undefined) ?? [];
    if (rule?.kind === 'refined') {
      if (def.type !== 'object') throw new UnderivableSchemaError(`refined ${def.type}`);
      const object = this.object(def);
      const refined = rule.accepts as (value: unknown) => boolean;
      return (value) => object(value) && refined(value);
    }
    switch (def.type) {
      case 'object':
        if (checks.length > 0) throw new UnderivableSchemaError('object with refinements');
        return this.object(def);
      case 'optional': {
        const inner = this.accepts(def.innerType);
        return (value) => value === undefined || inner(value);
      }
      case 'array': {
        if (checks.length > 0) throw new UnderivableSchemaError('array with checks');
        const element = this.accepts(def.element);
        return (value) => {
          if (!Array.isArray(value)) return false;
          for (let i = 0; i < value.length; i++) if (!element(value[i])) return false;
          return true;
        };
      }
      case 'literal': {
        const values = def.values as readonly unknown[];
        return (value) => values.includes(value);
      }
      case 'union': {
        const options = (def.options as readonly unknown[]).map((o) => this.accepts(o));
        return (value) => options.some((o) => o(value));
      }
      case 'boolean':
        if (checks.length > 0) throw new UnderivableSchemaError('boolean with checks');
        return (value) => typeof value === 'boolean';
      case 'number':
        return numberAcceptor(checks);
      case 'string':
        return stringAcceptor(checks);
      default:
        throw new UnderivableSchemaError(def.type ?? 'schema of no type');
    }
  }

  /** A strict object: only its fields, the required ones present, each accepted. */
  private object(def: Def): Accepts {
    if (def.catchall === undefined || defOf(def.catchall).type !== 'never') throw new UnderivableSchemaError('object that is not strict');
    const fields = Object.entries(def.shape as Record<string, unknown>).map(([key, field]) => ({ key, optional: defOf(field).type === 'optional', accepts: this.accepts(field) }));
    const known = new Set(fields.map((f) => f.key));
    return (value) => {
      if (!isPlainObject(value)) return false;
      for (const key of Object.keys(value)) if (!known.has(key)) return false;
      for (const field of fields) {
        const v = value[field.key];
        if (v === undefined ? !field.optional : !field.accepts(v)) return false;
      }
      return true;
    };
  }

  /** A plain object whose keys and values are accepted. */
  private record(keyProblem: (key: string) => string | undefined, value: Accepts): Accepts {
    const key = this.remembered(keyProblem as Problem);
    return (v) => {
      if (!isPlainObject(v)) return false;
      for (const k of Object.keys(v)) if (!key(k) || !value(v[k])) return false;
      return true;
    };
  }

  private remembered(problem: Problem): Accepts {
    let accepts = this.predicates.get(problem);
    if (!accepts) this.predicates.set(problem, (accepts = remembering(problem)));
    return accepts;
  }
}

/** A finite number passing zod's `int` (safe integer) and `gt`/`gte` checks. */
function numberAcceptor(checks: readonly unknown[]): Accepts {
  const tests = checks.map((c): ((n: number) => boolean) => {
    const d = defOf(c);
    if (d.check === 'number_format' && d.format === 'safeint') return (n) => Number.isSafeInteger(n);
    if (d.check === 'greater_than' && typeof d.value === 'number') {
      const min = d.value;
      return d.inclusive === true ? (n) => n >= min : (n) => n > min;
    }
    throw new UnderivableSchemaError(`number check ${String(d.check)}${d.format ? ` (${String(d.format)})` : ''}`);
  });
  return (value) => typeof value === 'number' && Number.isFinite(value) && tests.every((t) => t(value));
}

/** A string passing zod's `regex` checks. */
function stringAcceptor(checks: readonly unknown[]): Accepts {
  const patterns = checks.map((c) => {
    const d = defOf(c);
    if (d.check === 'string_format' && d.format === 'regex' && d.pattern instanceof RegExp && !d.pattern.global && !d.pattern.sticky) return d.pattern;
    throw new UnderivableSchemaError(`string check ${String(d.check)}${d.format ? ` (${String(d.format)})` : ''}`);
  });
  return (value) => typeof value === 'string' && patterns.every((p) => p.test(value));
}
