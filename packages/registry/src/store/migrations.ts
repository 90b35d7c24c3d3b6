/**
 * The store's schema, as versioned Kysely migrations provided from code (no migration files to ship); their place
 * among the registry's migrations is set by the one ordered list in db/migrations.ts. Applied migrations are never
 * edited; a change is a new one.
 */
import type { Agent } from '@agentry/core';
import { type Kysely, type Migration, sql } from 'kysely';
import type { Database } from '../db/database.js';
import type { DatabaseDialect } from '../db/dialect.js';
import { hasVerifiedProvenance } from '../records/provenance-trust.js';
import { statusOf } from '../records/status.js';
import type { QualitySignals } from '../records/types.js';
import { createAgentChangeLog } from './agent-changes.js';
import { forEachAgentPage } from './agent-pages.js';
import { authValues, transportValues } from './call-values.js';
import { createIdentityTables, mergeDuplicateEntries } from './identity-migration.js';

export function storeMigrations(dialect: DatabaseDialect): Record<string, Migration> {
  return {
    '2026-11-21-001-agents': {
      async up(db: Kysely<unknown>): Promise<void> {
        await db.schema
          .createTable('agents')
          .addColumn('id', 'text', (col) => col.primaryKey())
          .addColumn('owner', 'text', (col) => col.notNull())
          .addColumn('name', 'text', (col) => col.notNull())
          .addColumn('canonical', 'text', (col) => col.notNull())
          .addColumn('metadata', 'text', (col) => col.notNull())
          .addColumn('source_format', 'text', (col) => col.notNull())
          .addColumn('status', 'text', (col) => col.notNull())
          .addColumn('revision', 'integer', (col) => col.notNull())
          .addColumn('restricted', 'integer', (col) => col.notNull().defaultTo(0))
          .addColumn('access_groups', 'text')
          .addColumn('flagged', 'integer', (col) => col.notNull().defaultTo(0))
          .addColumn('flags', 'text', (col) => col.notNull())
          .addColumn('quality', 'text', (col) => col.notNull())
          .addColumn('latency_samples', 'text', (col) => col.notNull())
          .addColumn('created_at', 'text', (col) => col.notNull())
          .addColumn('updated_at', 'text', (col) => col.notNull())
          .execute();
        await db.schema.createIndex('agents_owner').on('agents').column('owner').execute();
        await db.schema.createIndex('agents_updated').on('agents').columns(['updated_at', 'id']).execute();
        await db.schema.createIndex('agents_status').on('agents').columns(['status', 'id']).execute();

        for (const table of ['agent_tags', 'agent_capabilities', 'agent_languages']) {
          await db.schema
            .createTable(table)
            .addColumn('agent_id', 'text', (col) => col.notNull().references('agents.id').onDelete('cascade'))
            .addColumn('value', 'text', (col) => col.notNull())
            .addPrimaryKeyConstraint(`${table}_pk`, ['agent_id', 'value'])
            .execute();
          // The filter asks "which agents have this value": value first.
          await db.schema.createIndex(`${table}_value`).on(table).columns(['value', 'agent_id']).execute();
        }

        await db.schema
          .createTable('agent_access')
          .addColumn('agent_id', 'text', (col) => col.notNull())
          .addColumn('group_name', 'text', (col) => col.notNull())
          .addPrimaryKeyConstraint('agent_access_pk', ['agent_id', 'group_name'])
          .execute();
        await db.schema
          .createIndex('agent_access_group')
          .on('agent_access')
          .columns(['group_name', 'agent_id'])
          .execute();
      },
    },
    '2026-11-21-002-history': {
      async up(db: Kysely<unknown>): Promise<void> {
        await db.schema
          .createTable('agent_history')
          .addColumn('seq', 'integer', (col) => dialect.identity(col))
          .addColumn('agent_id', 'text', (col) => col.notNull())
          .addColumn('revision', 'integer', (col) => col.notNull())
          .addColumn('action', 'text', (col) => col.notNull())
          .addColumn('actor', 'text', (col) => col.notNull())
          .addColumn('at', 'text', (col) => col.notNull())
          .addColumn('record', 'text')
          .execute();
        await db.schema
          .createIndex('agent_history_agent')
          .on('agent_history')
          .columns(['agent_id', 'seq'])
          .execute();

        await db.schema
          .createTable('tombstones')
          .addColumn('agent_id', 'text', (col) => col.primaryKey())
          .addColumn('owner', 'text', (col) => col.notNull())
          .addColumn('restricted', 'integer', (col) => col.notNull().defaultTo(0))
          .addColumn('deleted_at', 'text', (col) => col.notNull())
          .execute();
        await db.schema
          .createIndex('tombstones_deleted')
          .on('tombstones')
          .columns(['deleted_at', 'agent_id'])
          .execute();
      },
    },
    '2026-11-21-003-access': {
      async up(db: Kysely<unknown>): Promise<void> {
        await db.schema
          .createTable('tokens')
          .addColumn('id', 'text', (col) => col.primaryKey())
          .addColumn('token_hash', 'text', (col) => col.notNull().unique())
          .addColumn('role', 'text', (col) => col.notNull())
          .addColumn('publisher', 'text')
          .addColumn('groups', 'text', (col) => col.notNull())
          .addColumn('created_at', 'text', (col) => col.notNull())
          .addColumn('revoked_at', 'text')
          .execute();

        await db.schema
          .createTable('audit_log')
          .addColumn('seq', 'integer', (col) => dialect.identity(col))
          .addColumn('at', 'text', (col) => col.notNull())
          .addColumn('actor', 'text', (col) => col.notNull())
          .addColumn('action', 'text', (col) => col.notNull())
          .addColumn('target', 'text', (col) => col.notNull())
          .addColumn('details', 'text', (col) => col.notNull())
          .execute();
        await db.schema.createIndex('audit_log_target').on('audit_log').columns(['target', 'seq']).execute();

        await db.schema
          .createTable('feedback')
          .addColumn('seq', 'integer', (col) => dialect.identity(col))
          .addColumn('agent_id', 'text', (col) => col.notNull().references('agents.id').onDelete('cascade'))
          .addColumn('rating', 'integer', (col) => col.notNull())
          .addColumn('outcome', 'text', (col) => col.notNull())
          .addColumn('comment', 'text')
          .addColumn('actor', 'text', (col) => col.notNull())
          .addColumn('at', 'text', (col) => col.notNull())
          .execute();
        await db.schema.createIndex('feedback_agent').on('feedback').columns(['agent_id', 'seq']).execute();
      },
    },
    '2026-11-22-001-agents-restricted': {
      // "Is any agent restricted?" decides whether a search must be given its candidates; without an index the
      // answer (usually no) cost a scan of every agent on every search. Partial, over the restricted rows only: a
      // whole-column index lured the planner into reading every public agent through it for `restricted = 0`.
      async up(db: Kysely<unknown>): Promise<void> {
        await db.schema
          .createIndex('agents_restricted')
          .on('agents')
          .column('id')
          .where(sql.ref('restricted'), '=', 1)
          .execute();
      },
    },
    '2026-11-27-001-verified-provenance': {
      // `verified` first meant "not synthetic", which every registered description is; it now means vouched for
      // by the agent's side (records/provenance-trust.ts). Stored agents are re-judged, a page at a time.
      async up(db: Kysely<Database>): Promise<void> {
        await forEachAgentPage(db, async (rows) => {
          for (const row of rows) {
            const quality = JSON.parse(row.quality) as QualitySignals;
            const verified = hasVerifiedProvenance(JSON.parse(row.canonical) as Agent);
            if (quality.verified === verified) continue;
            await db
              .updateTable('agents')
              .set({ quality: JSON.stringify({ ...quality, verified }) })
              .where('id', '=', row.id)
              .execute();
          }
        });
      },
    },
    '2026-11-27-002-status-words': {
      // Status was kept only when it was one of four words, and any other (AIDIP's `status` is a free string:
      // `maintenance`) was stored as `active`. Stored agents get their own word back, a page at a time.
      async up(db: Kysely<Database>): Promise<void> {
        await forEachAgentPage(db, async (rows) => {
          for (const row of rows) {
            const status = statusOf(JSON.parse(row.canonical) as Agent);
            if (status === row.status) continue;
            await db.updateTable('agents').set({ status }).where('id', '=', row.id).execute();
          }
        });
      },
    },
    '2026-11-28-010-agent-transports-auth': {
      // The transport and auth facets (store/call-values.ts): two value tables like the tags', filled for the
      // stored agents a page at a time.
      async up(db: Kysely<Database>): Promise<void> {
        for (const table of ['agent_transports', 'agent_auth_kinds'] as const) {
          await db.schema
            .createTable(table)
            .addColumn('agent_id', 'text', (col) => col.notNull().references('agents.id').onDelete('cascade'))
            .addColumn('value', 'text', (col) => col.notNull())
            .addPrimaryKeyConstraint(`${table}_pk`, ['agent_id', 'value'])
            .execute();
          await db.schema.createIndex(`${table}_value`).on(table).columns(['value', 'agent_id']).execute();
        }
        await forEachAgentPage(db, async (rows) => {
          const transports: Array<{ agent_id: string; value: string }> = [];
          const auth: Array<{ agent_id: string; value: string }> = [];
          for (const row of rows) {
            const agent = JSON.parse(row.canonical) as Agent;
            const lower = (values: string[]) => [...new Set(values.map((value) => value.toLowerCase()))];
            for (const value of lower(transportValues(agent))) transports.push({ agent_id: row.id, value });
            for (const value of lower(authValues(agent))) auth.push({ agent_id: row.id, value });
          }
          // 500 rows (1,000 bound values) a statement, whatever an agent lists.
          for (let start = 0; start < transports.length; start += 500)
            await db
              .insertInto('agent_transports')
              .values(transports.slice(start, start + 500))
              .execute();
          for (let start = 0; start < auth.length; start += 500)
            await db
              .insertInto('agent_auth_kinds')
              .values(auth.slice(start, start + 500))
              .execute();
        });
      },
    },
    '2026-11-28-011-agent-sources-facet-indexes': {
      // The source and format facets and filters: counting within a scope reads (agent_id, arrival, format) from
      // an index instead of each source's row, whose documents make it large (measured at 100,000 agents: a count
      // within every agent 2.2 s before, 0.4 s after); filtering by them finds the agents through the index.
      async up(db: Kysely<unknown>): Promise<void> {
        await db.schema
          .createIndex('agent_sources_agent_arrival_format')
          .on('agent_sources')
          .columns(['agent_id', 'arrival', 'format'])
          .execute();
        await db.schema
          .createIndex('agent_sources_arrival')
          .on('agent_sources')
          .columns(['arrival', 'agent_id'])
          .execute();
        await db.schema
          .createIndex('agent_sources_format')
          .on('agent_sources')
          .columns(['format', 'agent_id'])
          .execute();
      },
    },
    '2026-11-28-012-agent-changes': {
      // The log of changed agents the facet index follows, stamped by triggers on every write (agent-changes.ts).
      // Empty at first: an index loads every agent when it starts, then reads what is stamped after.
      async up(db: Kysely<unknown>): Promise<void> {
        await createAgentChangeLog(db, dialect.name);
      },
    },
    '2026-11-27-010-agent-identity': {
      // One agent, one entry (docs/registry.md, "Identity"): sources and identity keys, and the entries the old
      // rule made for one agent merged (store/identity-migration.ts).
      async up(db: Kysely<Database>): Promise<void> {
        await createIdentityTables(db);
        await mergeDuplicateEntries(db, new Date().toISOString());
      },
    },
  };
}
