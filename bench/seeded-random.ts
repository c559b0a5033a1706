/** A small seeded pseudo-random generator (mulberry32): the benchmark's fleets are the same on every machine. */

/** Random numbers in [0, 1) from `seed`; the same seed gives the same sequence everywhere. */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** A seed for one item of a run: `seed` mixed with the item's numbers, so items do not depend on generation order. */
export function itemSeed(seed: number, ...parts: readonly number[]): number {
  let h = seed >>> 0;
  for (const p of parts) h = Math.imul(h ^ (p >>> 0), 0x9e3779b1) + 0x7f4a7c15 >>> 0;
  return h;
}

/** One element of `items`, chosen by `random`. */
export function pick<T>(random: () => number, items: readonly T[]): T {
  return items[Math.floor(random() * items.length)]!;
}
