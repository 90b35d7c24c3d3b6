/**
 * The crawler's contracts: what one origin crawl finds (documents and agents with their provenance), and the sink
 * the crawler hands its results to. The registry implements `CrawlSink` over its store; the crawler knows nothing
 * of the store's tables.
 */
import type { Agent, FormatName } from '@agentry/core';

/**
 * What a discovery document was read as: one of core's formats, or one of the two index formats the crawler reads
 * itself (an AI Catalog, a WoT directory) or an OpenAPI document (the input of a synthetic surface).
 */
export type DocumentKind = FormatName | 'ai-catalog' | 'wot-directory' | 'openapi';

/**
 * - `ok`: fetched (200) and read; `not-modified`: a conditional request answered 304, the stored copy stands;
 * - `missing`: 404 or 410; `failed`: any other answer, a refusal, a timeout, an unreadable body;
 * - `skipped`: linked but not fetched (on another origin, or over the per-origin link limit).
 */
export type DocumentStatus = 'ok' | 'not-modified' | 'missing' | 'failed' | 'skipped';

/** One document of an origin, as the last crawl saw it. */
export interface DocumentRecord {
  url: string;
  /** Absent when the document was not read (missing, failed, skipped) or not recognised. */
  kind?: DocumentKind;
  status: DocumentStatus;
  /** Why a document failed or was skipped, in words a person can act on. */
  reason?: string;
  /** False when a stored copy still fresh was used without a request. */
  fetched: boolean;
  /** The HTTP status of the final answer, when there was one. */
  httpStatus?: number;
  etag?: string;
  lastModified?: string;
  /** ISO 8601. */
  fetchedAt: string;
  /** How long the answer may be reused, from its caching headers (seconds; 0 for no-store or no-cache). */
  lifetimeSeconds?: number;
  /** `synthetic` for an OpenAPI document an AWP surface was generated from. */
  origin: 'native' | 'synthetic';
  /** The document that linked to this one (agents.json, an AI Catalog, a WoT directory). */
  linkedFrom?: string;
  /** Errors core found in the document (the first few); its agents are still read as far as they go. */
  issues?: string[];
  /** The body as read, kept so that a later 304 can be read again without fetching it (ok answers only). */
  body?: string;
  /**
   * SHA-256 of the body (base64url): whether a document changed is told by it, so that the stored bodies are read
   * only when an origin changed and its documents must be read again.
   */
  digest?: string;
  /** Ids of the agents this document described, after merging (see docs/crawler.md). */
  agentIds?: string[];
}

/** Where one of a crawled agent's descriptions came from. */
export interface AgentSource {
  url: string;
  format: FormatName;
  origin: 'native' | 'synthetic';
  fetchedAt: string;
  etag?: string;
  lastModified?: string;
  /** The source the merged agent was built on (the richest description). */
  primary: boolean;
}

/** A crawled agent: the canonical agent merged from every document of the origin that describes it. */
export interface CrawledAgent {
  /** The agent's id within its origin; with the origin, the crawled agent's identity. */
  id: string;
  agent: Agent;
  /** Primary first, then the others in the order of the merge rule. */
  sources: AgentSource[];
  /** True when the only description is a synthetic one (generated from OpenAPI). */
  synthetic: boolean;
  /**
   * Other origins the description names as the agent's home (its `agent://` authority, the hosts of its
   * bindings). Kept for review; such agents are still stored under the origin that published them, never under
   * the origin they name.
   */
  foreignClaims: string[];
}

/** What a liveness probe saw. */
export interface LivenessResult {
  /** `up`: answered; `down`: refused, timed out or answered 5xx; `unknown`: nothing Agentry can probe. */
  status: 'up' | 'down' | 'unknown';
  /** Which binding was probed and how (`mcp initialize`, `a2a card`, `http HEAD`...). */
  probe: string;
  checkedAt: string;
  /** Set when status is `up`. */
  lastSeenAt?: string;
  latencyMs?: number;
  reason?: string;
}

/**
 * Where crawl results go. Every call is idempotent: a crawl interrupted after a call and run again repeats it
 * with the same arguments. `upsertCrawled` receives new or changed agents only (an unchanged re-crawl calls
 * nothing); absent agents are reported through `markInactive` and, after repeated misses, `tombstone`.
 */
export interface CrawlSink {
  upsertCrawled(origin: string, agents: readonly CrawledAgent[]): Promise<void>;
  /** The agents' documents disappeared or their origin stopped answering; they may come back. */
  markInactive(origin: string, agentIds: readonly string[]): Promise<void>;
  /** Gone for good (missing or failing `failureThreshold` crawls in a row). */
  tombstone(origin: string, agentIds: readonly string[]): Promise<void>;
  recordLiveness(origin: string, agentId: string, result: LivenessResult): Promise<void>;
}

/** The validators and bodies of the last crawl, by URL, for conditional requests. */
export type PreviousDocuments = ReadonlyMap<string, PreviousDocument>;

/**
 * A document as the last crawl recorded it. A stored copy is a `body`, or only its `digest` when the body is left
 * in storage until it is needed (`CrawlOriginOptions.loadBodies`).
 */
export interface PreviousDocument extends Partial<Omit<DocumentRecord, 'url' | 'fetched'>> {
  /** ISO 8601: when the stored copy stops being fresh. Fresh documents are not fetched when only due ones are. */
  expiresAt?: string;
}

/** The result of crawling one origin. */
export interface OriginCrawl {
  origin: string;
  startedAt: string;
  finishedAt: string;
  documents: DocumentRecord[];
  agents: CrawledAgent[];
  /**
   * True when no document changed since `previous` (every one fetched was 304, or missing as before): the agents
   * are the same as last time.
   */
  unchanged: boolean;
  /** True when the origin answered nothing at all (every document failed). */
  unreachable: boolean;
  /** Origins other documents linked to (not followed). */
  discovered: string[];
  /** What the per-origin limits left out: agents past `maxAgents`, linked documents past `maxDocuments`. */
  dropped?: { agents: number; documents: number };
}
