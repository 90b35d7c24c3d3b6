/**
 * `@agentry/registry/crawler`: the crawler on its own, for a program that crawls into a registry's database (or a
 * sink of its own) apart from the registry that serves it. An entry of its own because the crawler has needs the
 * rest of a registry does not: it fetches from the network (a `SecureFetcher`), keeps a queue with leases in the
 * database and runs a pool of workers in the background. A registry made by `createRegistry` already has one
 * (`registry.crawler`, writing through `registry.crawlSink`); this entry names its types and makes others.
 */
export { type CrawlOriginOptions, crawlOrigin } from './crawl/origin.js';
export { normalizeOrigin } from './crawl/origins.js';
export { DISCOVERY_PATHS, OPENAPI_PATH } from './crawl/paths.js';
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
} from './crawl/scheduler.js';
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
} from './crawl/types.js';
export { crawledId, crawlOwner } from './records/ids.js';
