/** "Did you mean …?" for a mistyped command, option, property or service: the closest known name, if it is close enough. */

/** Edit distance (insertions, deletions, substitutions, and swaps of two neighbours). */
export function editDistance(a: string, b: string): number {
  const d: number[][] = Array.from({ length: a.length + 1 }, (_, i) => Array.from({ length: b.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)));
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let best = Math.min(d[i - 1]![j]! + 1, d[i]![j - 1]! + 1, d[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) best = Math.min(best, d[i - 2]![j - 2]! + 1);
      d[i]![j] = best;
    }
  }
  return d[a.length]![b.length]!;
}

/**
 * The candidate closest to `word`: within a third of its length in edits (at least 1, at most 3),
 * or one that `word` is the start of (at least 3 characters). Undefined when none is close or two tie.
 */
export function didYouMean(word: string, candidates: readonly string[]): string | undefined {
  const w = word.toLowerCase();
  const prefixed = candidates.filter((c) => w.length >= 3 && c.startsWith(w));
  if (prefixed.length === 1) return prefixed[0];
  const limit = Math.min(3, Math.max(1, Math.floor(w.length / 3)));
  let best: string | undefined;
  let bestDistance = Infinity;
  let tie = false;
  for (const c of candidates) {
    const distance = editDistance(w, c);
    if (distance < bestDistance) [best, bestDistance, tie] = [c, distance, false];
    else if (distance === bestDistance) tie = true;
  }
  return best !== undefined && bestDistance <= limit && !tie ? best : undefined;
}
