/** Row types of the crawler's tables (migrations.ts), for Kysely; part of the registry's `Database` (db/). */

export interface CrawlHostRow {
  origin: string;
  added_by: string;
  added_at: string;
  status: 'idle' | 'claimed';
  next_due_at: string;
  claimed_by: string | null;
  claimed_until: string | null;
  failures: number;
  last_error: string | null;
  last_outcome: string | null;
  last_crawled_at: string | null;
  crawls: number;
  /**
   * JSON: the documents revalidated (304, or the same body again) since their rows were last written, an array of
   * `Revalidation`s. An unchanged origin's crawl rewrites this one row, not its documents' rows.
   */
  revalidated: string | null;
}

export interface CrawlDocumentRow {
  origin: string;
  url: string;
  kind: string | null;
  status: string;
  reason: string | null;
  http_status: number | null;
  etag: string | null;
  last_modified: string | null;
  fetched_at: string;
  expires_at: string;
  lifetime_seconds: number | null;
  source: string;
  linked_from: string | null;
  /** JSON array of agent ids. */
  agent_ids: string | null;
  /** JSON array of messages. */
  issues: string | null;
  /** SHA-256 of the stored body (crawl_bodies), base64url. */
  digest: string | null;
}

/** The last body of a document, apart from its row: a re-crawl rewrites the row, and reads the body only if needed. */
export interface CrawlBodyRow {
  origin: string;
  url: string;
  body: string;
}

export interface CrawlAgentRow {
  origin: string;
  agent_id: string;
  state: 'active' | 'inactive' | 'tombstoned';
  inactive_reason: 'missing' | 'unreachable' | null;
  missing_count: number;
  hash: string;
  /** The CrawledAgent, JSON. */
  crawled: string;
  first_seen_at: string;
  updated_at: string;
  liveness_status: string | null;
  liveness_checked_at: string | null;
  liveness_seen_at: string | null;
  liveness_latency_ms: number | null;
  liveness_due_at: string | null;
}

/** The crawler's tables; the registry's `Database` (db/database.ts) includes these. */
export interface CrawlTables {
  crawl_hosts: CrawlHostRow;
  crawl_documents: CrawlDocumentRow;
  crawl_bodies: CrawlBodyRow;
  crawl_agents: CrawlAgentRow;
}

/**
 * What a revalidation left in a document's row, as a tuple (JSON arrays are cheaper to write and read than objects
 * with names): URL, status, reason, HTTP status, ETag, Last-Modified, fetched at, expires at, lifetime.
 */
export type Revalidation = [
  url: string,
  status: string,
  reason: string | null,
  httpStatus: number | null,
  etag: string | null,
  lastModified: string | null,
  fetchedAt: string,
  expiresAt: string,
  lifetimeSeconds: number | null,
];
