/**
 * A fresh PostgreSQL database for a test file: created on the local server (127.0.0.1:5432, trust auth, as on
 * every developer's machine and in CI; `AGENTRY_TEST_POSTGRES` names another server's maintenance database) under
 * a name of its own, and dropped at the end — also when the tests failed, and with connections still open.
 */
import { randomBytes } from 'node:crypto';
import pg from 'pg';

/** The maintenance database the test databases are created from. */
export const POSTGRES_ADMIN_URL =
  process.env.AGENTRY_TEST_POSTGRES ?? 'postgres://postgres@127.0.0.1:5432/postgres';

export interface TestPostgres {
  /** `postgres://…` of the new, empty database. */
  readonly url: string;
  readonly name: string;
  /** Drops the database (ending any connection still open to it). Idempotent. */
  drop(): Promise<void>;
}

async function admin<T>(work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: POSTGRES_ADMIN_URL });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

/** Creates `agentry_test_<pid>_<random>`; the caller drops it (`after(() => database.drop())`). */
export async function freshPostgresDatabase(): Promise<TestPostgres> {
  const name = `agentry_test_${process.pid}_${randomBytes(4).toString('hex')}`;
  await admin((client) => client.query(`create database ${name}`));
  const url = new URL(POSTGRES_ADMIN_URL);
  url.pathname = `/${name}`;
  let dropped = false;
  return {
    url: url.href,
    name,
    async drop() {
      if (dropped) return;
      dropped = true;
      await admin((client) => client.query(`drop database if exists ${name} with (force)`));
    },
  };
}
