/** What the crawler says of a queued host: its row, counts and, in detail, its documents and agents. */
import type { CrawlAgentRow, CrawlDocumentRow, CrawlHostRow } from './tables.js';
import type { DocumentRecord } from './types.js';

export interface HostStatus {
  origin: string;
  addedBy: string;
  addedAt: string;
  state: 'idle' | 'claimed';
  nextDueAt: string;
  lastCrawledAt?: string;
  lastOutcome?: string;
  /** Crawls in a row that failed. */
  failures: number;
  lastError?: string;
  crawls: number;
  /** Active agents. */
  agents: number;
  /** Documents read (ok or not modified) at the last crawl. */
  documents: number;
}

export interface HostDetail extends HostStatus {
  documentRecords: Array<Omit<DocumentRecord, 'body' | 'fetched'> & { expiresAt: string }>;
  agentStates: Array<{
    agentId: string;
    state: CrawlAgentRow['state'];
    inactiveReason?: string;
    liveness?: { status: string; checkedAt?: string; lastSeenAt?: string; latencyMs?: number };
  }>;
}

export function hostStatus(row: CrawlHostRow, agents: number, documents: number): HostStatus {
  const status: HostStatus = {
    origin: row.origin,
    addedBy: row.added_by,
    addedAt: row.added_at,
    state: row.status,
    nextDueAt: row.next_due_at,
    failures: row.failures,
    crawls: row.crawls,
    agents,
    documents,
  };
  if (row.last_crawled_at !== null) status.lastCrawledAt = row.last_crawled_at;
  if (row.last_outcome !== null) status.lastOutcome = row.last_outcome;
  if (row.last_error !== null) status.lastError = row.last_error;
  return status;
}

/** A host in detail, from its row and its documents' and agents' rows. */
export function hostDetail(
  row: CrawlHostRow,
  documents: readonly CrawlDocumentRow[],
  agents: readonly CrawlAgentRow[],
): HostDetail {
  const read = documents.filter((document) => document.status === 'ok' || document.status === 'not-modified');
  return {
    ...hostStatus(row, agents.filter((agent) => agent.state === 'active').length, read.length),
    documentRecords: documents.map(documentDetail),
    agentStates: agents.map((agent) => ({
      agentId: agent.agent_id,
      state: agent.state,
      ...(agent.inactive_reason === null ? {} : { inactiveReason: agent.inactive_reason }),
      ...(agent.liveness_status === null
        ? {}
        : {
            liveness: {
              status: agent.liveness_status,
              ...(agent.liveness_checked_at === null ? {} : { checkedAt: agent.liveness_checked_at }),
              ...(agent.liveness_seen_at === null ? {} : { lastSeenAt: agent.liveness_seen_at }),
              ...(agent.liveness_latency_ms === null ? {} : { latencyMs: agent.liveness_latency_ms }),
            },
          }),
    })),
  };
}

function documentDetail(row: CrawlDocumentRow): HostDetail['documentRecords'][number] {
  const detail: HostDetail['documentRecords'][number] = {
    url: row.url,
    status: row.status as DocumentRecord['status'],
    fetchedAt: row.fetched_at,
    expiresAt: row.expires_at,
    origin: row.source === 'synthetic' ? 'synthetic' : 'native',
  };
  if (row.kind !== null) detail.kind = row.kind as NonNullable<DocumentRecord['kind']>;
  if (row.reason !== null) detail.reason = row.reason;
  if (row.http_status !== null) detail.httpStatus = row.http_status;
  if (row.etag !== null) detail.etag = row.etag;
  if (row.last_modified !== null) detail.lastModified = row.last_modified;
  if (row.lifetime_seconds !== null) detail.lifetimeSeconds = row.lifetime_seconds;
  if (row.linked_from !== null) detail.linkedFrom = row.linked_from;
  if (row.agent_ids !== null) detail.agentIds = JSON.parse(row.agent_ids) as string[];
  if (row.issues !== null) detail.issues = JSON.parse(row.issues) as string[];
  return detail;
}
