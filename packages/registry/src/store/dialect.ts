/**
 * What the store needs from a database dialect beyond Kysely's query builder: identity columns in migrations and
 * a health check. SQLite's is in sqlite.ts; a PostgreSQL one would sit beside it.
 */
import type { ColumnDefinitionBuilder } from 'kysely';

export interface StoreDialect {
  readonly name: 'sqlite' | 'postgres';
  /** Makes `column` an auto-incrementing integer primary key. */
  identity(column: ColumnDefinitionBuilder): ColumnDefinitionBuilder;
  /** The database's own consistency check: `['ok']` when the file is sound. */
  integrityCheck(): Promise<string[]>;
}
