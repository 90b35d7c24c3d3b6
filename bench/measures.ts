/**
 * The figures the benches report, computed one way for all of them: a percentile of a list of timings, and recall of
 * a ranking's top hits against a truth (the exact pass, or another run). Pure functions of their arguments, so the
 * benches that measure an index alone (bench/ann) load nothing of the registry to use them.
 */

/**
 * The value at `p` percent of `values` (any order; not changed): the one at index ⌊p/100 · n⌋ of the sorted values,
 * the last for p = 100, NaN when there are none. p99 of 100 timings is the largest, so a tail is never understated.
 */
export function percentile(values: readonly number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? Number.NaN;
}

/**
 * The share of the wanted ids that were found, over all queries: `found[i]` and `wanted[i]` are query i's ids (a
 * top 10 each for recall@10). NaN when nothing was wanted.
 */
export function recall(
  found: readonly (readonly string[])[],
  wanted: readonly (readonly string[])[],
): number {
  let hits = 0;
  let total = 0;
  for (const [i, truth] of wanted.entries()) {
    const got = new Set(found[i]);
    hits += truth.filter((id) => got.has(id)).length;
    total += truth.length;
  }
  return total === 0 ? Number.NaN : hits / total;
}
