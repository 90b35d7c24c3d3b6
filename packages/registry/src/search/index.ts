/**
 * The registry's search: lexical (BM25) and semantic (embedding) rankings fused. The embedding providers come from
 * @agentry/embeddings; what the registry's own modules use of them is named here.
 */
export {
  chosenUseLiteEngine,
  createEmbeddingProvider,
  EMBEDDING_PROVIDER_KINDS,
  type EmbeddingProvider,
  type EmbeddingProviderKind,
  type OpenAIEmbeddingOptions,
  USE_LITE_ENGINES,
  type UseLiteEngine,
  type UseLiteOptions,
} from '@agentry/embeddings';
export { DEFAULT_FIELD_WEIGHTS, type FieldWeights } from './lexical/fields.js';
export { type LexicalQuery, parseLexicalQuery, type QueryClause } from './lexical/query.js';
export { createSqliteLexicalIndex, fts5Expression, type LexicalTables } from './lexical/sqlite.js';
export type { LexicalField, LexicalFields, LexicalIndex, LexicalMatch } from './lexical/types.js';
export { searchMigrations } from './migrations.js';
export { createSearchIndex, MAX_TOP, type SearchIndexOptions } from './search-index.js';
export type { SearchTables, SearchVectorsTable } from './tables.js';
export type {
  Demotion,
  EmbedPendingOptions,
  SearchDocument,
  SearchHit,
  SearchIndex,
  SearchIndexStats,
  SearchMode,
  SearchOperation,
  SearchOptions,
} from './types.js';
