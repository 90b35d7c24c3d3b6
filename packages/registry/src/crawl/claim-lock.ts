/**
 * How a claim keeps crawlers that share one database off one host, chosen by dialect in this one place. On
 * PostgreSQL, where several replicas crawl one queue, the rows a claim reads are locked `FOR UPDATE SKIP LOCKED`:
 * two claims running at once take different hosts, neither waits for the other, and a row another claim changed
 * meanwhile is read again and left out when it no longer matches (claimed by then). On SQLite the write
 * transactions of a database run one at a time, so a claim reads its rows as they are. A completion reads its hosts'
 * claims `FOR UPDATE` (waiting, not skipping): no claim can change hands between its check and its write.
 */
import { type Kysely, PostgresAdapter, type SelectQueryBuilder } from 'kysely';

/** Marks a claim's query so that the rows it reads are its own until the claim's transaction ends. */
export type ClaimRowLock = <DB, TB extends keyof DB, O>(
  query: SelectQueryBuilder<DB, TB, O>,
) => SelectQueryBuilder<DB, TB, O>;

export function claimRowLock<DB>(db: Kysely<DB>): ClaimRowLock {
  if (db.getExecutor().adapter instanceof PostgresAdapter) return (query) => query.forUpdate().skipLocked();
  return (query) => query;
}

/** Marks a completion's read of its hosts' claims so that no claim changes hands until its transaction ends. */
export function completionRowLock<DB>(db: Kysely<DB>): ClaimRowLock {
  if (db.getExecutor().adapter instanceof PostgresAdapter) return (query) => query.forUpdate();
  return (query) => query;
}
