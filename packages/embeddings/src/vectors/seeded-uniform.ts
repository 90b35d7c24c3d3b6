/**
 * A seeded stream of uniform numbers in [0, 1) (mulberry32): small and fast, and the same numbers on every run, so
 * an index build samples the same rows each time (ann-index.ts), and tests and benches see the same data.
 */
export function seededUniform(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
