/**
 * better-sqlite3 behind Kysely, with three things Kysely's SQLite driver does not do: it keeps prepared statements
 * (the driver prepares every query afresh, which cost more than running the hot reads), it counts writes, so
 * that caches of what the database says can tell when they may be stale, and its transactions take the write lock
 * when they begin.
 */
import type Database from 'better-sqlite3';
import type { SqliteDatabase, SqliteStatement } from 'kysely';

/** Statements kept; the registry's queries have a few hundred shapes at most (IN lists vary in length). */
const MAX_STATEMENTS = 500;

/**
 * How Kysely's transactions begin. Its plain `begin` defers the write lock to the first write; when another
 * connection (`agentry crawl` beside `agentry serve`) has committed since the transaction's first read, SQLite
 * then refuses at once (SQLITE_BUSY or SQLITE_BUSY_SNAPSHOT; waiting could deadlock), and the write is lost to
 * an error. Taken at the start, the lock is waited for (`busy_timeout`) like any other.
 */
const BEGIN_WRITE = 'begin immediate';

export interface CountingDatabase extends SqliteDatabase {
  /**
   * Changes whenever the database may have changed since the last call that returned the same value: at once
   * after a write statement through this connection, within a millisecond after a commit by another connection
   * or process (`PRAGMA data_version`).
   */
  changeCount(): number;
  /**
   * The same count, with other connections' commits looked for at this call (one `PRAGMA data_version`, no table
   * read): for an answer that must hold every commit made before it was asked.
   */
  changeCountNow(): number;
}

export function countingDatabase(database: Database.Database): CountingDatabase {
  const statements = new Map<string, SqliteStatement>();
  const dataVersion = database.prepare('PRAGMA data_version').pluck();
  let lastDataVersion = dataVersion.get() as number;
  let writes = 0;
  let lastChecked = performance.now();

  /** Counts a commit by another connection when `data_version` has moved since it was last read. */
  function lookForOtherCommits(now: number): void {
    lastChecked = now;
    const version = dataVersion.get() as number;
    if (version !== lastDataVersion) {
      lastDataVersion = version;
      writes++;
    }
  }

  function wrap(sql: string): SqliteStatement {
    const statement = database.prepare(sql);
    // `INSERT … RETURNING` reads rows back (Kysely runs it with `all`) and writes all the same.
    const writesRows = !statement.readonly;
    return {
      reader: statement.reader,
      all: (parameters) => {
        if (writesRows) writes++;
        return statement.all(...parameters);
      },
      run: (parameters) => {
        writes++;
        return statement.run(...parameters);
      },
      // An iteration keeps its statement busy until it ends, so a stream gets a statement of its own.
      iterate: (parameters) => database.prepare(sql).iterate(...parameters),
    };
  }

  return {
    close: () => database.close(),
    prepare(sql: string): SqliteStatement {
      let statement = statements.get(sql);
      if (statement === undefined) {
        statement = wrap(sql === 'begin' ? BEGIN_WRITE : sql);
        if (statements.size >= MAX_STATEMENTS) {
          const oldest = statements.keys().next().value;
          if (oldest !== undefined) statements.delete(oldest);
        }
      } else statements.delete(sql); // re-inserted below: the map's order is least recently used first
      statements.set(sql, statement);
      return statement;
    },
    changeCount(): number {
      // Asking SQLite costs more than the cached answers it guards, so other processes' commits are looked for
      // at most once a millisecond; this process's own writes are counted as they happen.
      const now = performance.now();
      if (now - lastChecked >= 1) lookForOtherCommits(now);
      return writes;
    },
    changeCountNow(): number {
      lookForOtherCommits(performance.now());
      return writes;
    },
  };
}
