/**
 * Moving a SQLite registry into PostgreSQL (`moveRegistryDatabase`, db/copy-database.ts): a registry is filled
 * through its HTTP API (agents registered, updated, deleted, restricted, rated; tokens; an origin crawled from a
 * loopback fleet; another registry imported; vectors from a loopback embeddings endpoint), moved into a fresh
 * PostgreSQL database, and both are read back through Kysely and compared table by table, row by row. Every table
 * of a migrated SQLite registry is either copied or rebuilt (the lexical index), a table the copy does not know
 * stops it, a non-empty target is refused unless replaced, sequences continue after the copied numbers, and a
 * registry on the target finds the moved agents by search at once.
 */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { createSecureFetcher } from '@agentry/client';
import { createOpenAIEmbeddingProvider } from '@agentry/embeddings';
import Database from 'better-sqlite3';
import { type Kysely, sql } from 'kysely';
import {
  type OpenedDatabase,
  openDatabase,
  planDatabaseCopy,
  type Database as RegistryDatabase,
} from '../../src/db/index.js';
import {
  createRegistry,
  DatabaseCopyError,
  moveRegistryDatabase,
  TargetNotEmptyError,
} from '../../src/index.js';
import { emittedOne, woaFor } from '../crawl/support/documents.js';
import { cacheable, type Fleet, startFleet } from '../crawl/support/fleet.js';
import { embeddingsHandler, type LoopbackServer, startServer } from '../search/helpers.js';
import { aidipAgent, asArray, silentLogger, startRegistry, type TestRegistry, tempDir } from '../support.js';
import { freshPostgresDatabase, type TestPostgres } from './postgres-fixture.js';

/** Tables the public API leaves empty in this registry (merges come only from the identity migration). */
const EMPTY_HERE = new Set(['agent_merges']);

type Row = Record<string, unknown>;

/** Every row of `table`, values made comparable across dialects (binary as hex), in one order. */
async function rowsOf(db: Kysely<RegistryDatabase>, table: string): Promise<string[]> {
  const rows = await db.withTables<Record<string, Row>>().selectFrom(table).selectAll().execute();
  return rows
    .map((row) =>
      JSON.stringify(
        Object.fromEntries(
          Object.keys(row)
            .sort()
            .map((key) => {
              const value = row[key];
              return [key, value instanceof Uint8Array ? `hex:${Buffer.from(value).toString('hex')}` : value];
            }),
        ),
      ),
    )
    .sort();
}

