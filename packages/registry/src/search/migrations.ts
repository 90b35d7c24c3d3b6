/**
 * The search index's schema, as Kysely migrations provided from code; their place among the registry's migrations
 * is set by the one ordered list in db/migrations.ts. The lexical tables come from the lexical engine's module:
 * SQLite FTS5 (lexical/sqlite.ts), or on PostgreSQL (`searchMigrationsFor`) the tables of lexical/postgres.ts,
 * created by a migration of their own (`2026-11-28-100-search-lexical-postgres`, which does nothing on SQLite)
 * and given postings by another (`2026-11-28-101-search-lexical-postings`, likewise PostgreSQL's alone), while
 * FTS5's two steps do nothing there. Binary columns are `bytea` on PostgreSQL.
 *
 * The PostgreSQL tables come last, under a name of their own, because PostgreSQL databases made before they
 * existed (`agentry token` on PostgreSQL) have already recorded FTS5's steps as run: a new name is run on them too.
 */
import type { Kysely, Migration } from 'kysely';
import type { DatabaseDialect } from '../db/dialect.js';
import { changeLogMigration } from './change-log.js';
import { postgresLexicalMigration } from './lexical/postgres.js';
import { postgresPostingsMigration } from './lexical/postgres-postings.js';
import { sqliteLexicalMigration, sqliteRestrictedLexicalMigration } from './lexical/sqlite.js';

/** The name the PostgreSQL lexical tables' migration is recorded under (db/migrations.ts places it). */
export const POSTGRES_LEXICAL_MIGRATION = '2026-11-28-100-search-lexical-postgres';
/** The PostgreSQL lexical index's postings (lexical/postgres-postings.ts), built from the documents already there. */
export const POSTGRES_POSTINGS_MIGRATION = '2026-11-28-101-search-lexical-postings';

/** A step that a dialect does not need: recorded as run, creating nothing. */
const nothing: Migration = { async up(): Promise<void> {} };

/** The search index's migrations for `dialect`: SQLite's below, or PostgreSQL's lexical tables and column types. */
export function searchMigrationsFor(dialect: DatabaseDialect): Record<string, Migration> {
  if (dialect.name === 'sqlite') return searchMigrations;
  return {
    ...searchMigrations,
    '2026-11-21-100-search-lexical': nothing,
    '2026-11-21-100-search-vectors': vectorsMigration(dialect.blobType),
    '2026-11-27-100-search-lexical-restricted': nothing,
    [POSTGRES_LEXICAL_MIGRATION]: postgresLexicalMigration,
    [POSTGRES_POSTINGS_MIGRATION]: postgresPostingsMigration,
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

/** SQLite's search migrations (FTS5 lexical tables; PostgreSQL's lexical tables are nothing here). */
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
  [POSTGRES_LEXICAL_MIGRATION]: nothing,
  [POSTGRES_POSTINGS_MIGRATION]: nothing,
};
