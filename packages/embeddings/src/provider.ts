/**
 * The port every embedding provider implements: text in, unit-comparable vectors out. The registry's search index
 * depends on this interface alone; the bundled USE-lite model, an OpenAI-compatible server, or an operator's own
 * implementation plug into it.
 */

/** What the texts of an embedding call are. */
export interface EmbedOptions {
  /**
   * `query`: a search request someone is waiting on, which a provider may serve before waiting documents;
   * `document`: agents being indexed. A provider told neither guesses from the number of texts.
   */
  purpose?: 'query' | 'document';
}

/** See `EmbeddingProvider.similarityFloors` and docs/search.md, "Relevance". */
export interface SimilarityFloors {
  /** When some agent the caller may see matches the query's words (the query is about something agents say). */
  wordsMatched: number;
  /**
   * When no agent does: the query may be nonsense, which a model finds about this similar to its nearest agent,
   * so only a closer agent counts.
   */
  noWordsMatched: number;
}

/**
 * Turns text into vectors. Implementations: the bundled USE-lite model, an OpenAI-compatible API, none.
 *
 * @example
 * ```ts
 * import type { EmbeddingProvider } from '@agentry/embeddings';
 *
 * // A provider of one's own: any object with an id, a size and an embed function.
 * const constant: EmbeddingProvider = {
 *   id: 'constant-2',
 *   dimensions: 2,
 *   embed: async (texts) => texts.map(() => Float32Array.of(1, 0)),
 * };
 * ```
 */
export interface EmbeddingProvider {
  /** Stable name stored beside each vector, so a change of model triggers re-embedding. */
  readonly id: string;
  readonly dimensions: number;
  /**
   * How many calls it works on at once (default 1): the search index keeps that many batches of upserts embedding,
   * so none waits while the provider could take it.
   */
  readonly concurrency?: number;
  /**
   * The cosine similarities from which this model's similarity to a query is evidence of relevance, calibrated per
   * model (how similar unrelated texts look differs from model to model): an agent that matches none of the
   * query's words is returned only from there. Absent: every agent with a vector is returned, ranked.
   */
  readonly similarityFloors?: SimilarityFloors;
  embed(texts: readonly string[], options?: EmbedOptions): Promise<Float32Array[]>;
}
