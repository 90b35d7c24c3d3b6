/**
 * The index's side of its embedding provider: query vectors (unit length, kept in the query cache), document
 * vectors for upserts (a failure is reported and the agents are indexed lexically regardless), and the agents
 * waiting for a vector, whose texts the provider may refuse one by one (set aside until the text changes).
 */
import { EmbeddingError, type EmbeddingProvider } from '@agentry/embeddings';
import { QueryEmbeddingCache, queryCacheKey } from './semantic/query-cache.js';
import { readableText } from './text/words.js';

export interface EmbeddedRow {
  id: string;
  text: string;
  vector: Float32Array;
}

export interface Embedder {
  /** Unit vectors for each text (the whole query and each clause), from the cache where it has them. */
  queryVectors(texts: readonly string[]): Promise<Float32Array[] | undefined>;
  /** Vectors for documents; undefined (the failure reported) when the provider fails, or without one. */
  documentVectors(texts: readonly string[]): Promise<Float32Array[] | undefined>;
  /**
   * Embeds waiting rows; when the provider refuses the batch for what it holds (a 4xx such as 400 or 413: a text
   * too long for its model, or one it will not take), halves it until the texts it refuses are alone, sets those
   * aside and embeds the rest. Without that one such text would hold back every agent waiting after it, at every
   * try. Any other failure (provider down, wrong key or URL) rejects: every text would fail alike.
   */
  pendingVectors(
    provider: EmbeddingProvider,
    rows: ReadonlyArray<{ id: string; text: string }>,
  ): Promise<EmbeddedRow[]>;
  /** Whether the provider refused this agent's text as it is. */
  refuses(id: string, text: string): boolean;
  /** How many agents' texts are set aside. */
  readonly refusedCount: number;
  /** The agent is gone: its refused text, if any, is forgotten. */
  forget(id: string): void;
}

export function createEmbedder(
  provider: EmbeddingProvider | undefined,
  options: { queryCacheSize: number; onError: (error: unknown) => void },
): Embedder {
  const queryCache = new QueryEmbeddingCache(options.queryCacheSize);
  const report = options.onError;
  /** Agents whose text the provider refused on its own, by id: not offered again until the text changes. */
  const refused = new Map<string, string>();

  /** Embeds texts; on failure reports it and returns nothing, so the caller can index lexically regardless. */
  async function tryEmbed(
    texts: readonly string[],
    purpose: 'query' | 'document',
  ): Promise<Float32Array[] | undefined> {
    if (!provider || texts.length === 0) return undefined;
    try {
      const vectors = await provider.embed(texts, { purpose });
      if (vectors.length !== texts.length)
        throw new Error(`${provider.id} returned ${vectors.length} vectors for ${texts.length} texts`);
      return vectors;
    } catch (error) {
      report(error);
      return undefined;
    }
  }

  async function queryVectors(texts: readonly string[]): Promise<Float32Array[] | undefined> {
    if (!provider) return undefined;
    const keys = texts.map((text) => queryCacheKey(provider.id, text));
    const vectors = keys.map((key) => queryCache.get(key));
    const missing = texts.flatMap((text, i) => (vectors[i] ? [] : [{ i, text: readableText(text) }]));
    if (missing.length > 0) {
      const embedded = await tryEmbed(
        missing.map((item) => item.text),
        'query',
      );
      if (!embedded) return undefined;
      missing.forEach((item, j) => {
        const unit = unitVector(embedded[j]!);
        queryCache.set(keys[item.i]!, unit);
        vectors[item.i] = unit;
      });
    }
    return vectors as Float32Array[];
  }

  async function pendingVectors(
    embedder: EmbeddingProvider,
    rows: ReadonlyArray<{ id: string; text: string }>,
  ): Promise<EmbeddedRow[]> {
    try {
      const vectors = await embedder.embed(
        rows.map((row) => row.text),
        { purpose: 'document' },
      );
      return rows.map((row, i) => ({ ...row, vector: vectors[i]! }));
    } catch (error) {
      if (!refusesInput(error)) throw error;
      if (rows.length === 1) {
        refused.set(rows[0]!.id, rows[0]!.text);
        report(
          new EmbeddingError(
            `${embedder.id} refused the text of agent ${rows[0]!.id}; it is searched lexically only until its text changes`,
            embedder.id,
            error.status,
            { cause: error },
          ),
        );
        return [];
      }
      const half = Math.ceil(rows.length / 2);
      return [
        ...(await pendingVectors(embedder, rows.slice(0, half))),
        ...(await pendingVectors(embedder, rows.slice(half))),
      ];
    }
  }

  return {
    queryVectors,
    documentVectors: (texts) => tryEmbed(texts, 'document'),
    pendingVectors,
    refuses: (id, text) => refused.get(id) === text,
    get refusedCount() {
      return refused.size;
    },
    forget(id) {
      refused.delete(id);
    },
  };
}

function unitVector(vector: Float32Array): Float32Array {
  let squares = 0;
  for (const value of vector) squares += value * value;
  const norm = Math.sqrt(squares) || 1;
  return vector.map((value) => value / norm);
}

/**
 * Whether the provider refused an embedding call for the texts it was given (the request was understood and
 * refused: 400, 413, 422 …) rather than failing whatever the texts (unreachable, 5xx, 429, a wrong key or URL).
 */
function refusesInput(error: unknown): error is EmbeddingError & { status: number } {
  if (!(error instanceof EmbeddingError) || error.status === undefined) return false;
  return error.status >= 400 && error.status < 500 && ![401, 403, 404, 408, 429].includes(error.status);
}
