/**
 * The registry's database on PostgreSQL (127.0.0.1:5432, a fresh database per run, dropped at the end): every
 * migration runs, once, under the advisory lock, also when several replicas start together; opening again runs
 * nothing; a database a newer registry migrated is refused; a write by another connection changes the change
 * counter (LISTEN/NOTIFY), a write to the crawl queue's tables does not; writes batched together go as one
 * statement; and a server that cannot be reached, a database that does not exist or a refused login is one line
 * naming the flag that fixes it.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import pg from 'pg';
import {
  DatabaseUnavailableError,
  MIGRATION_ORDER,
  MigrationError,
  openDatabase,
} from '../../src/db/index.js';
import { CHANGE_CHANNEL, isCrawlBookkeeping } from '../../src/db/postgres.js';
import { executeWrites } from '../../src/db/write-batch.js';
import { freshPostgresDatabase, type TestPostgres } from './postgres-fixture.js';

function withPart(url: string, change: (url: URL) => void): string {
  const parsed = new URL(url);
  change(parsed);
  return parsed.href;
}

/** Waits (bounded) until `check` holds: a notification arrives when the other connection's commit is delivered. */
async function eventually(check: () => boolean): Promise<void> {
  for (let i = 0; i < 200 && !check(); i++) await new Promise((resolve) => setTimeout(resolve, 10));
  assert.ok(check());
}

