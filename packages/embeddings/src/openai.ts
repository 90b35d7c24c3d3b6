/**
 * An embedding provider for any server that speaks the OpenAI embeddings API: OpenAI itself, Azure-style
 * gateways, Ollama, llama.cpp, vLLM, LM Studio, text-embeddings-inference. `baseUrl` is the API root including
 * its version, exactly as the OpenAI SDKs take it (`https://api.openai.com/v1`, `http://localhost:11434/v1`);
 * requests go to `{baseUrl}/embeddings`.
 *
 * The endpoint is configured by the registry's operator, not by users, so it is called with the plain `fetch`
 * (a local model server on loopback is the common case), never with the client's public-address policy.
 */

import { EmbeddingError } from './errors.js';
import type { EmbeddingProvider, SimilarityFloors } from './provider.js';

export interface OpenAIEmbeddingOptions {
  /** API root including the version segment, e.g. `https://api.openai.com/v1`. */
  baseUrl: string;
  model: string;
  /** Sent as `Authorization: Bearer <apiKey>` when present. */
  apiKey?: string;
  /**
   * Requested output size, sent as `dimensions` (models that can shorten their vectors honour it). When absent,
   * the size is whatever the model returns, learned from the first answer.
   */
  dimensions?: number;
  /** Inputs per request (default 64). */
  batchSize?: number;
  /** Per request (default 30 s). */
  timeoutMs?: number;
  /**
   * Cosine similarities from which an agent that matches none of a query's words is returned (docs/search.md,
   * "Relevance"); absent, such agents are all returned, ranked. They depend on the model: calibrate them.
   */
  similarityFloors?: SimilarityFloors;
  fetch?: typeof fetch;
}

interface EmbeddingsResponse {
  data: Array<{ index: number; embedding: number[] }>;
}

/**
 * A provider over `{baseUrl}/embeddings`, in batches of `batchSize`; its size is learned from the first answer
 * unless `dimensions` is set. Failures are `EmbeddingError`s carrying the HTTP status and the server's message.
 *
 * @example
 * ```ts
 * import { createOpenAIEmbeddingProvider, EmbeddingError } from '@agentry/embeddings';
 *
 * const provider = createOpenAIEmbeddingProvider({
 *   baseUrl: 'https://api.openai.com/v1',
 *   model: 'text-embedding-3-small',
 *   apiKey: process.env['OPENAI_API_KEY'],
 *   dimensions: 512,
 * });
 * try {
 *   const vectors = await provider.embed(['Forecasts rain and snow for any city.']);
 *   console.log(provider.id, vectors[0]?.length); // openai:text-embedding-3-small:512 512
 * } catch (error) {
 *   if (error instanceof EmbeddingError) console.error(error.status, error.message);
 * }
 * ```
 */
export function createOpenAIEmbeddingProvider(options: OpenAIEmbeddingOptions): EmbeddingProvider {
  const endpoint = `${options.baseUrl.replace(/\/+$/, '')}/embeddings`;
  const batchSize = Math.max(1, Math.floor(options.batchSize ?? 64));
  const timeoutMs = options.timeoutMs ?? 30_000;
  const doFetch = options.fetch ?? fetch;
  const id = options.dimensions ? `openai:${options.model}:${options.dimensions}` : `openai:${options.model}`;
  let dimensions = options.dimensions ?? 0;

  async function request(inputs: string[]): Promise<Float32Array[]> {
    const headers: Record<string, string> = {
      'content-type': 'application/json',
      accept: 'application/json',
    };
    if (options.apiKey) headers['authorization'] = `Bearer ${options.apiKey}`;
    const body: Record<string, unknown> = { model: options.model, input: inputs, encoding_format: 'float' };
    if (options.dimensions) body['dimensions'] = options.dimensions;
    let response: Response;
    try {
      response = await doFetch(endpoint, {
        method: 'POST',
        headers,
        body: JSON.stringify(body),
        signal: AbortSignal.timeout(timeoutMs),
      });
    } catch (error) {
      throw new EmbeddingError(
        `embedding request to ${endpoint} failed: ${messageOf(error)}`,
        id,
        undefined,
        {
          cause: error,
        },
      );
    }
    const text = await response.text();
    if (!response.ok) {
      throw new EmbeddingError(
        `embedding request to ${endpoint} failed: ${response.status} ${response.statusText}${detailOf(text)}`,
        id,
        response.status,
      );
    }
    return vectorsOf(parseResponse(text), inputs.length);
  }

  function parseResponse(text: string): EmbeddingsResponse {
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      throw new EmbeddingError(`${endpoint} answered with something that is not JSON`, id);
    }
    const data = (parsed as { data?: unknown } | null)?.data;
    if (!Array.isArray(data)) throw new EmbeddingError(`${endpoint} answered without a "data" array`, id);
    return { data: data as EmbeddingsResponse['data'] };
  }

  function vectorsOf(response: EmbeddingsResponse, expected: number): Float32Array[] {
    if (response.data.length !== expected) {
      throw new EmbeddingError(
        `${endpoint} returned ${response.data.length} embeddings for ${expected} inputs`,
        id,
      );
    }
    const vectors = new Array<Float32Array>(expected);
    response.data.forEach((item, position) => {
      const index = Number.isInteger(item?.index) ? item.index : position;
      const embedding = item?.embedding;
      if (!Array.isArray(embedding) || embedding.some((value) => typeof value !== 'number')) {
        throw new EmbeddingError(`${endpoint} returned an embedding that is not an array of numbers`, id);
      }
      if (index < 0 || index >= expected || vectors[index]) {
        throw new EmbeddingError(
          `${endpoint} returned an embedding with a wrong or repeated index ${index}`,
          id,
        );
      }
      if (dimensions === 0) dimensions = embedding.length;
      if (embedding.length !== dimensions) {
        throw new EmbeddingError(
          `${endpoint} returned ${embedding.length}-dimensional embeddings, expected ${dimensions}`,
          id,
        );
      }
      vectors[index] = Float32Array.from(embedding);
    });
    return vectors;
  }

  return {
    id,
    ...(options.similarityFloors === undefined ? {} : { similarityFloors: options.similarityFloors }),
    get dimensions(): number {
      return dimensions;
    },
    async embed(texts: readonly string[]): Promise<Float32Array[]> {
      const vectors: Float32Array[] = [];
      for (let start = 0; start < texts.length; start += batchSize) {
        // Some servers reject empty strings; a space embeds as "nothing" everywhere.
        const inputs = texts.slice(start, start + batchSize).map((text) => (text.trim() === '' ? ' ' : text));
        vectors.push(...(await request(inputs)));
      }
      return vectors;
    },
  };
}

/** The server's own explanation, from an OpenAI-style `{"error": {"message"}}` body or the start of the text. */
function detailOf(body: string): string {
  try {
    const message = (JSON.parse(body) as { error?: { message?: unknown } | string })?.error;
    const text = typeof message === 'string' ? message : message?.message;
    if (typeof text === 'string' && text !== '') return `: ${text}`;
  } catch {
    // not JSON: fall through to the raw text
  }
  const trimmed = body.trim().slice(0, 200);
  return trimmed === '' ? '' : `: ${trimmed}`;
}

function messageOf(error: unknown): string {
  if (error instanceof Error) {
    const cause = error.cause instanceof Error ? ` (${error.cause.message})` : '';
    return `${error.message}${cause}`;
  }
  return String(error);
}
