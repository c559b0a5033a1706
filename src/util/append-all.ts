/**
 * Appends every item of `items` to `target`, one at a time. `target.push(...items)` passes each
 * item as a call argument, and a call of some 100,000 arguments overflows the stack: no array
 * whose length comes from outside (an API server, a lock, a fleet) is ever spread into a call.
 */
export function appendAll<T>(target: T[], items: Iterable<T>): T[] {
  for (const item of items) target.push(item);
  return target;
}
