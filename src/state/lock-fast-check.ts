/**
 * The lock's unit records and pinned IPs checked in one pass, without zod: at fleet size they are
 * most of the lock (190,000 mirrors at 20×500, one pinned IP per per-pod mirror), and the schema's
 * per-key refinements cost seconds. The pass accepts
 * only what the schema accepts (the same name predicates, patterns and field sets, plain JSON
 * objects only); whatever it does not accept — a bad record, or merely something it does not know —
 * is left to the schema, so a refused lock is refused with the schema's own messages.
 */
import { clusterNameProblem, ipLiteralProblem } from '../util/k8s-names.js';
import { namespacedKey, ORIGIN_PATTERN, SHA256_PATTERN, unitNameProblem } from './lock-document.js';

const UNIT_RECORD_FIELDS = new Set(['inputs', 'files', 'mirrors', 'podMirrors', 'imports']);
const INVENTORIES = ['mirrors', 'podMirrors', 'imports'] as const;

/** Whether `value` is an object JSON.parse made (not null, not an array, plain prototype). */
function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value) && Object.getPrototypeOf(value) === Object.prototype;
}

/** A name predicate with the names it accepted remembered (mirror names repeat in every source). */
function accepting(problem: (name: string) => string | undefined): (name: string) => boolean {
  const ok = new Set<string>();
  return (name) => {
    if (ok.has(name)) return true;
    if (problem(name) !== undefined) return false;
    ok.add(name);
    return true;
  };
}

/**
 * Whether `units` (the lock's `compiled.units`) certainly matches its schema. False means "ask the
 * schema": the record may still be valid (the schema decides, and names any problem).
 */
export function unitRecordsAccepted(units: unknown): boolean {
  if (!isPlainObject(units)) return false;
  const clusterOk = accepting(clusterNameProblem);
  const unitOk = accepting(unitNameProblem);
  const keyOk = accepting(namespacedKey);
  const originOk = accepting((o) => (ORIGIN_PATTERN.test(o) ? undefined : 'no'));
  for (const cluster of Object.keys(units)) {
    const byUnit = units[cluster];
    if (!clusterOk(cluster) || !isPlainObject(byUnit)) return false;
    for (const unit of Object.keys(byUnit)) {
      const record = byUnit[unit];
      if (!unitOk(unit) || !isPlainObject(record)) return false;
      for (const field of Object.keys(record)) if (!UNIT_RECORD_FIELDS.has(field)) return false;
      if (record.inputs !== undefined && !(typeof record.inputs === 'string' && SHA256_PATTERN.test(record.inputs))) return false;
      if (!filesAccepted(record.files)) return false;
      for (const field of INVENTORIES) {
        const inventory = record[field];
        if (inventory === undefined) continue;
        if (!isPlainObject(inventory)) return false;
        for (const key of Object.keys(inventory)) {
          const value = inventory[key];
          if (!keyOk(key) || typeof value !== 'string' || !originOk(value)) return false;
        }
      }
    }
  }
  return true;
}

function filesAccepted(files: unknown): boolean {
  if (!isPlainObject(files)) return false;
  const keys = Object.keys(files);
  if (keys.length !== 3) return false;
  const { count, bytes, digest } = files;
  return count0(count) && count0(bytes) && typeof digest === 'string' && SHA256_PATTERN.test(digest);
}

/** A non-negative safe integer (what z.number().int().nonnegative() accepts), -0 left to the schema. */
function count0(value: unknown): boolean {
  return typeof value === 'number' && Number.isSafeInteger(value) && value >= 0 && !Object.is(value, -0);
}

/**
 * Whether `pinned` (the lock's `compiled.pinnedServiceIPs`, absent or cluster → `namespace/name` →
 * IP literal) certainly matches its schema. False means "ask the schema".
 */
export function pinnedIPsAccepted(pinned: unknown): boolean {
  if (pinned === undefined) return true;
  if (!isPlainObject(pinned)) return false;
  const clusterOk = accepting(clusterNameProblem);
  const keyOk = accepting(namespacedKey);
  for (const cluster of Object.keys(pinned)) {
    const byService = pinned[cluster];
    if (!clusterOk(cluster) || !isPlainObject(byService)) return false;
    for (const key of Object.keys(byService)) {
      const ip = byService[key];
      if (!keyOk(key) || typeof ip !== 'string' || ipLiteralProblem(ip) !== undefined) return false;
    }
  }
  return true;
}
