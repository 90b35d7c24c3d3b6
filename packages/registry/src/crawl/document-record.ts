/**
 * Every document record made in one shape: all its fields, in one order, those it lacks undefined. A crawl makes
 * one per document it asks for and reads them in several places (whether anything changed, the rows it writes);
 * records built field by field in different orders took on a dozen shapes, and every one of those reads then went
 * through V8's slowest lookups (a re-crawl spent more time there than in its own work on each record).
 */
import type { DocumentRecord } from './types.js';

type Required = Pick<DocumentRecord, 'url' | 'status' | 'fetched' | 'fetchedAt' | 'origin'>;

export function documentRecord(fields: Required & Partial<DocumentRecord>): DocumentRecord {
  return {
    url: fields.url,
    kind: fields.kind,
    status: fields.status,
    reason: fields.reason,
    fetched: fields.fetched,
    httpStatus: fields.httpStatus,
    etag: fields.etag,
    lastModified: fields.lastModified,
    fetchedAt: fields.fetchedAt,
    lifetimeSeconds: fields.lifetimeSeconds,
    origin: fields.origin,
    linkedFrom: fields.linkedFrom,
    issues: fields.issues,
    body: fields.body,
    digest: fields.digest,
    agentIds: fields.agentIds,
  };
}
