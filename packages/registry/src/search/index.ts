/** The registry's search: lexical (BM25) and semantic (embedding) rankings fused, and the embedding providers. */
export {
  createEmbeddingProvider,
  EMBEDDING_PROVIDER_KINDS,
  type EmbeddingProviderKind,
} from './embeddings/create.js';
export { EmbeddingError } from './embeddings/errors.js';
export { createOpenAIEmbeddingProvider, type OpenAIEmbeddingOptions } from './embeddings/openai.js';
export { createUseLiteProvider, USE_LITE_ID, type UseLiteOptions } from './embeddings/use-lite.js';
export { chosenUseLiteEngine, USE_LITE_ENGINES, type UseLiteEngine } from './embeddings/use-lite-model.js';
export { type LexicalQuery, parseLexicalQuery, type QueryClause } from './lexical/query.js';
export {
  createSqliteLexicalIndex,
  DEFAULT_FIELD_WEIGHTS,
  type FieldWeights,
  fts5Expression,
  type LexicalTables,
} from './lexical/sqlite.js';
export type { LexicalField, LexicalFields, LexicalIndex, LexicalMatch } from './lexical/types.js';
export { searchMigrations } from './migrations.js';
export { createSearchIndex, MAX_TOP, type SearchIndexOptions } from './search-index.js';
export type { SearchTables, SearchVectorsTable } from './tables.js';
export type * from './types.js';
