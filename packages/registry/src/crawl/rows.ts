/**
 * The crawl's rows as plain data: what a claim reads of a host's last crawls (`HostSnapshot`), what a finished crawl
 * writes (`Completion`), and the conversions between documents and their rows. No I/O: the queue reads and writes
 * these, the planner makes them.
 */
import type { CrawlAgentRow, CrawlBodyRow, CrawlDocumentRow, CrawlHostRow, Revalidation } from './tables.js';
import type { DocumentKind, DocumentRecord, DocumentStatus, PreviousDocument } from './types.js';

/** A host taken by `claim`. */
export interface ClaimedHost {
  origin: string;
  failures: number;
}

/** A crawled agent's row without the agent itself, which a crawl needs only for agents coming back. */
export type AgentState = Omit<CrawlAgentRow, 'crawled'>;

/** What a host's last crawls left, read at once for a whole claim. */
export interface HostSnapshot {
  /** The documents, their revalidations included. */
  previous: Map<string, PreviousDocument>;
  agents: AgentState[];
  /** The revalidations not yet written to the documents' rows (the host's `revalidated`), by URL. */
  revalidated: Revalidations;
  /** The documents' rows as stored, revalidations left out. */
  stored: Map<string, CrawlDocumentRow>;
}

export function emptySnapshot(): HostSnapshot {
  return { previous: new Map(), agents: [], revalidated: new Map(), stored: new Map() };
}

export type Revalidations = Map<string, Revalidation>;

export interface Completion {
  origin: string;
  /** Every document of the crawl (replacing the stored set), or, for an unchanged origin, updates in place. */
  documents?: CrawlDocumentRow[];
  /** With `documents`: the bodies to keep (replacing the stored ones). */
  bodies?: CrawlBodyRow[];
  /**
   * The documents an unchanged origin's crawl asked for again whose rows are written in place (validators, due
   * times), when the host's `revalidated` cannot stand in for them.
   */
  documentUpdates?: CrawlDocumentRow[];
  agentUpserts: CrawlAgentRow[];
  agentStates: Array<{
    agentId: string;
    state: CrawlAgentRow['state'];
    inactiveReason: CrawlAgentRow['inactive_reason'];
    missingCount: number;
  }>;
  host: Pick<
    CrawlHostRow,
    'next_due_at' | 'failures' | 'last_error' | 'last_outcome' | 'last_crawled_at' | 'revalidated'
  >;
}

export function documentRow(origin: string, record: DocumentRecord, expiresAt: string): CrawlDocumentRow {
  return {
    origin,
    url: record.url,
    kind: record.kind ?? null,
    status: record.status,
    reason: record.reason ?? null,
    http_status: record.httpStatus ?? null,
    etag: record.etag ?? null,
    last_modified: record.lastModified ?? null,
    fetched_at: record.fetchedAt,
    expires_at: expiresAt,
    lifetime_seconds: record.lifetimeSeconds ?? null,
    source: record.origin,
    linked_from: record.linkedFrom ?? null,
    agent_ids: record.agentIds === undefined ? null : JSON.stringify(record.agentIds),
    issues: record.issues === undefined ? null : JSON.stringify(record.issues),
    digest: record.digest ?? null,
  };
}

/** The body row of a document that has a body to keep. */
export function bodyRow(origin: string, record: DocumentRecord): CrawlBodyRow | undefined {
  return record.body === undefined ? undefined : { origin, url: record.url, body: record.body };
}

/**
 * The host's `revalidated` after `rows` were revalidated (each replacing what an earlier revalidation said of its
 * document), less the documents in `written` (their rows were written): JSON, or null when there is none.
 */
export function revalidationsAfter(
  before: Revalidations,
  rows: readonly CrawlDocumentRow[],
  written: readonly CrawlDocumentRow[] = [],
): string | null {
  const revalidated = new Map(before);
  for (const row of written) revalidated.delete(row.url);
  for (const row of rows) {
    revalidated.set(row.url, [
      row.url,
      row.status,
      row.reason,
      row.http_status,
      row.etag,
      row.last_modified,
      row.fetched_at,
      row.expires_at,
      row.lifetime_seconds,
    ]);
  }
  return revalidated.size === 0 ? null : JSON.stringify([...revalidated.values()]);
}

export function revalidationsOf(json: string | null): Revalidations {
  const revalidations: Revalidations = new Map();
  if (json !== null)
    for (const entry of JSON.parse(json) as Revalidation[]) revalidations.set(entry[0], entry);
  return revalidations;
}

/** A document's row as its last revalidation left it. */
export function withRevalidation(
  row: CrawlDocumentRow,
  revalidation: Revalidation | undefined,
): CrawlDocumentRow {
  if (revalidation === undefined) return row;
  const [, status, reason, http_status, etag, last_modified, fetched_at, expires_at, lifetime_seconds] =
    revalidation;
  return {
    ...row,
    status,
    reason,
    http_status,
    etag,
    last_modified,
    fetched_at,
    expires_at,
    lifetime_seconds,
  };
}

/** A stored document as the next crawl's `previous`. */
export function previousOf(row: CrawlDocumentRow): PreviousDocument {
  // A document read before bodies had digests (migration 202) is due at once: it is fetched whole, and from then on
  // compared by its digest.
  const undigested = row.digest === null && (row.status === 'ok' || row.status === 'not-modified');
  const previous: PreviousDocument = {
    status: row.status as DocumentStatus,
    fetchedAt: row.fetched_at,
    expiresAt: undigested ? new Date(0).toISOString() : row.expires_at,
    origin: row.source === 'synthetic' ? 'synthetic' : 'native',
  };
  if (row.kind !== null) previous.kind = row.kind as DocumentKind;
  if (row.reason !== null) previous.reason = row.reason;
  if (row.http_status !== null) previous.httpStatus = row.http_status;
  if (row.etag !== null) previous.etag = row.etag;
  if (row.last_modified !== null) previous.lastModified = row.last_modified;
  if (row.lifetime_seconds !== null) previous.lifetimeSeconds = row.lifetime_seconds;
  if (row.linked_from !== null) previous.linkedFrom = row.linked_from;
  if (row.agent_ids !== null) previous.agentIds = JSON.parse(row.agent_ids) as string[];
  if (row.issues !== null) previous.issues = JSON.parse(row.issues) as string[];
  if (row.digest !== null) previous.digest = row.digest;
  return previous;
}
