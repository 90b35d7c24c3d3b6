/**
 * The registry's database layer: one `Database` type holding every part's tables, one ordered list of
 * migrations, and `openDatabase`, where the dialect is chosen.
 */
export type { Database } from './database.js';
export type { DatabaseDialect, DialectName } from './dialect.js';
export {
  MIGRATION_ORDER,
  MigrationError,
  migrate,
  type NamedMigration,
  registryMigrations,
} from './migrations.js';
export {
  type DatabaseLocation,
  type DatabaseTarget,
  databaseTarget,
  type OpenDatabaseOptions,
  type OpenedDatabase,
  openDatabase,
  UnsupportedDatabaseError,
} from './open.js';
export { CHANGE_CHANNEL, DatabaseUnavailableError } from './postgres.js';
export { sqliteFileHasTables } from './sqlite.js';
