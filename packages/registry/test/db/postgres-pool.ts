/**
 * PostgreSQL databases for a test file that opens many (a suite's PostgreSQL run): creating and migrating a
 * database costs seconds, emptying one a few milliseconds. A database is created and migrated when no emptied one
 * is free, handed out empty (every table but the migration record emptied, the rows migrations seed put back),
 * and taken back when its test is done with it; `dropPooledDatabases` drops them all at the end of the file.
 */
import pg from 'pg';
import { openDatabase } from '../../src/db/open.js';
import { freshPostgresDatabase, type TestPostgres } from './postgres-fixture.js';

export interface LeasedDatabase {
  /** `postgres://…` of a migrated database that holds nothing. */
  readonly url: string;
  /** Gives it back for another test (idempotent); connections to it should be closed first. */
  release(): void;
}

const free: TestPostgres[] = [];
const made: TestPostgres[] = [];

export async function leasePostgresDatabase(): Promise<LeasedDatabase> {
  let database = free.pop();
  if (database === undefined) {
    database = await freshPostgresDatabase();
    made.push(database);
    const opened = await openDatabase({ url: database.url });
    await opened.close();
  } else {
    await empty(database.url);
  }
  const leased = database;
  let released = false;
  return {
    url: leased.url,
    release() {
      if (released) return;
      released = true;
      free.push(leased);
    },
  };
}

/** Drops every database this file made (in `after` at the top of the file). */
export async function dropPooledDatabases(): Promise<void> {
  free.length = 0;
  await Promise.all(made.splice(0).map((database) => database.drop()));
}

async function empty(url: string): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const tables = await client.query<{ name: string }>(
      `select tablename as name from pg_tables where schemaname = current_schema()
       and tablename not like 'kysely_migration%'`,
    );
    // Deleting a test's few rows costs far less than truncating (which makes every table and index anew); foreign
    // keys are not checked meanwhile (the test server's user is a superuser), since every table empties at once.
    const deletes = tables.rows.map((row) => `delete from "${row.name}";`).join('\n');
    await client.query(`begin; set local session_replication_role = replica; ${deletes}
      insert into search_lexical_totals values (false, 0, 0), (true, 0, 0); commit;`);
  } finally {
    await client.end();
  }
}
