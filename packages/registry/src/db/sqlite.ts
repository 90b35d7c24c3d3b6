/**
 * The SQLite dialect: the only module that knows the registry's database is SQLite. Everything SQLite-specific
 * lives here — opening the file, the pragmas, identity columns, the integrity check, the write lock — so that
 * PostgreSQL can be a second implementation of `DatabaseDialect` without touching the queries.
 */
import BetterSqlite from 'better-sqlite3';
import { type ColumnDefinitionBuilder, Kysely, SqliteDialect } from 'kysely';
import type { Database } from './database.js';
import type { DatabaseDialect, RanAlone } from './dialect.js';
import { type CountingDatabase, countingDatabase } from './statement-cache.js';

export interface SqliteOptions {
  /** The database file; `:memory:` for a throwaway store. */
  path: string;
  /** How long a statement waits for a lock held by another connection (default 5000 ms). */
  busyTimeoutMs?: number;
}

/**
 * Pages the write-ahead log grows by before a commit copies it back into the database file (SQLite's default is
 * 1,000). Each checkpoint pays two syncs whatever it copies, and a page written many times between checkpoints is
 * copied once: at 4,000 pages (16 MB), registrations through the store took 20–30% less time than at 1,000, with a
 * commit slower than 10 ms a quarter as often (each of those up to ~40 ms instead of ~20–30). See docs/registry.md.
 */
const CHECKPOINT_PAGES = 4000;
/** The log file is cut back to this size when it restarts, after a burst (or a long read) made it grow past it. */
const WAL_SIZE_LIMIT_BYTES = 32 * 1024 * 1024;

/**
 * The connection's page cache (SQLite's default is 2 MB). At 1,000,000 agents the file is ~14 GB and its B-tree
 * interiors alone outgrow 2 MB, so every insert and index probe went back to the operating system for pages.
 */
const PAGE_CACHE_KIB = 64 * 1024;

export function openSqlite(options: SqliteOptions): { db: Kysely<Database>; dialect: DatabaseDialect } {
  const database = new BetterSqlite(options.path);
  const busyTimeoutMs = Math.max(0, Math.floor(options.busyTimeoutMs ?? 5000));
  try {
    // First: every statement below waits for a lock another process holds instead of failing.
    database.pragma(`busy_timeout = ${busyTimeoutMs}`);
    // WAL lets readers run beside the writer; NORMAL syncs at checkpoints, which in WAL mode keeps every
    // committed transaction across a process crash (only a power loss may drop the last ones).
    switchToWal(database, busyTimeoutMs);
    database.pragma('synchronous = NORMAL');
    database.pragma('foreign_keys = ON');
    database.pragma(`wal_autocheckpoint = ${CHECKPOINT_PAGES}`);
    database.pragma(`journal_size_limit = ${WAL_SIZE_LIMIT_BYTES}`);
    database.pragma(`cache_size = -${PAGE_CACHE_KIB}`);
  } catch (error) {
    database.close();
    throw error;
  }
  const counting = countingDatabase(database);
  const db = new Kysely<Database>({ dialect: new SqliteDialect({ database: counting }) });
  return { db, dialect: sqliteDialect(database, db, counting, busyTimeoutMs) };
}

/**
 * Puts the file in WAL mode (a no-op when it is already). Switching a file that is not yet in WAL reads its header,
 * then writes it: a read that must become a write, which SQLite refuses at once ("database is locked",
 * SQLITE_BUSY) rather than wait for, when another connection holds the write lock meanwhile — two readers each
 * waiting for the other to finish would wait forever. busy_timeout does not cover that refusal. Processes opening
 * a new file together meet it: one switches the file while another reads its header (19 opens in 2,000 when eight
 * start at once; one of three registries in concurrent-start.test.ts about once in six runs on CI). So, refused,
 * the switch waits for the write lock the way every other statement does — BEGIN IMMEDIATE, under busy_timeout,
 * holding no lock while it waits — lets it go, and tries again: by then the other connection has committed, and
 * a file it switched is read in WAL mode and not written again. A wait that runs out throws, as any statement's.
 */
function switchToWal(database: BetterSqlite.Database, busyTimeoutMs: number): void {
  // Each refusal means another connection wrote meanwhile; one that keeps the file out of WAL (a tool writing it
  // in another journal mode) and keeps writing is given busy_timeout, not forever.
  const deadline = performance.now() + busyTimeoutMs;
  for (;;) {
    try {
      database.pragma('journal_mode = WAL');
      return;
    } catch (error) {
      const code = String((error as { code?: unknown }).code);
      if (!code.startsWith('SQLITE_BUSY') || performance.now() > deadline) throw error;
    }
    database.exec('BEGIN IMMEDIATE');
    database.exec('ROLLBACK');
  }
}

/**
 * Whether the SQLite file at `path` exists and holds every one of `tables` (read only: a missing file is not
 * created, and a file that is not SQLite answers false).
 */
export function sqliteFileHasTables(path: string, tables: readonly string[]): boolean {
  let database: BetterSqlite.Database;
  try {
    database = new BetterSqlite(path, { readonly: true, fileMustExist: true });
  } catch {
    return false;
  }
  try {
    const rows = database.prepare("SELECT name FROM sqlite_master WHERE type = 'table'").all() as Array<{
      name: string;
    }>;
    const present = new Set(rows.map((row) => row.name));
    return tables.every((table) => present.has(table));
  } catch {
    return false;
  } finally {
    database.close();
  }
}

function sqliteDialect(
  database: BetterSqlite.Database,
  db: Kysely<Database>,
  counting: Pick<CountingDatabase, 'changeCount' | 'changeCountNow'>,
  busyTimeoutMs: number,
): DatabaseDialect {
  return {
    name: 'sqlite',
    changeCount: counting.changeCount,
    changeCountNow: counting.changeCountNow,
    identity: (column: ColumnDefinitionBuilder) => column.primaryKey().autoIncrement(),
    blobType: 'blob',
    async lockKey(): Promise<void> {},
    async foreignKeys() {
      return database
        .prepare(
          `select m.name as "table", f."table" as "references"
           from sqlite_master m, pragma_foreign_key_list(m.name) f where m.type = 'table'`,
        )
        .all() as Array<{ table: string; references: string }>;
    },
    async continueIdentity(): Promise<void> {},
    async runAlone<T>(_key: string, work: () => Promise<T>): Promise<RanAlone<T>> {
      return { ran: true, value: await work() };
    },
    async integrityCheck(): Promise<string[]> {
      const rows = database.pragma('integrity_check') as Array<{ integrity_check: string }>;
      return rows.map((row) => row.integrity_check);
    },
    async exclusively<T>(work: (trx: Kysely<Database>) => Promise<T>, waitMs: number): Promise<T> {
      // BEGIN IMMEDIATE takes the write lock at once (a deferred BEGIN would take it at the first write, after
      // reads another process may have made stale). Kysely runs on this same connection, so its statements in
      // `work` are part of the transaction; nothing else runs on it meanwhile (start-up work).
      database.pragma(`busy_timeout = ${Math.max(busyTimeoutMs, Math.floor(waitMs))}`);
      try {
        database.exec('BEGIN IMMEDIATE');
      } finally {
        database.pragma(`busy_timeout = ${busyTimeoutMs}`);
      }
      try {
        const result = await work(db);
        database.exec('COMMIT');
        return result;
      } catch (error) {
        if (database.inTransaction) database.exec('ROLLBACK');
        throw error;
      }
    },
  };
}
