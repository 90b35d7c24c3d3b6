/**
 * Opening the registry's database: the one place where the dialect is chosen. A file path (or a `sqlite:` URL) is
 * SQLite; a `postgres://` (or `postgresql://`) URL is PostgreSQL (db/postgres.ts). Both are behind the same
 * `OpenedDatabase`, so that callers pass the location they were given and never ask which it is.
 */
import { existsSync } from 'node:fs';
import { dirname } from 'node:path';
import { AgentryError, type AgentryErrorCode } from '@agentry/core';
import type { Kysely } from 'kysely';
import type { Database } from './database.js';
import type { DatabaseDialect } from './dialect.js';
import { migrate, registryMigrations } from './migrations.js';
import { DatabaseUnavailableError, openPostgres } from './postgres.js';
import { openSqlite } from './sqlite.js';

/** Where the database is: a SQLite file (`:memory:` for a throwaway one), or a URL naming its dialect. */
export type DatabaseLocation =
  | { readonly path: string; readonly url?: never }
  | { readonly url: string; readonly path?: never };

export type OpenDatabaseOptions = DatabaseLocation & {
  /** How long a statement waits for a lock held by another connection (default 5000 ms). */
  readonly busyTimeoutMs?: number;
};

export interface OpenedDatabase {
  /** Every part's tables, through one handle. */
  readonly db: Kysely<Database>;
  readonly dialect: DatabaseDialect;
  /** The migrations this open ran, in order (none when the database was up to date). */
  readonly migrated: readonly string[];
  /** Closes the connection (every connection of a PostgreSQL pool, and its change listener). */
  close(): Promise<void>;
}

/** What a location names, once read: the dialect and what that dialect connects with. */
export type DatabaseTarget =
  | { readonly dialect: 'sqlite'; readonly path: string }
  | { readonly dialect: 'postgres'; readonly url: string };

/** A location the registry cannot open: a dialect it does not have, or a URL it cannot read. */
export class UnsupportedDatabaseError extends AgentryError {
  static override readonly code: AgentryErrorCode = 'InvalidInput';
}

/**
 * Reads a location. A path, or `sqlite:<path>` (`sqlite:///abs/path`, `sqlite::memory:`), is SQLite;
 * `postgres://` and `postgresql://` are PostgreSQL; any other scheme is refused.
 */
export function databaseTarget(location: DatabaseLocation): DatabaseTarget {
  if (location.path !== undefined) return { dialect: 'sqlite', path: location.path };
  const url = location.url;
  const scheme = /^([a-z][a-z0-9+.-]+):/i.exec(url)?.[1]?.toLowerCase();
  if (scheme === undefined) return { dialect: 'sqlite', path: url };
  if (scheme === 'sqlite') {
    const rest = url.slice('sqlite:'.length);
    const path = rest.startsWith('//') ? rest.slice(2) : rest;
    if (path === '') throw new UnsupportedDatabaseError(`The database URL ${url} names no file`);
    return { dialect: 'sqlite', path };
  }
  if (scheme === 'postgres' || scheme === 'postgresql') {
    return { dialect: 'postgres', url };
  }
  throw new UnsupportedDatabaseError(
    `Unknown database URL scheme ${scheme}: (a file path or sqlite: URL is SQLite)`,
  );
}

/**
 * Opens the registry's database (creating a SQLite file when missing) and runs the migrations it has not run, in
 * the order of db/migrations.ts, under the database's write lock. The connection is closed again when they fail.
 * A PostgreSQL database must exist; one that cannot be reached is a `DatabaseUnavailableError` (one line).
 */
export async function openDatabase(options: OpenDatabaseOptions): Promise<OpenedDatabase> {
  const target = databaseTarget(options);
  if (target.dialect === 'postgres') {
    const opened = await openPostgres({
      url: target.url,
      ...(options.busyTimeoutMs === undefined ? {} : { busyTimeoutMs: options.busyTimeoutMs }),
    });
    try {
      const migrated = await migrate(opened.db, opened.dialect, registryMigrations(opened.dialect));
      await opened.followChanges();
      return { db: opened.db, dialect: opened.dialect, migrated, close: () => opened.close() };
    } catch (error) {
      await opened.close();
      throw error;
    }
  }
  let sqlite: ReturnType<typeof openSqlite>;
  try {
    sqlite = openSqlite({
      path: target.path,
      ...(options.busyTimeoutMs === undefined ? {} : { busyTimeoutMs: options.busyTimeoutMs }),
    });
  } catch (error) {
    throw sqliteOpenError(target.path, error);
  }
  const { db, dialect } = sqlite;
  let migrated: string[];
  try {
    migrated = await migrate(db, dialect, registryMigrations(dialect));
  } catch (error) {
    await db.destroy();
    throw error;
  }
  return { db, dialect, migrated, close: () => db.destroy() };
}

/**
 * Why a SQLite file could not be opened, as one line saying what fixes it (a `DatabaseUnavailableError`, as for
 * PostgreSQL): its folder does not exist (a mistyped path), it cannot be opened, or it is not a SQLite database.
 * Anything else is returned as it is.
 */
function sqliteOpenError(path: string, error: unknown): unknown {
  const code = (error as { code?: unknown } | null)?.code;
  const fix = 'fix --db (or --database, AGENTRY_DB, DATABASE_URL)';
  if (path !== '' && path !== ':memory:' && !existsSync(dirname(path))) {
    return new DatabaseUnavailableError(
      `The folder of the SQLite database ${path} does not exist: create it (mkdir -p ${dirname(path)}) or ${fix}`,
    );
  }
  if (code === 'SQLITE_NOTADB') {
    return new DatabaseUnavailableError(`${path} is not a SQLite database: ${fix}`);
  }
  if (code === 'SQLITE_CANTOPEN' || code === 'SQLITE_READONLY') {
    return new DatabaseUnavailableError(
      `The SQLite database ${path} cannot be opened for writing (${(error as Error).message}): check the permissions of the file and its folder, or ${fix}`,
    );
  }
  return error;
}
