/**
 * What the registry needs from a database dialect beyond Kysely's query builder: identity columns in migrations,
 * a change counter for caches, a health check and the write lock migrations run under. SQLite's is in sqlite.ts;
 * PostgreSQL's (issue #21) sits beside it, chosen by `openDatabase` (open.ts).
 */
import type { ColumnDefinitionBuilder } from 'kysely';

export type DialectName = 'sqlite' | 'postgres';

export interface DatabaseDialect {
  readonly name: DialectName;
  /** Makes `column` an auto-incrementing integer primary key. */
  identity(column: ColumnDefinitionBuilder): ColumnDefinitionBuilder;
  /**
   * A number that changes whenever the database may have changed: at once after a write through this connection,
   * within a millisecond after a commit by another connection or process. Caches of query results keep the
   * number they were made at.
   */
  changeCount(): number;
  /** The database's own consistency check: `['ok']` when it is sound. */
  integrityCheck(): Promise<string[]>;
  /**
   * Runs `work` holding the database's write lock, in one transaction: committed when it resolves, rolled back
   * when it throws. Another process (or connection) that asks meanwhile waits up to `waitMs` for the lock, so
   * work that decides from what it reads (which migrations are applied) sees every earlier holder's writes.
   */
  exclusively<T>(work: () => Promise<T>, waitMs: number): Promise<T>;
}
