/**
 * The indexes of the k highest scores, best first, without sorting everything (n can be 100,000). Equal scores rank
 * by `tieKeys` (lowest first) when given, else by index.
 */
export function topIndices(scores: ArrayLike<number>, k: number, tieKeys?: ArrayLike<number>): number[] {
  const limit = Math.min(k, scores.length);
  if (limit <= 0) return [];
  // A small array kept sorted best-first; a new score enters only if it beats the current k-th.
  const best: number[] = [];
  for (let i = 0; i < scores.length; i++) {
    const score = scores[i]!;
    if (best.length === limit) {
      const last = best[limit - 1]!;
      const kth = scores[last]!;
      // Enters above the k-th, or level with it and ahead by its key (by index it never is: it comes later).
      if (!(score > kth) && !(score === kth && tieKeys !== undefined && tieKeys[i]! < tieKeys[last]!))
        continue;
    }
    let low = 0;
    let high = best.length;
    while (low < high) {
      const mid = (low + high) >>> 1;
      const other = scores[best[mid]!]!;
      if (
        other > score ||
        (other === score && (tieKeys === undefined || tieKeys[best[mid]!]! < tieKeys[i]!))
      ) {
        low = mid + 1;
      } else high = mid;
    }
    best.splice(low, 0, i);
    if (best.length > limit) best.pop();
  }
  return best;
}

/** Scores as z-scores (mean 0, standard deviation 1); all zero when they do not vary. */
export function standardize(scores: ArrayLike<number>): Float64Array {
  const n = scores.length;
  const out = new Float64Array(n);
  if (n === 0) return out;
  let sum = 0;
  for (let i = 0; i < n; i++) sum += scores[i]!;
  const mean = sum / n;
  let squares = 0;
  for (let i = 0; i < n; i++) squares += (scores[i]! - mean) ** 2;
  const deviation = Math.sqrt(squares / n);
  if (!(deviation > 1e-12)) return out;
  for (let i = 0; i < n; i++) out[i] = (scores[i]! - mean) / deviation;
  return out;
}
