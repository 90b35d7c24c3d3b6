/**
 * The search index's schema, as Kysely migrations provided from code; their place among the registry's migrations
 * is set by the one ordered list in db/migrations.ts. The lexical table comes from the lexical engine's module
 * (SQLite FTS5 here). On PostgreSQL (`searchMigrationsFor`) the lexical steps come from `postgresLexicalMigrations`,
 * the hook search/lexical/postgres.ts fills, and binary columns are `bytea`.
 */
import type { Kysely, Migration } from 'kysely';
import type { DatabaseDialect } from '../db/dialect.js';
import { changeLogMigration } from './change-log.js';
import { sqliteLexicalMigration, sqliteRestrictedLexicalMigration } from './lexical/sqlite.js';

/**
 * The lexical tables on PostgreSQL: search/lexical/postgres.ts provides them (issue #21, item 3). Until it does,
 * these steps create nothing (FTS5 is SQLite's), and `createRegistry` on PostgreSQL says search is not available.
 */
export const postgresLexicalMigrations: { readonly lexical: Migration; readonly restricted: Migration } = {
  lexical: { async up(): Promise<void> {} },
  restricted: { async up(): Promise<void> {} },
};

/** The search index's migrations for `dialect`: SQLite's below, or PostgreSQL's lexical steps and column types. */
export function searchMigrationsFor(dialect: DatabaseDialect): Record<string, Migration> {
  if (dialect.name === 'sqlite') return searchMigrations;
  return {
    ...searchMigrations,
    '2026-11-21-100-search-lexical': postgresLexicalMigrations.lexical,
    '2026-11-21-100-search-vectors': vectorsMigration(dialect.blobType),
    '2026-11-27-100-search-lexical-restricted': postgresLexicalMigrations.restricted,
  };
}

function vectorsMigration(blobType: 'blob' | 'bytea'): Migration {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema
        .createTable('search_vectors')
        .addColumn('agent_id', 'text', (col) => col.primaryKey())
        .addColumn('text', 'text', (col) => col.notNull())
        .addColumn('provider', 'text')
        .addColumn('dims', 'integer', (col) => col.notNull().defaultTo(0))
        .addColumn('vector', blobType)
        .execute();
      await db.schema
        .createIndex('search_vectors_provider')
        .on('search_vectors')
        .column('provider')
        .execute();
    },
    async down(db: Kysely<unknown>): Promise<void> {
      await db.schema.dropTable('search_vectors').execute();
    },
  };
}

/** SQLite's search migrations (FTS5 lexical tables). */
export const searchMigrations: Record<string, Migration> = {
  '2026-11-21-100-search-lexical': sqliteLexicalMigration,
  '2026-11-21-100-search-vectors': vectorsMigration('blob'),
  '2026-11-22-100-search-demotions': {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema
        .createTable('search_demotions')
        .addColumn('agent_id', 'text', (col) => col.primaryKey())
        .addColumn('penalty', 'real', (col) => col.notNull())
        .addColumn('reasons', 'text', (col) => col.notNull())
        .execute();
    },
    async down(db: Kysely<unknown>): Promise<void> {
      await db.schema.dropTable('search_demotions').execute();
    },
  },
  '2026-11-22-101-search-changes': changeLogMigration,
  '2026-11-27-100-search-lexical-restricted': sqliteRestrictedLexicalMigration,
};
