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
export {
  type AgentSource,
  AI_CATALOG_MEDIA_TYPE,
  agentHash,
  type CrawlAgentRow,
  type CrawlDocumentRow,
  type CrawledAgent,
  type Crawler,
  type CrawlerOptions,
  type CrawlHostRow,
  type CrawlOriginOptions,
  type CrawlOutcome,
  type CrawlProgress,
  type CrawlSink,
  type CrawlSummary,
  type CrawlTables,
  crawlMigrations,
  crawlOrigin,
  createCrawler,
  type Description,
  DISCOVERY_PATHS,
  type DocumentKind,
  type DocumentRecord,
  type DocumentStatus,
  foreignClaims,
  freshnessLifetime,
  type HostDetail,
  type HostStatus,
  type IndexContents,
  isSameSite,
  type LivenessOptions,
  type LivenessResult,
  type Merged,
  mergeDescriptions,
  normalizeOrigin,
  OPENAPI_PATH,
  type OriginCrawl,
  originOf,
  type PreviousDocument,
  type PreviousDocuments,
  probeLiveness,
  type RunOptions,
  readAiCatalog,
  readWotDirectory,
  richness,
} from './crawl/index.js';
export { DatabaseUnavailableError, MigrationError, UnsupportedDatabaseError } from './db/index.js';
export {
  A2A_CARD_MEDIA_TYPE,
  type AgentryRegistryImport,
  AI_CATALOG_CONTENT_TYPE,
  type AiCatalogOptions,
  aiCatalog,
  detectRegistryKind,
  FEDERATION_KINDS,
  FederationError,
  type FederationKind,
  type FederationSink,
  type FederationSourcesTable,
  type FederationTables,
  federationMigrations,
  type ImportSummary,
  importAgentryRegistry,
  importMcpRegistry,
  importRegistry,
  type McpRegistryImport,
  OFFICIAL_META,
  type RegistryImport,
  type RegistryImportResult,
} from './federation/index.js';
export { crawledId, crawlOwner, createCrawlSink } from './ingest/crawl-sink.js';
export { preferredId } from './records/ids.js';
export { type Registration, type RegistrationRequest, readRegistration } from './records/registration.js';
export { searchDocumentOf } from './records/search-document.js';
export type {
  Caller,
  LivenessSignal,
  QualitySignals,
  RecordStatus,
  RegistryRecord,
  SafetyFlag,
} from './records/types.js';
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
export {
  GENERATOR,
  isOpenApi3,
  MAX_ACTIONS,
  openApiToAwp,
  type SyntheticOptions,
  type SyntheticSurface,
} from './synthetic/index.js';
