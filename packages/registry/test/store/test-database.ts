/**
 * The database a store test runs on, chosen by dialect: a SQLite file in a temporary directory, or a fresh
 * PostgreSQL database on the local server (dropped by `remove`). `query` runs raw SQL beside the store, for the
 * cases that look at what is stored or write what an older registry wrote.
 */
import { join } from 'node:path';
import Database from 'better-sqlite3';
import pg from 'pg';
import type { DatabaseLocation, DialectName } from '../../src/db/index.js';
import { freshPostgresDatabase } from '../db/postgres-fixture.js';
import { tempDir } from '../fixtures.js';

export type { DialectName };

export interface TestDatabase {
  readonly dialect: DialectName;
  /** What `RegistryStore.open` / `openDatabase` take. */
  readonly location: DatabaseLocation;
  /** Runs `statement` on a connection of its own; the rows it returns. */
  query(statement: string): Promise<Array<Record<string, unknown>>>;
  /** Deletes the file, or drops the database. */
  remove(): Promise<void>;
}

export async function openTestDatabase(dialect: DialectName): Promise<TestDatabase> {
  if (dialect === 'postgres') {
    const database = await freshPostgresDatabase();
    return {
      dialect,
      location: { url: database.url },
      async query(statement) {
        const client = new pg.Client({ connectionString: database.url });
        await client.connect();
        try {
          return (await client.query(statement)).rows as Array<Record<string, unknown>>;
        } finally {
          await client.end();
        }
      },
      remove: () => database.drop(),
    };
  }
  const dir = tempDir();
  const path = join(dir.path, 'store.db');
  return {
    dialect,
    location: { path },
    async query(statement) {
      const raw = new Database(path);
      try {
        const prepared = raw.prepare(statement);
        if (prepared.reader) return prepared.all() as Array<Record<string, unknown>>;
        prepared.run();
        return [];
      } finally {
        raw.close();
      }
    },
    async remove() {
      dir.remove();
    },
  };
}
