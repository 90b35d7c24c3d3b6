/**
 * Named prepared statements on PostgreSQL (db/postgres-prepared.ts), on a fresh database through Kysely as the
 * registry uses it: a statement run a few times outside a transaction is prepared on its connection and answers as
 * before; a table changed under a prepared `select *` (another connection adds a column, as a newer replica's
 * migration would) is answered with the new column, not refused; a prepared statement the connection lost is run
 * again; statements inside transactions are never prepared; and the registry's own pool (`openPostgres`) prepares
 * unless told not to (`preparedStatements: false`, for poolers that cannot keep them).
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { Kysely, PostgresDialect, sql } from 'kysely';
import pg from 'pg';
import { openPostgres } from '../../src/db/postgres.js';
import { preparingPool } from '../../src/db/postgres-prepared.js';
import { freshPostgresDatabase, type TestPostgres } from './postgres-fixture.js';

/** A type, not an interface: `withTables` takes a record of tables. */
type Tables = {
  notes: { id: number; body: string };
};

/** The statements prepared on the pool's one connection, by text. */
async function prepared(db: Kysely<Tables>): Promise<string[]> {
  const { rows } = await sql<{ statement: string }>`select statement from pg_prepared_statements`.execute(db);
  return rows.map((row) => row.statement);
}

describe('named prepared statements on PostgreSQL', () => {
  let database: TestPostgres;
  let db: Kysely<Tables>;
  let other: pg.Client;

  before(async () => {
    database = await freshPostgresDatabase();
    // One connection, so that what one statement prepared the next one sees.
    db = new Kysely<Tables>({
      dialect: new PostgresDialect({
        pool: preparingPool(new pg.Pool({ connectionString: database.url, max: 1 })),
      }),
    });
    other = new pg.Client({ connectionString: database.url });
    await other.connect();
    await other.query('create table notes (id integer primary key, body text not null)');
    await other.query(`insert into notes values (1, 'one'), (2, 'two')`);
  });

  after(async () => {
    await other?.end();
    await db?.destroy();
    await database?.drop();
  });

  const readNote = (id: number) => db.selectFrom('notes').selectAll().where('id', '=', id).execute();

  test('a statement run again and again is prepared once on its connection and answers as before', async () => {
    const answers = [];
    for (const id of [1, 2, 1, 2, 1]) answers.push(await readNote(id));
    assert.deepEqual(answers, [
      [{ id: 1, body: 'one' }],
      [{ id: 2, body: 'two' }],
      [{ id: 1, body: 'one' }],
      [{ id: 2, body: 'two' }],
      [{ id: 1, body: 'one' }],
    ]);
    const statements = await prepared(db);
    assert.equal(
      statements.filter((statement) => statement.includes('from "notes"')).length,
      1,
      statements.join('\n'),
    );
  });

  test('a table changed under a prepared select * answers with its new column', async () => {
    for (let i = 0; i < 4; i++) await readNote(1);
    await other.query(`alter table notes add column tag text not null default 'plain'`);
    assert.deepEqual(await readNote(1), [{ id: 1, body: 'one', tag: 'plain' }]);
    // And goes on doing so, under its new name.
    for (let i = 0; i < 4; i++) assert.deepEqual(await readNote(2), [{ id: 2, body: 'two', tag: 'plain' }]);
    await other.query('alter table notes drop column tag');
    assert.deepEqual(await readNote(1), [{ id: 1, body: 'one' }]);
  });

  test('a statement the connection no longer holds prepared is run again', async () => {
    for (let i = 0; i < 4; i++) await readNote(1);
    await sql`deallocate all`.execute(db);
    assert.deepEqual(await readNote(2), [{ id: 2, body: 'two' }]);
    assert.deepEqual(await readNote(1), [{ id: 1, body: 'one' }]);
  });

  test('statements inside a transaction are not prepared', async () => {
    await sql`deallocate all`.execute(db);
    const inside = () =>
      db.transaction().execute((trx) => trx.selectFrom('notes').select('body').where('id', '>', 0).execute());
    for (let i = 0; i < 5; i++) assert.equal((await inside()).length, 2);
    assert.deepEqual(
      (await prepared(db)).filter((statement) => statement.includes('"id" > $1')),
      [],
    );
    // Outside one, the same text is.
    for (let i = 0; i < 5; i++) await db.selectFrom('notes').select('body').where('id', '>', 0).execute();
    assert.equal((await prepared(db)).filter((statement) => statement.includes('"id" > $1')).length, 1);
  });

  test("the registry's pool prepares, unless told not to", async () => {
    for (const preparedStatements of [true, false]) {
      const opened = await openPostgres({ url: database.url, maxConnections: 1, preparedStatements });
      try {
        const registryDb = opened.db.withTables<Tables>();
        for (let i = 0; i < 5; i++)
          await registryDb.selectFrom('notes').select('id').where('id', '<', 9).execute();
        const { rows } = await sql<{
          statement: string;
        }>`select statement from pg_prepared_statements`.execute(opened.db);
        assert.equal(
          rows.some((row) => row.statement.includes('"id" < $1')),
          preparedStatements,
          rows.map((row) => row.statement).join('\n'),
        );
      } finally {
        await opened.close();
      }
    }
  });

  test('a failing statement fails as it would unprepared, and the connection goes on', async () => {
    for (let i = 0; i < 4; i++) {
      await assert.rejects(
        sql`select * from notes where id = ${'not a number'}::integer`.execute(db),
        /invalid input syntax/,
      );
    }
    assert.deepEqual(await readNote(1), [{ id: 1, body: 'one' }]);
  });
});