describe('PostgreSQL database', () => {
  let database: TestPostgres;
  before(async () => {
    database = await freshPostgresDatabase();
  });
  after(async () => {
    await database?.drop();
  });

  test('replicas starting together run every migration once, in order; opening again runs none', async () => {
    const opened = await Promise.all([1, 2, 3].map(() => openDatabase({ url: database.url })));
    try {
      const ran = opened.map((one) => one.migrated);
      assert.deepEqual(
        ran.filter((names) => names.length > 0),
        [MIGRATION_ORDER],
      );
      assert.equal(ran.filter((names) => names.length === 0).length, 2);
      assert.equal(opened[0]!.dialect.name, 'postgres');
      assert.deepEqual(await opened[0]!.dialect.integrityCheck(), ['ok']);
    } finally {
      await Promise.all(opened.map((one) => one.close()));
    }
    const again = await openDatabase({ url: database.url });
    assert.deepEqual(again.migrated, []);
    await again.close();
  });

  test("another connection's commit changes the change counter; this one's own write at once", async () => {
    const a = await openDatabase({ url: database.url });
    const b = await openDatabase({ url: database.url });
    try {
      const before = a.dialect.changeCount();
      assert.equal(a.dialect.changeCount(), before, 'nothing written, nothing changed');
      await b.db
        .insertInto('tombstones')
        .values({ agent_id: 'gone', owner: 'acme', restricted: 0, deleted_at: '2026-01-01T00:00:00Z' })
        .execute();
      await eventually(() => a.dialect.changeCount() !== before);
      const own = b.dialect.changeCount();
      await b.db.deleteFrom('tombstones').where('agent_id', '=', 'gone').execute();
      assert.notEqual(b.dialect.changeCount(), own);
    } finally {
      await a.close();
      await b.close();
    }
  });

  test('writes to the crawl queue move no change counter, this process’s or another’s; an agent write does', async () => {
    const b = await openDatabase({ url: database.url });
    // What every replica's listening connection hears: the table each commit wrote.
    const listener = new pg.Client({ connectionString: database.url });
    await listener.connect();
    const heard: string[] = [];
    listener.on('notification', (message) => heard.push(message.payload ?? ''));
    await listener.query(`listen ${CHANGE_CHANNEL}`);
    try {
      const own = b.dialect.changeCount();
      // A claim and its renewal, as a replica crawling writes them several times a minute.
      await b.db
        .insertInto('crawl_hosts')
        .values({
          origin: 'https://queued.example',
          added_by: 'test',
          added_at: '2026-01-01T00:00:00Z',
          status: 'claimed',
          next_due_at: '2026-01-01T00:00:00Z',
          claimed_by: 'crawler:test',
          claimed_until: '2026-01-01T00:05:00Z',
          failures: 0,
          last_error: null,
          last_outcome: null,
          last_crawled_at: null,
          crawls: 0,
          revalidated: null,
        })
        .execute();
      await b.db
        .updateTable('crawl_hosts')
        .set({ claimed_until: '2026-01-01T00:10:00Z' })
        .where('claimed_by', '=', 'crawler:test')
        .execute();
      assert.equal(b.dialect.changeCount(), own, 'its own crawl writes leave the counter');
      await b.db
        .insertInto('tombstones')
        .values({ agent_id: 'crawled', owner: 'acme', restricted: 0, deleted_at: '2026-01-01T00:00:00Z' })
        .execute();
      assert.notEqual(b.dialect.changeCount(), own, 'its own agent write moves it at once');
      // Notifications arrive in commit order: once the agent write's is heard, the crawl writes' were before it.
      await eventually(() => heard.includes('tombstones'));
      assert.deepEqual(heard, ['crawl_hosts', 'crawl_hosts', 'tombstones']);
      assert.deepEqual(
        heard.map((table) => isCrawlBookkeeping(table)),
        [true, true, false],
        'followers pass over the first two and count the last',
      );
    } finally {
      await listener.end();
      await b.close();
    }
  });

  test('writes batched with executeWrites go to the server as one statement, each applied, counted as a write', async () => {
    const opened = await openDatabase({ url: database.url });
    const client = pg.Client.prototype as unknown as { query: (...args: unknown[]) => unknown };
    const query = client.query;
    const sent: unknown[] = [];
    client.query = function (this: unknown, ...args: unknown[]) {
      sent.push(args[0]);
      return query.apply(this, args);
    };
    try {
      const before = opened.dialect.changeCount();
      await executeWrites(opened.db, [
        opened.db
          .insertInto('tombstones')
          .values({ agent_id: 'batched', owner: 'acme', restricted: 0, deleted_at: '2026-01-01T00:00:00Z' }),
        opened.db.deleteFrom('tombstones').where('agent_id', '=', 'never-there'),
        opened.db.insertInto('audit_log').values({
          at: '2026-01-01T00:00:00Z',
          actor: 'test',
          action: 'batched',
          target: 'batched',
          details: '{}',
        }),
      ]);
      client.query = query;
      assert.equal(sent.length, 1, 'one statement for three writes');
      assert.notEqual(opened.dialect.changeCount(), before, 'counted at once, before any notification');
      const tombstones = await opened.db
        .selectFrom('tombstones')
        .select('owner')
        .where('agent_id', '=', 'batched')
        .execute();
      assert.deepEqual(tombstones, [{ owner: 'acme' }]);
      const audit = await opened.db
        .selectFrom('audit_log')
        .select('action')
        .where('target', '=', 'batched')
        .execute();
      assert.deepEqual(audit, [{ action: 'batched' }]);
    } finally {
      client.query = query;
      await opened.close();
    }
  });

  test('refuses a database a newer registry migrated, and leaves it as it was', async () => {
    const opened = await openDatabase({ url: database.url });
    await opened.db
      .withTables<{ kysely_migration: { name: string; timestamp: string } }>()
      .insertInto('kysely_migration')
      .values({ name: '2099-01-01-001-from-the-future', timestamp: '2099-01-01T00:00:00Z' })
      .execute();
    await opened.close();
    await assert.rejects(openDatabase({ url: database.url }), (error: unknown) => {
      assert.ok(error instanceof MigrationError);
      assert.match(error.message, /2099-01-01-001-from-the-future.*a newer version wrote it/);
      return true;
    });
  });

  test('a missing database, an unknown user, a closed port and a bad URL are one line each', async () => {
    const cases: Array<[string, RegExp]> = [
      [
        withPart(database.url, (url) => {
          url.pathname = '/agentry_no_such_database';
        }),
        /^PostgreSQL database "agentry_no_such_database" does not exist on 127\.0\.0\.1:5432: .*--database/,
      ],
      [
        withPart(database.url, (url) => {
          url.username = 'agentry_no_such_user';
        }),
        /^PostgreSQL on 127\.0\.0\.1:5432 refused the login of user "agentry_no_such_user" .*--database/,
      ],
      [
        withPart(database.url, (url) => {
          url.port = '1';
        }),
        /^No PostgreSQL server is listening on 127\.0\.0\.1:1: .*--database/,
      ],
      ['postgres://bad host:5432/x', /^The database URL .* is not a valid URL \(--database postgres:\/\//],
    ];
    for (const [url, message] of cases) {
      await assert.rejects(openDatabase({ url }), (error: unknown) => {
        assert.ok(error instanceof DatabaseUnavailableError, String(error));
        assert.match(error.message, message);
        assert.ok(!error.message.includes('\n'));
        return true;
      });
    }
  });
});
