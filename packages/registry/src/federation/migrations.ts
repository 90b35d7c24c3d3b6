/**
 * The federation's table, as a Kysely migration provided from code. Its place among the registry's migrations is
 * set by the one ordered list in db/migrations.ts.
 */
import type { Kysely, Migration } from 'kysely';

export const federationMigrations: Record<string, Migration> = {
  '2026-11-22-204-federation-sources': {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema
        .createTable('federation_sources')
        .addColumn('base_url', 'text', (col) => col.primaryKey())
        .addColumn('kind', 'text', (col) => col.notNull())
        .addColumn('updated_since', 'text')
        .addColumn('last_imported_at', 'text', (col) => col.notNull())
        .execute();
    },
    async down(db: Kysely<unknown>): Promise<void> {
      await db.schema.dropTable('federation_sources').execute();
    },
  },
};
