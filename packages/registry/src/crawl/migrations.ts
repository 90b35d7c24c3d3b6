/**
 * The crawler's tables, as Kysely migrations provided from code; their place among the registry's migrations is
 * set by the one ordered list in db/migrations.ts. Plain column types and no dialect-specific SQL, so the same
 * migrations run on PostgreSQL. Timestamps are ISO 8601 text (UTC), which sorts as time does.
 */

import type { Migration } from 'kysely';
import { type Kysely, sql } from 'kysely';

export const crawlMigrations: Record<string, Migration> = {
  '2026-11-21-200-crawl-queue': {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema
        .createTable('crawl_hosts')
        .addColumn('origin', 'text', (col) => col.primaryKey())
        .addColumn('added_by', 'text', (col) => col.notNull())
        .addColumn('added_at', 'text', (col) => col.notNull())
        // `idle` (waiting for next_due_at) or `claimed` (a crawler is on it until claimed_until).
        .addColumn('status', 'text', (col) => col.notNull())
        .addColumn('next_due_at', 'text', (col) => col.notNull())
        .addColumn('claimed_by', 'text')
        .addColumn('claimed_until', 'text')
        .addColumn('failures', 'integer', (col) => col.notNull().defaultTo(0))
        .addColumn('last_error', 'text')
        .addColumn('last_outcome', 'text')
        .addColumn('last_crawled_at', 'text')
        .addColumn('crawls', 'integer', (col) => col.notNull().defaultTo(0))
        .execute();
      // The scheduler asks "which hosts are due" in due order.
      await db.schema
        .createIndex('crawl_hosts_due')
        .on('crawl_hosts')
        .columns(['status', 'next_due_at'])
        .execute();

      await db.schema
        .createTable('crawl_documents')
        .addColumn('origin', 'text', (col) => col.notNull())
        .addColumn('url', 'text', (col) => col.notNull())
        .addColumn('kind', 'text')
        .addColumn('status', 'text', (col) => col.notNull())
        .addColumn('reason', 'text')
        .addColumn('http_status', 'integer')
        .addColumn('etag', 'text')
        .addColumn('last_modified', 'text')
        .addColumn('fetched_at', 'text', (col) => col.notNull())
        .addColumn('expires_at', 'text', (col) => col.notNull())
        .addColumn('lifetime_seconds', 'integer')
        .addColumn('source', 'text', (col) => col.notNull())
        .addColumn('linked_from', 'text')
        .addColumn('agent_ids', 'text')
        .addColumn('issues', 'text')
        .addColumn('body', 'text')
        .addPrimaryKeyConstraint('crawl_documents_pk', ['origin', 'url'])
        .execute();

      await db.schema
        .createTable('crawl_agents')
        .addColumn('origin', 'text', (col) => col.notNull())
        .addColumn('agent_id', 'text', (col) => col.notNull())
        // `active`, `inactive` (inactive_reason `missing` or `unreachable`) or `tombstoned`.
        .addColumn('state', 'text', (col) => col.notNull())
        .addColumn('inactive_reason', 'text')
        .addColumn('missing_count', 'integer', (col) => col.notNull().defaultTo(0))
        .addColumn('hash', 'text', (col) => col.notNull())
        .addColumn('crawled', 'text', (col) => col.notNull())
        .addColumn('first_seen_at', 'text', (col) => col.notNull())
        .addColumn('updated_at', 'text', (col) => col.notNull())
        .addColumn('liveness_status', 'text')
        .addColumn('liveness_checked_at', 'text')
        .addColumn('liveness_seen_at', 'text')
        .addColumn('liveness_latency_ms', 'integer')
        .addColumn('liveness_due_at', 'text')
        .addPrimaryKeyConstraint('crawl_agents_pk', ['origin', 'agent_id'])
        .execute();
    },
    async down(db: Kysely<unknown>): Promise<void> {
      await db.schema.dropTable('crawl_agents').execute();
      await db.schema.dropTable('crawl_documents').execute();
      await db.schema.dropTable('crawl_hosts').execute();
    },
  },
  // Hosts added together share a due time: with the origin in the index, "the next N due" is read in index order
  // and stops after N, instead of sorting every due host on each claim.
  '2026-11-21-201-crawl-due-order': {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema.dropIndex('crawl_hosts_due').execute();
      await db.schema
        .createIndex('crawl_hosts_due_order')
        .on('crawl_hosts')
        .columns(['status', 'next_due_at', 'origin'])
        .execute();
    },
    async down(db: Kysely<unknown>): Promise<void> {
      await db.schema.dropIndex('crawl_hosts_due_order').execute();
      await db.schema
        .createIndex('crawl_hosts_due')
        .on('crawl_hosts')
        .columns(['status', 'next_due_at'])
        .execute();
    },
  },
  // Bodies move to a table of their own, with a digest in the document row: an unchanged re-crawl rewrites the small
  // rows of the documents it revalidated and reads no body at all. Rows moved here have no digest yet: their next
  // crawl fetches them whole, once.
  '2026-11-21-202-crawl-bodies': {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema
        .createTable('crawl_bodies')
        .addColumn('origin', 'text', (col) => col.notNull())
        .addColumn('url', 'text', (col) => col.notNull())
        .addColumn('body', 'text', (col) => col.notNull())
        .addPrimaryKeyConstraint('crawl_bodies_pk', ['origin', 'url'])
        .execute();
      await sql`insert into crawl_bodies (origin, url, body)
        select origin, url, body from crawl_documents where body is not null`.execute(db);
      await db.schema.alterTable('crawl_documents').dropColumn('body').execute();
      await db.schema.alterTable('crawl_documents').addColumn('digest', 'text').execute();
    },
    async down(db: Kysely<unknown>): Promise<void> {
      await db.schema.alterTable('crawl_documents').dropColumn('digest').execute();
      await db.schema.alterTable('crawl_documents').addColumn('body', 'text').execute();
      await sql`update crawl_documents set body = (select body from crawl_bodies
        where crawl_bodies.origin = crawl_documents.origin and crawl_bodies.url = crawl_documents.url)`.execute(
        db,
      );
      await db.schema.dropTable('crawl_bodies').execute();
    },
  },
  // An unchanged origin's re-crawl records its revalidations in the host's row (one write per host), not in each
  // document's row; they are folded into the documents' rows at the next crawl that changes something.
  '2026-11-21-203-crawl-revalidated': {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema.alterTable('crawl_hosts').addColumn('revalidated', 'text').execute();
    },
    async down(db: Kysely<unknown>): Promise<void> {
      // The documents then look as they were before their revalidations: due again sooner, nothing lost.
      await db.schema.alterTable('crawl_hosts').dropColumn('revalidated').execute();
    },
  },
};
