/**
 * The registry's database layer: one `Database` type holding every part's tables, one ordered list of
 * migrations, and `openDatabase`, where the dialect is chosen.
 */
export {
  type CopyDatabaseOptions,
  type CopyEndpoint,
  type CopyProgress,
  copyDatabase,
  DatabaseCopyError,
  type DatabaseCopyPlan,
  type DatabaseCopyResult,
  planDatabaseCopy,
  REBUILT_TABLE,
  type TableCopyPlan,
  TargetNotEmptyError,
} from './copy-database.js';
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