describe('moving a SQLite registry into PostgreSQL', () => {
  const dir = tempDir();
  const sourcePath = join(dir.path, 'registry.db');
  let fleet: Fleet;
  let embeddings: LoopbackServer;
  let target: TestPostgres;
  let r: TestRegistry;

  before(async () => {
    fleet = await startFleet();
    embeddings = await startServer(embeddingsHandler(16));
    target = await freshPostgresDatabase();
    const embeddingProvider = createOpenAIEmbeddingProvider({ baseUrl: embeddings.url, model: 'bow' });
    r = await startRegistry(
      {
        databasePath: sourcePath,
        embeddingProvider,
        crawl: { enabled: false, fetcher: fleet.fetcher(), liveness: false },
      },
      tempDir(),
    );
    const acme = (await r.token('publisher', { publisher: 'acme', groups: ['finance'] })).token;
    const client = (await r.token('client', { groups: ['finance'] })).token;
    const register = async (body: unknown): Promise<void> => {
      const answer = await r.request('/agents', { token: acme, body });
      assert.equal(answer.status, 201, answer.text);
    };
    await register(
      aidipAgent({ id: 'translator', name: 'Translator', tags: ['language'], languages: ['en'] }),
    );
    await register(aidipAgent({ id: 'weather', name: 'Weather', capabilities: ['forecast'] }));
    await register(aidipAgent({ id: 'scratch', name: 'Scratch pad' }));
    // Demoted whatever the query (search_demotions).
    await register(aidipAgent({ id: 'old-maps', name: 'Old maps', status: 'deprecated' }));
    await register({
      document: aidipAgent({ id: 'ledger', name: 'Ledger keeper', description: 'Keeps the finance ledger.' }),
      access: { groups: ['finance'] },
    });
    // History: an update; a tombstone: a deletion; quality: feedback.
    const updated = await r.request('/agents/weather', {
      method: 'PUT',
      token: acme,
      body: aidipAgent({ id: 'weather', name: 'Weather', description: 'Forecasts rain and sun.' }),
    });
    assert.equal(updated.status, 200, updated.text);
    assert.equal((await r.request('/agents/scratch', { method: 'DELETE', token: acme })).status, 204);
    const rated = await r.request('/agents/translator/feedback', {
      token: client,
      body: { rating: 4, outcome: 'success', comment: 'quick' },
    });
    assert.equal(rated.status, 201, rated.text);
    // Crawl state: an origin crawled once.
    const origin = fleet.origin('alpha.test');
    fleet.route('alpha.test', '/.well-known/woa.json', cacheable(woaFor(origin), '"woa-1"'));
    fleet.route(
      'alpha.test',
      '/.well-known/agent-card.json',
      cacheable(emittedOne(origin, 'a2a'), '"card-1"'),
    );
    assert.equal((await r.request('/hosts', { token: r.admin, body: { origin } })).status, 201);
    const crawled = await r.registry.crawler.runOnce();
    assert.equal(crawled.failed, 0);
    // Federation state: another registry imported.
    const other = await startRegistry();
    try {
      const mirror = (await other.token('publisher', { publisher: 'mirror' })).token;
      const storm = aidipAgent({
        id: 'storm',
        name: 'Storm Warnings',
        endpoint: 'https://storm.example.com/a',
      });
      assert.equal((await other.request('/agents', { token: mirror, body: storm })).status, 201);
      const fetcher = createSecureFetcher({ allowHttp: true, allowPrivateNetwork: true, cache: false });
      try {
        const imported = await r.registry.importRegistry({ baseUrl: other.url, kind: 'agentry', fetcher });
        assert.equal(imported.imported, 1, JSON.stringify(imported.problems));
      } finally {
        await fetcher.close();
      }
    } finally {
      await other.close();
    }
    await r.close();
    // Text the copy must carry as it is, however PostgreSQL's array and bytea syntaxes would read it.
    const file = new Database(sourcePath);
    try {
      const awkward = [
        'say "hi" \\ {a,b} (c) \'d\'',
        '',
        'NULL',
        '\\x00ff',
        'line one\nline two\ttab',
        'café 日本 🚀',
      ];
      const insert = file.prepare(
        'insert into audit_log (at, actor, action, target, details) values (?, ?, ?, ?, ?)',
      );
      for (const text of awkward) insert.run('2026-11-28T00:00:00.000Z', text, 'test.awkward', text, text);
    } finally {
      file.close();
    }
  });

  after(async () => {
    await embeddings?.close();
    await fleet?.close();
    await target?.drop();
    dir.remove();
  });

  test('every row of every table arrives, the lexical index is rebuilt, and sequences continue', async () => {
    const progress: string[] = [];
    const indexing: number[] = [];
    const moved = await moveRegistryDatabase({
      from: sourcePath,
      to: target.url,
      onProgress: ({ table, copied, total, done }) => {
        if (done) progress.push(`${table} ${copied}/${total}`);
      },
      onIndexed: (agents) => indexing.push(agents),
    });
    const agents = moved.tables.find((table) => table.table === 'agents')?.rows;
    assert.equal(moved.indexed, agents, 'every agent is in the rebuilt lexical index');
    assert.equal(indexing.at(-1), agents);
    assert.ok(moved.rebuilt.includes('search_lexical'), moved.rebuilt.join(', '));

    const source = await openDatabase({ path: sourcePath });
    const copy = await openDatabase({ url: target.url });
    try {
      // Every table SQLite has is copied or rebuilt: none is left behind without a word.
      const plan = await planDatabaseCopy(source, copy);
      const copied = plan.tables.map((table) => table.table);
      const sqliteTables = (
        await sql<{ name: string }>`select name from sqlite_master where type = 'table'
          and name not like 'sqlite_%' and name not like 'kysely_migration%'`.execute(source.db)
      ).rows.map((row) => row.name);
      for (const table of sqliteTables) {
        assert.ok(
          copied.includes(table) || plan.rebuilt.includes(table),
          `${table} is neither copied nor rebuilt`,
        );
      }
      assert.deepEqual(
        moved.tables.map((table) => table.table),
        copied,
      );
      // Parents before the tables that point at them.
      assert.ok(copied.indexOf('agents') < copied.indexOf('agent_tags'));
      assert.ok(copied.indexOf('agents') < copied.indexOf('feedback'));

      for (const { table, rows } of moved.tables) {
        const before = await rowsOf(source.db, table);
        const after = await rowsOf(copy.db, table);
        assert.equal(rows, before.length, `${table}: rows counted`);
        assert.deepEqual(after, before, `${table}: the same rows`);
        if (!EMPTY_HERE.has(table)) assert.ok(before.length > 0, `${table} has rows in this registry`);
        assert.ok(progress.includes(`${table} ${rows}/${rows}`), `${table}: progress told`);
      }
      // Binary columns arrive as bytes (bytea), not as text.
      const vector = await copy.db
        .selectFrom('search_vectors')
        .select('vector')
        .where('vector', 'is not', null)
        .executeTakeFirstOrThrow();
      assert.ok(vector.vector instanceof Uint8Array && vector.vector.length === 16 * 4);

      // Identity columns go on from the highest copied number.
      for (const table of ['agent_history', 'audit_log', 'feedback'] as const) {
        const highest = await sql<{ seq: number }>`select max(seq) as seq from ${sql.table(table)}`.execute(
          copy.db,
        );
        const next = await sql<{
          seq: number;
        }>`select nextval(pg_get_serial_sequence(${table}, 'seq')) as seq`.execute(copy.db);
        assert.equal(next.rows[0]!.seq, highest.rows[0]!.seq + 1, table);
      }

      // The target's triggers stamped every moved agent in its own log of changed agents (not copied).
      assert.ok(plan.rebuilt.includes('agent_changes'), plan.rebuilt.join(', '));
      const unstamped = await sql<{ id: string }>`select id from agents
        where id not in (select agent_id from agent_changes)`.execute(copy.db);
      assert.deepEqual(unstamped.rows, []);

      // Every moved table was analyzed: the planner has statistics from the first query (reltuples is -1 for a
      // table never analyzed or vacuumed).
      const unanalyzed = await sql<{ name: string }>`select c.relname as name from pg_class c
        join pg_stat_user_tables s on s.relid = c.oid
        where s.schemaname = current_schema() and c.relname not like 'kysely_migration%'
          and (s.last_analyze is null or c.reltuples < 0)`.execute(copy.db);
      assert.deepEqual(unanalyzed.rows, []);
      const agentStatistics = await sql<{ columns: number }>`select count(*)::int as columns from pg_stats
        where schemaname = current_schema() and tablename = 'agents'`.execute(copy.db);
      assert.ok(agentStatistics.rows[0]!.columns > 0, 'the agents table has column statistics');
    } finally {
      await copy.close();
      await source.close();
    }

    // A registry on the target answers from the moved data: a read, a restricted agent's absence, a search.
    const moved2 = await createRegistry({
      databasePath: target.url,
      embeddings: 'none',
      logger: silentLogger,
      backgroundEmbedding: false,
    });
    try {
      const get = await moved2.fetch(new Request('http://registry.test/agents/weather'));
      assert.equal(get.status, 200);
      const found = await moved2.fetch(
        new Request('http://registry.test/agents/search', {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ query: 'forecasts rain', mode: 'lexical' }),
        }),
      );
      assert.equal(found.status, 200);
      assert.deepEqual(
        asArray(await found.json()).map((hit) => hit['id']),
        ['weather'],
      );
      const changes = await moved2.fetch(
        new Request('http://registry.test/agents?updated_since=2000-01-01T00:00:00Z&limit=100'),
      );
      assert.ok(
        asArray(await changes.json()).some((item) => item['id'] === 'scratch' && item['deleted'] === true),
        'the tombstone came along',
      );
    } finally {
      await moved2.close();
    }
  });

  test('a target holding rows is refused and left as it was; with replace it is copied over', async () => {
    // A row only the target has: still there after the refusal, gone after the replacing copy.
    const onTarget = async <T>(work: (db: Kysely<RegistryDatabase>) => Promise<T>): Promise<T> => {
      const opened = await openDatabase({ url: target.url });
      try {
        return await work(opened.db);
      } finally {
        await opened.close();
      }
    };
    const extraRows = (db: Kysely<RegistryDatabase>) =>
      db.selectFrom('audit_log').select('seq').where('action', '=', 'test.extra').execute();
    await onTarget((db) =>
      db
        .insertInto('audit_log')
        .values({
          at: new Date().toISOString(),
          actor: 'test',
          action: 'test.extra',
          target: 'x',
          details: '{}',
        })
        .execute(),
    );
    await assert.rejects(
      moveRegistryDatabase({ from: sourcePath, to: target.url }),
      (error: unknown) =>
        error instanceof TargetNotEmptyError &&
        error.tables.includes('agents') &&
        /not empty/.test(error.message),
    );
    assert.equal((await onTarget(extraRows)).length, 1, 'the refused target is left as it was');
    const again = await moveRegistryDatabase({ from: sourcePath, to: target.url, replace: true });
    const source = await openDatabase({ path: sourcePath });
    const copy = await openDatabase({ url: target.url });
    try {
      for (const { table } of again.tables) {
        assert.deepEqual(await rowsOf(copy.db, table), await rowsOf(source.db, table), table);
      }
      assert.equal((await extraRows(copy.db)).length, 0, 'what the target held is replaced');
      const indexed = await sql<{ n: number }>`select count(*) as n from search_lexical_documents`.execute(
        copy.db,
      );
      assert.equal(indexed.rows[0]!.n, again.indexed, 'no lexical row left over from before');
    } finally {
      await copy.close();
      await source.close();
    }
  });

  test('a table the copy does not know, and a missing or foreign source, stop it before anything is written', async () => {
    // The plan reads both schemas whatever their dialect: SQLite targets here, as fast as it gets.
    const withTable = async (name: string, statement: string): Promise<string> => {
      const path = join(dir.path, name);
      const opened: OpenedDatabase = await openDatabase({ path });
      await opened.close();
      const raw = new Database(path);
      raw.exec(statement);
      raw.close();
      return path;
    };
    const odd = await withTable('odd.db', 'create table mystery (id integer primary key)');
    const plain = join(dir.path, 'plain.db');
    await assert.rejects(
      moveRegistryDatabase({ from: odd, to: plain }),
      (error: unknown) =>
        error instanceof DatabaseCopyError &&
        /table mystery is in the source but not in the target/.test(error.message),
    );
    const copy = await openDatabase({ path: plain });
    try {
      assert.equal((await copy.db.selectFrom('tokens').select('id').execute()).length, 0, 'nothing written');
    } finally {
      await copy.close();
    }
    const extra = await withTable('extra.db', 'create table extra (id integer primary key, note text)');
    await assert.rejects(
      moveRegistryDatabase({ from: sourcePath, to: extra }),
      /table extra is in the target but not in the source/,
    );
    await assert.rejects(
      moveRegistryDatabase({ from: join(dir.path, 'missing.db'), to: plain }),
      /There is no registry database file at .*missing\.db/,
    );
    const foreign = join(dir.path, 'foreign.db');
    const notes = new Database(foreign);
    notes.exec('create table notes (text text)');
    notes.close();
    await assert.rejects(
      moveRegistryDatabase({ from: foreign, to: plain }),
      /foreign\.db is not a registry database/,
    );
    await assert.rejects(
      moveRegistryDatabase({ from: sourcePath, to: sourcePath }),
      /is both the source and the target/,
    );
  });
});
