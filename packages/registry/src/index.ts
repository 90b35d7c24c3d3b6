export { ANONYMOUS, actorOf, callerOf } from './access/callers.js';
export { canSee, writeAccess } from './access/entitlements.js';
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
export * from './crawl/index.js';
export { DatabaseUnavailableError, MigrationError, UnsupportedDatabaseError } from './db/index.js';
export * from './federation/index.js';
export { crawledId, crawlOwner, createCrawlSink } from './ingest/crawl-sink.js';
export { preferredId } from './records/ids.js';
export { type Registration, type RegistrationRequest, readRegistration } from './records/registration.js';
export { searchDocumentOf } from './records/search-document.js';
export type * from './records/types.js';
export { formatView, metadataView, storedMetadata, summaryView } from './records/views.js';
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
export type { HistoryEntry, RecordDraft } from './store/agents.js';
export type { AuditEntry } from './store/audit.js';
export type { AgentFilters } from './store/filters.js';
export { RegistryStore, type StoreOptions } from './store/store.js';
export { ACCESS_NAME, hashToken, type TokenInfo } from './store/tokens.js';
export * from './synthetic/index.js';
