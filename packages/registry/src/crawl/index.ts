export { agentHash } from './agent-hash.js';
export { freshnessLifetime } from './cache-lifetime.js';
export {
  AI_CATALOG_MEDIA_TYPE,
  type IndexContents,
  readAiCatalog,
  readWotDirectory,
} from './index-documents.js';
export { type LivenessOptions, probeLiveness } from './liveness.js';
export { type Description, foreignClaims, type Merged, mergeDescriptions, richness } from './merge.js';
export { crawlMigrations } from './migrations.js';
export { type CrawlOriginOptions, crawlOrigin } from './origin.js';
export { isSameSite, normalizeOrigin, originOf } from './origins.js';
export { DISCOVERY_PATHS, OPENAPI_PATH } from './paths.js';
export {
  type Crawler,
  type CrawlerOptions,
  type CrawlOutcome,
  type CrawlProgress,
  type CrawlSummary,
  createCrawler,
  type HostDetail,
  type HostStatus,
  type RunOptions,
} from './scheduler.js';
export type { CrawlAgentRow, CrawlDocumentRow, CrawlHostRow, CrawlTables } from './tables.js';
export type {
  AgentSource,
  CrawledAgent,
  CrawlSink,
  DocumentKind,
  DocumentRecord,
  DocumentStatus,
  LivenessResult,
  OriginCrawl,
  PreviousDocument,
  PreviousDocuments,
} from './types.js';
