/**
 * A registry's database on PostgreSQL survives its server processes being terminated (an operator's
 * pg_terminate_backend, a failover, a restart): idle pooled connections, a transaction's connection checked out
 * between two statements and the LISTEN connection are all cut, the process goes on (an unhandled pg 'error'
 * event would end it, and the test run with it), reads work again on new connections, and the change listener
 * listens again, so that another connection's commit moves the change counter once more.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { sql } from 'kysely';
import pg from 'pg';
import { type OpenedDatabase, openDatabase } from '../../src/db/index.js';
import { freshPostgresDatabase, type TestPostgres } from './postgres-fixture.js';

const WAIT_MS = 30_000;

/** Polls `check` until it holds (errors count as not yet), failing after WAIT_MS. */
async function eventually(what: string, check: () => Promise<boolean> | boolean): Promise<void> {
  const deadline = Date.now() + WAIT_MS;
  let last: unknown;
  for (;;) {
    try {
      if (await check()) return;
    } catch (error) {
      last = error;
    }
    if (Date.now() > deadline) assert.fail(`${what}: not within ${WAIT_MS} ms (${String(last)})`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

async function withClient<T>(url: string, work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

/** Terminates every other server process on the database; returns how many. */
function terminateOthers(url: string): Promise<number> {
  return withClient(url, async (client) => {
    const cut = await client.query(
      `select pg_terminate_backend(pid) from pg_stat_activity
       where datname = current_database() and pid <> pg_backend_pid()`,
    );
    return cut.rowCount ?? 0;
  });
}

async function readsWork(opened: OpenedDatabase): Promise<boolean> {
  const rows = await opened.db.selectFrom('tombstones').select('agent_id').execute();
  return Array.isArray(rows);
}

/** The change listener listens: the counter stands still while nothing is written (it moves on every read when not). */
function listening(opened: OpenedDatabase): boolean {
  const first = opened.dialect.changeCount();
  return opened.dialect.changeCount() === first;
}

describe('PostgreSQL connections terminated under a registry', () => {
  let database: TestPostgres;
  let opened: OpenedDatabase;
  before(async () => {
    database = await freshPostgresDatabase();
    opened = await openDatabase({ url: database.url });
  });
  after(async () => {
    await opened?.close();
    await database?.drop();
  });

  test('idle pooled connections and the LISTEN connection cut: the process goes on, reads and the listener come back', async () => {
    // Several connections in the pool, idle, and the listener.
    await Promise.all([1, 2, 3].map(() => readsWork(opened)));
    await eventually('the listener listens', () => listening(opened));
    const cut = await terminateOthers(database.url);
    assert.ok(cut >= 2, `terminated ${cut} server processes`);
    await eventually('reads work again', () => readsWork(opened));
    await eventually('the listener listens again', () => listening(opened));
    const before = opened.dialect.changeCount();
    await withClient(database.url, (client) =>
      client.query(
        `insert into tombstones (agent_id, owner, restricted, deleted_at) values ('cut', 'acme', 0, '2026-01-01T00:00:00Z')`,
      ),
    );
    await eventually('another connection’s commit is heard', () => opened.dialect.changeCount() !== before);
  });

  test('a transaction whose connection is cut between two statements fails alone, and the process goes on', async () => {
    const attempt = opened.db.transaction().execute(async (trx) => {
      const { rows } = await sql<{ pid: number }>`select pg_backend_pid() as pid`.execute(trx);
      const pid = rows[0]!.pid;
      // The connection sits checked out and idle while the server ends its process.
      await withClient(database.url, async (client) => {
        await client.query('select pg_terminate_backend($1)', [pid]);
        await eventually('its server process is gone', async () => {
          const left = await client.query('select 1 from pg_stat_activity where pid = $1', [pid]);
          return left.rowCount === 0;
        });
      });
      await trx.selectFrom('tombstones').select('agent_id').execute();
    });
    await assert.rejects(attempt);
    await eventually('reads work again', () => readsWork(opened));
    await opened.db.transaction().execute(async (trx) => {
      await trx.deleteFrom('tombstones').where('agent_id', '=', 'cut').execute();
    });
  });

  test('runAlone’s lock connection cut while its work runs: the work finishes, the process goes on', async () => {
    const ran = await opened.dialect.runAlone('terminate-test', async () => {
      await terminateOthers(database.url);
      await eventually('reads work again', () => readsWork(opened));
      return 'done';
    });
    assert.deepEqual(ran, { ran: true, value: 'done' });
    await eventually('reads work again', () => readsWork(opened));
  });
});
