/**
 * The search index's schema, as Kysely migrations provided from code; their place among the registry's migrations
 * is set by the one ordered list in db/migrations.ts. The lexical table comes from the lexical engine's module
 * (SQLite FTS5 here).
 */
import type { Kysely, Migration } from 'kysely';
import { changeLogMigration } from './change-log.js';
import { sqliteLexicalMigration, sqliteRestrictedLexicalMigration } from './lexical/sqlite.js';

export const searchMigrations: Record<string, Migration> = {
  '2026-11-21-100-search-lexical': sqliteLexicalMigration,
  '2026-11-21-100-search-vectors': {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema
        .createTable('search_vectors')
        .addColumn('agent_id', 'text', (col) => col.primaryKey())
        .addColumn('text', 'text', (col) => col.notNull())
        .addColumn('provider', 'text')
        .addColumn('dims', 'integer', (col) => col.notNull().defaultTo(0))
        .addColumn('vector', 'blob')
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
  },
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
