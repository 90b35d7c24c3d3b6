/**
 * What the registry needs from a database dialect beyond Kysely's query builder: identity columns in migrations,
 * a change counter for caches, a health check and the write lock migrations run under. SQLite's is in sqlite.ts;
 * PostgreSQL's (issue #21) in postgres.ts; `openDatabase` (open.ts) chooses.
 */
import type { ColumnDefinitionBuilder, Kysely } from 'kysely';
import type { Database } from './database.js';

export type DialectName = 'sqlite' | 'postgres';

/** What `runAlone` did: ran the work (and what it resolved with), or left it to the process already running it. */
export type RanAlone<T> = { readonly ran: true; readonly value: T } | { readonly ran: false };

export interface DatabaseDialect {
  readonly name: DialectName;
  /** Makes `column` an auto-incrementing integer primary key. */
  identity(column: ColumnDefinitionBuilder): ColumnDefinitionBuilder;
  /** The column type of binary data (`blob` in SQLite, `bytea` in PostgreSQL). */
  readonly blobType: 'blob' | 'bytea';
  /**
   * A number that changes whenever the database may have changed: at once after a write through this connection,
   * within a millisecond after a commit by another connection or process. Caches of query results keep the
   * number they were made at.
   */
  changeCount(): number;
  /**
   * The same count with every commit made before this call in it, where the dialect can tell without a statement
   * through the query builder: SQLite reads `PRAGMA data_version` on the connection at once (a few microseconds,
   * no table read). Absent on PostgreSQL, which hears other connections' commits by notification, later.
   */
  changeCountNow?(): number;
  /** The database's own consistency check: `['ok']` when it is sound. */
  integrityCheck(): Promise<string[]>;
  /**
   * Runs `work` holding the database's write lock, in one transaction (`trx`: `work` runs its statements through
   * it): committed when it resolves, rolled back when it throws. Another process (or connection) that asks
   * meanwhile waits up to `waitMs` for the lock, so work that decides from what it reads (which migrations are
   * applied) sees every earlier holder's writes. SQLite: BEGIN IMMEDIATE; PostgreSQL: `pg_advisory_xact_lock`.
   */
  exclusively<T>(work: (trx: Kysely<Database>) => Promise<T>, waitMs: number): Promise<T>;
  /**
   * Serializes the running write transaction `trx` with every other one that locks the same `key`, until it ends:
   * for decisions a write makes from a count (a publisher's quota). SQLite's write transactions already run one at
   * a time (BEGIN IMMEDIATE), so it does nothing there; PostgreSQL takes a transaction-scoped advisory lock.
   */
  lockKey(trx: Kysely<Database>, key: string): Promise<void>;
  /** Which table points at which through a foreign key, as the database declares them (a copy orders tables by them). */
  foreignKeys(): Promise<Array<{ readonly table: string; readonly references: string }>>;
  /**
   * After rows were written into `table` with their own numbers in its identity `column` (db/copy-database.ts):
   * makes the next number the database gives the one after the highest there. SQLite's AUTOINCREMENT follows the
   * numbers written already; PostgreSQL moves the column's sequence.
   */
  continueIdentity(trx: Kysely<Database>, table: string, column: string): Promise<void>;
  /**
   * Runs `work` unless another process on the database (another replica) is running work under the same `key`
   * right now: for background work that must be done once, not once per replica (embedding agents that have no
   * vector, importing a mirrored registry). PostgreSQL holds a session advisory lock on a connection of its own
   * while `work` runs, released when it ends — or by the server when the process dies, so a crashed replica's
   * work is taken up by the next one to try. SQLite runs `work`: one process serves a file.
   */
  runAlone<T>(key: string, work: () => Promise<T>): Promise<RanAlone<T>>;
}
