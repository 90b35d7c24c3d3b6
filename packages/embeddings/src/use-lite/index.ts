/**
 * `@agentry/embeddings/use-lite`: the USE-lite model below its provider, for benchmarks and tools that compare its
 * engines or check its parts: loading an engine, the tokenizer, the weights and the native kernels. A search needs
 * none of it: `createUseLiteProvider` from `@agentry/embeddings` runs the model in worker threads.
 */
export {
  type FloatKernel,
  loadNativeKernels,
  type NativeKernels,
  PANEL,
  packColumns,
} from './native-kernels.js';
export type { UseLitePrecision } from './use-lite-encoder.js';
export {
  chosenUseLiteEngine,
  embedWithModel,
  loadUseLiteModel,
  USE_LITE_ENGINES,
  type UseLiteEngine,
  type UseLiteModel,
} from './use-lite-model.js';
export { UseLiteTokenizer, type UseLiteVocabulary } from './use-lite-tokenizer.js';
export { readUseLiteFiles, type Tensor, type UseLiteFiles, useLiteModelFolder } from './use-lite-weights.js';
