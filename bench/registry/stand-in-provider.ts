/**
 * The benches' stand-in embedding model: the normalised sum of a seeded random vector per word, 512 dimensions, so
 * agents that share words are near. bench/registry/ann.ts preloads agents with it and measures searches against
 * them; bench/ann/semantic-path.ts embeds its queries with it to search the same vectors.
 */
import type { EmbeddingProvider } from '@agentry/embeddings';

export const STAND_IN_DIMENSIONS = 512;

/** The stand-in model: the normalised sum of a seeded random vector per word. */
export function standInProvider(): EmbeddingProvider {
  const words = new Map<string, Float32Array>();
  const wordVector = (word: string) => {
    let vector = words.get(word);
    if (!vector) {
      let state = 2166136261;
      for (let i = 0; i < word.length; i++) state = Math.imul(state ^ word.charCodeAt(i), 16777619);
      vector = new Float32Array(STAND_IN_DIMENSIONS);
      for (let d = 0; d < STAND_IN_DIMENSIONS; d++) {
        state = (state + 0x6d2b79f5) >>> 0;
        let t = state;
        t = Math.imul(t ^ (t >>> 15), t | 1);
        t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
        vector[d] = ((t ^ (t >>> 14)) >>> 0) / 2147483648 - 1;
      }
      words.set(word, vector);
    }
    return vector;
  };
  return {
    id: 'bench-stand-in-512',
    dimensions: STAND_IN_DIMENSIONS,
    async embed(texts) {
      return texts.map((text) => {
        const sum = new Float32Array(STAND_IN_DIMENSIONS);
        for (const word of text.toLowerCase().match(/[a-z0-9]+/g) ?? []) {
          const vector = wordVector(word);
          for (let d = 0; d < STAND_IN_DIMENSIONS; d++) sum[d] = sum[d]! + vector[d]!;
        }
        let squares = 0;
        for (const value of sum) squares += value * value;
        const norm = Math.sqrt(squares) || 1;
        for (let d = 0; d < STAND_IN_DIMENSIONS; d++) sum[d] = sum[d]! / norm;
        return sum;
      });
    },
  };
}
