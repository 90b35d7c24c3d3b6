/**
 * @agentry/registry: `createRegistry` and `serveRegistry`, what configures them, the types of what they hand back
 * (records, the store, tokens), the rate-limit stores and the errors. Internals (store rows, token hashing, the
 * crawl and federation tables, migration lists, record views) are not exported; the crawler, which has runtime
 * needs of its own, is `@agentry/registry/crawler`.
 */
export {
  DEFAULT_RATE_LIMITS,
  type RateClass,
  RateLimiter,
  type RateLimitRule,
  type RateLimits,
  type RateVerdict,
} from './access/rate-limit.js';
export {
  type BucketRule,
  type BucketVerdict,
  createRateLimitStore,
  MemoryRateLimitStore,
  type RateLimitStore,
  type RateLimitStoreContext,
  type RateLimitStoreOptions,
} from './access/rate-limit-store.js';
export type { ConnectionInfo } from './api/context.js';
export { PROBLEM_MEDIA_TYPE } from './api/problems.js';
export {
  adminTokenFromEnv,
  type EmbeddingProviderSettings,
  type EnvSettings,
  embeddingOptionsFor,
  limitOrNone,
  settingsFromEnv,
} from './config.js';
export {
  type CopyProgress,
  DatabaseCopyError,
  DatabaseUnavailableError,
  MigrationError,
  TargetNotEmptyError,
  UnsupportedDatabaseError,
} from './db/index.js';
export {
  type AgentryRegistryImport,
  FEDERATION_KINDS,
  FederationError,
  type FederationKind,
  type ImportSummary,
  type McpRegistryImport,
  OFFICIAL_META,
  type RegistryImport,
  type RegistryImportResult,
} from './federation/index.js';
export { AgentLoadConflictError, type LoadAgentsOptions, loadAgents } from './load-agents.js';
export {
  type MoveRegistryOptions,
  type MoveRegistryResult,
  moveRegistryDatabase,
} from './move-database.js';
export type {
  Caller,
  LivenessSignal,
  QualitySignals,
  RecordStatus,
  RegistryRecord,
  SafetyFlag,
} from './records/types.js';
export {
  createRegistry,
  isPostgresDatabase,
  isRegistryDatabase,
  openRegistryStore,
  REGISTRY_VERSION,
  type Registry,
  type RegistryCrawlOptions,
  type RegistryOptions,
  type ServedRegistry,
  type ServeOptions,
  serveRegistry,
} from './registry.js';
export { scanAgentText } from './safety/index.js';
export {
  chosenUseLiteEngine,
  EMBEDDING_PROVIDER_KINDS,
  type EmbeddingProviderKind,
  type OpenAIEmbeddingOptions,
  USE_LITE_ENGINES,
  type UseLiteEngine,
  type UseLiteOptions,
} from './search/index.js';
export { tuneHeapForServing } from './serving-heap.js';
export type { HistoryEntry, RecordDraft } from './store/agents.js';
export type { AuditEntry } from './store/audit.js';
export type { AgentFilters } from './store/filters.js';
export { RegistryStore, type StoreOptions } from './store/store.js';
export { ACCESS_NAME, type TokenInfo } from './store/tokens.js';
