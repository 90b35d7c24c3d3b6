/**
 * The lexical index on PostgreSQL (`lexical/postgres.ts`) against SQLite's FTS5 one (`lexical/sqlite.ts`): the
 * same behaviour cases run on both engines (scoring order, prefixes, phrases, stemming, explanations, candidate
 * and excluded scopes, restricted agents kept out of public statistics), and a property test that their top-10
 * orders agree on a generated collection. One fresh PostgreSQL database per run, dropped at the end.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import fc from 'fast-check';
import { Kysely, Migrator, PostgresDialect, sql } from 'kysely';
import pg from 'pg';
import { lexicalFields } from '../../src/search/document-text.js';
import { FIELD_COLUMNS } from '../../src/search/lexical/fields.js';
import {
  createPostgresLexicalIndex,
  indexWords,
  postgresLexicalMigrations,
} from '../../src/search/lexical/postgres.js';
import { parseLexicalQuery } from '../../src/search/lexical/query.js';
import { createSqliteLexicalIndex } from '../../src/search/lexical/sqlite.js';
import type {
  Executor,
  LexicalFields,
  LexicalIndex,
  LexicalSearchOptions,
} from '../../src/search/lexical/types.js';
import type { SearchDocument } from '../../src/search/types.js';
import { doc, openTestDatabase, type TestDatabase } from './helpers.js';

/** The tables the lexical index is handed (whatever database type the search's executor is). */
type Tables = Executor extends Kysely<infer D> ? D : never;

const SERVER = process.env['AGENTRY_TEST_POSTGRES'] ?? 'postgres://postgres@127.0.0.1:5432';

/** A fresh PostgreSQL database for this run; `drop` removes it (every connection closed first). */
async function freshPostgres(): Promise<{ url: string; drop(): Promise<void> }> {
  const name = `agentry_test_${process.pid}_${Math.random().toString(36).slice(2, 10)}`;
  const admin = new pg.Client({ connectionString: `${SERVER}/postgres` });
  await admin.connect();
  try {
    await admin.query(`CREATE DATABASE ${name}`);
  } finally {
    await admin.end();
  }
  return {
    url: `${SERVER}/${name}`,
    async drop() {
      const client = new pg.Client({ connectionString: `${SERVER}/postgres` });
      await client.connect();
      try {
        await client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      } finally {
        await client.end();
      }
    },
  };
}

/** One engine under test: its index on a database of its own, emptied between cases. */
interface Engine {
  name: string;
  index: LexicalIndex;
  db: Kysely<Tables>;
  reset(): Promise<void>;
}

let server: { url: string; drop(): Promise<void> };
let postgresDb: Kysely<Tables>;
let sqliteDb: TestDatabase;
let engines: Engine[] = [];

before(async () => {
  server = await freshPostgres();
  postgresDb = new Kysely<Tables>({
    dialect: new PostgresDialect({ pool: new pg.Pool({ connectionString: server.url, max: 4 }) }),
  });
  const { error } = await new Migrator({
    db: postgresDb,
    provider: {
      getMigrations: async () => ({ ...postgresLexicalMigrations }),
    },
  }).migrateToLatest();
  if (error) throw error;
  sqliteDb = await openTestDatabase();
  const sqlite = createSqliteLexicalIndex();
  const postgres = createPostgresLexicalIndex();
  engines = [
    {
      name: 'sqlite',
      index: sqlite,
      db: sqliteDb.db,
      async reset() {
        const ids = await sql<{ agent_id: string }>`SELECT agent_id FROM search_lexical_rows`.execute(
          sqliteDb.db,
        );
        await sqlite.remove(
          sqliteDb.db,
          ids.rows.map((row) => row.agent_id),
        );
      },
    },
    {
      name: 'postgres',
      index: postgres,
      db: postgresDb,
      async reset() {
        const ids = await sql<{ agent_id: string }>`SELECT agent_id FROM search_lexical_documents`.execute(
          postgresDb,
        );
        await postgres.remove(
          postgresDb,
          ids.rows.map((row) => row.agent_id),
        );
      },
    },
  ];
});

after(async () => {
  await postgresDb?.destroy();
  await sqliteDb?.dispose();
  await server?.drop();
});

type Entry = SearchDocument & { restricted?: boolean };

async function load(engine: Engine, documents: readonly Entry[]): Promise<void> {
  await engine.reset();
  await engine.index.write(
    engine.db,
    documents.map((document) => ({
      id: document.id,
      fields: lexicalFields(document),
      restricted: document.restricted ?? false,
    })),
  );
}

async function ranked(
  engine: Engine,
  query: string,
  options: Partial<LexicalSearchOptions> = {},
): Promise<Array<{ id: string; score: number }>> {
  return engine.index.search(engine.db, parseLexicalQuery(query), { limit: 10, ...options });
}

const ids = async (engine: Engine, query: string, options: Partial<LexicalSearchOptions> = {}) =>
  (await ranked(engine, query, options)).map((hit) => hit.id);

const agents: Entry[] = [
  doc('weather', {
    name: 'get_weather',
    description: 'Current conditions and a seven day forecast for any city.',
    tags: ['meteorology'],
    operations: [
      {
        name: 'getForecast',
        description: 'Daily forecast',
        examples: ['rain in Paris tomorrow?'],
        parameters: ['city', 'days'],
      },
    ],
  }),
  doc('issues', {
    name: 'Tracker',
    description: 'Files bugs in a project.',
    operations: [
      {
        name: 'createIssue',
        description: 'Opens a new issue',
        examples: [],
        parameters: ['repositoryName', 'title'],
      },
    ],
  }),
  doc('mentions-weather', {
    name: 'News digest',
    description: 'Summarises the news, including weather reports.',
  }),
  doc('translator', {
    name: 'Translator',
    description: 'Translates text between languages.',
    capabilities: ['translation'],
  }),
  doc('search-cn', { name: 'Bing CN', description: '使用必应搜索指定的关键词，并返回搜索结果列表' }),
  doc('disk', { name: 'write_file', description: 'Creates or overwrites a text on disk.' }),
  doc('browser', { name: 'Browser', description: 'Fetches a web page as Markdown.' }),
];

describe('the lexical index on PostgreSQL, case by case beside FTS5', () => {
  for (const at of [0, 1]) {
    const engine = () => engines[at]!;
    const label = at === 0 ? 'sqlite' : 'postgres';

    it(`${label}: ranks a name match above a description match, and splits identifiers`, async () => {
      await load(engine(), agents);
      assert.deepEqual((await ids(engine(), 'weather')).slice(0, 2), ['weather', 'mentions-weather']);
      assert.equal((await ids(engine(), 'create issue'))[0], 'issues');
      assert.equal((await ids(engine(), 'createIssue'))[0], 'issues');
      assert.equal((await ids(engine(), 'repository name'))[0], 'issues');
      assert.equal((await ids(engine(), 'get forecast'))[0], 'weather');
      const scores = (await ranked(engine(), 'weather')).map((hit) => hit.score);
      assert.ok(scores.every((score) => score > 0));
    });

    it(`${label}: stems English words and folds case and accents`, async () => {
      await load(engine(), agents);
      assert.equal((await ids(engine(), 'FORECASTS'))[0], 'weather');
      assert.equal((await ids(engine(), 'translating'))[0], 'translator');
      assert.equal((await ids(engine(), 'Météorology'))[0], 'weather');
    });

    it(`${label}: matches a word* prefix, and Chinese text by neighbouring characters`, async () => {
      await load(engine(), agents);
      assert.equal((await ids(engine(), 'transl*'))[0], 'translator');
      assert.deepEqual(await ids(engine(), 'transl'), []);
      assert.deepEqual(await ids(engine(), '必应搜索'), ['search-cn']);
      assert.deepEqual(await ids(engine(), '关键词'), ['search-cn']);
    });

    it(`${label}: ranks a quoted phrase side by side first, and still finds its words apart`, async () => {
      await load(engine(), [
        doc('apart', {
          name: 'Reports',
          description: 'Reports on traffic, reports on roads, and the weather.',
        }),
        doc('side-by-side', { name: 'Digest', description: 'Daily weather reports.' }),
        doc('neither', { name: 'Translator', description: 'Translates text.' }),
      ]);
      assert.deepEqual(await ids(engine(), '"weather reports"'), ['side-by-side', 'apart']);
      assert.equal((await ids(engine(), 'weather reports'))[0], 'apart');
      assert.deepEqual(new Set(await ids(engine(), '"reports weather"')), new Set(['apart', 'side-by-side']));
    });

    it(`${label}: treats query syntax as plain words, and function words only when nothing else is asked`, async () => {
      await load(engine(), agents);
      for (const query of [
        '"AND OR NEAR(',
        "name: weather' OR 1=1 --",
        'weather & !forecast | <-> :*',
        '\\ \'"',
      ]) {
        await ranked(engine(), query);
      }
      assert.equal((await ids(engine(), 'please can you tell me the weather'))[0], 'weather');
      assert.deepEqual(new Set(await ids(engine(), 'the and of')), new Set(['mentions-weather', 'weather']));
    });

    it(`${label}: explains which fields matched`, async () => {
      await load(engine(), agents);
      const explained = await engine().index.explain(engine().db, parseLexicalQuery('weather forecast'), [
        'weather',
        'translator',
      ]);
      const weather = explained.get('weather');
      assert.deepEqual(weather?.name, ['weather']);
      assert.deepEqual(weather?.description, ['forecast']);
      assert.equal(explained.get('translator'), undefined);
    });

    it(`${label}: ranks only the candidates it is given, never the excluded, and honours the limit`, async () => {
      await load(engine(), agents);
      assert.deepEqual(await ids(engine(), 'weather', { candidates: new Set(['mentions-weather']) }), [
        'mentions-weather',
      ]);
      assert.deepEqual(await ids(engine(), 'weather', { candidates: new Set() }), []);
      assert.deepEqual(await ids(engine(), 'weather', { excluded: new Set(['weather']) }), [
        'mentions-weather',
      ]);
      assert.equal((await ids(engine(), 'weather', { limit: 1 })).length, 1);
      assert.equal(await engine().index.count(engine().db), agents.length);
    });

    it(`${label}: replaces an agent on write and removes it`, async () => {
      await load(engine(), agents);
      await engine().index.write(engine().db, [
        {
          id: 'translator',
          fields: lexicalFields(doc('translator', { name: 'Tides', description: 'Tide tables.' })),
        },
      ]);
      assert.deepEqual(await ids(engine(), 'translator'), []);
      assert.deepEqual(await ids(engine(), 'tides'), ['translator']);
      await engine().index.remove(engine().db, ['translator']);
      assert.deepEqual(await ids(engine(), 'tides'), []);
      assert.equal(await engine().index.count(engine().db), agents.length - 1);
    });

    it(`${label}: counts no restricted agent in the statistics of a caller who may not see it`, async () => {
      const publicAgents = [
        doc('weather', {
          name: 'get_weather',
          description: 'Current conditions and a forecast for any city.',
        }),
        doc('news', { name: 'News digest', description: 'Summarises the news, including weather reports.' }),
        doc('tides', {
          name: 'Tide tables',
          description: 'Tide tables and harbour water levels for any port.',
        }),
        doc('translator', { name: 'Translator', description: 'Translates text between languages.' }),
      ];
      const hidden = (description: string): Entry => ({
        ...doc('internal', { name: 'Internal', description }),
        restricted: true,
      });
      const excluded = new Set(['internal']);
      for (const query of ['weather forecast', 'tide tables', 'translate text']) {
        await load(engine(), [...publicAgents, hidden('Ledger exports.')]);
        const quiet = await ranked(engine(), query, { excluded });
        await load(engine(), [
          ...publicAgents,
          hidden('Weather weather forecast tide tables translate text, weather everywhere.'),
        ]);
        const loud = await ranked(engine(), query, { excluded });
        assert.ok(quiet.length > 0, query);
        assert.deepEqual(loud, quiet, query);
      }
      // A restricted agent the caller may see is ranked, with the statistics of what it may see.
      const seen = await ranked(engine(), 'weather');
      assert.deepEqual(
        seen.map((hit) => hit.id),
        ['weather', 'internal', 'news'],
      );
    });
  }

  it('scores as FTS5 does: the same ids in the same order, scores within rounding', async () => {
    const queries = [
      'weather',
      'weather forecast',
      'daily forecast city',
      'text',
      '"weather reports"',
      'fetch*',
    ];
    for (const engine of engines) await load(engine, agents);
    for (const query of queries) {
      const [fts5, postgres] = await Promise.all(engines.map((engine) => ranked(engine, query)));
      assert.deepEqual(
        postgres!.map((hit) => hit.id),
        fts5!.map((hit) => hit.id),
        query,
      );
      for (const [i, hit] of postgres!.entries()) {
        assert.ok(Math.abs(hit.score - fts5![i]!.score) < 1e-6, `${query}: ${hit.id}`);
      }
    }
  });
});

/** Words whose stems agree between Porter (FTS5) and Snowball English (PostgreSQL), common to rare. */
const VOCABULARY = [
  'weather',
  'forecast',
  'city',
  'rain',
  'search',
  'file',
  'write',
  'read',
  'image',
  'translate',
  'text',
  'language',
  'report',
  'news',
  'calendar',
  'event',
  'email',
  'send',
  'code',
  'review',
  'github',
  'issue',
  'database',
  'query',
  'map',
  'route',
  'price',
  'stock',
  'music',
  'video',
];

const sentence = (min: number, max: number) =>
  fc
    .array(fc.constantFrom(...VOCABULARY), { minLength: min, maxLength: max })
    .map((words) => words.join(' '));

const generatedFields: fc.Arbitrary<LexicalFields> = fc.record({
  name: sentence(1, 3),
  description: sentence(0, 25),
  tags: sentence(0, 3),
  capabilities: sentence(0, 2),
  operationNames: sentence(0, 4),
  operationText: sentence(0, 15),
  parameters: sentence(0, 4),
});

describe('the lexical index on PostgreSQL against FTS5 (property)', () => {
  it('agrees with FTS5 on the top-10 order for at least 95% of queries on a generated collection', async (t) => {
    const collection = fc.sample(fc.array(generatedFields, { minLength: 60, maxLength: 60 }), {
      seed: 21,
      numRuns: 1,
    })[0]!;
    const queries = fc.sample(
      fc.oneof(
        sentence(1, 4),
        fc.constantFrom(...VOCABULARY).map((word) => `${word.slice(0, 3)}*`),
        sentence(2, 2).map((words) => `"${words}"`),
      ),
      { seed: 21, numRuns: 60 },
    );
    for (const engine of engines) {
      await engine.reset();
      await engine.index.write(
        engine.db,
        collection.map((fields, i) => ({ id: `agent-${i}`, fields, restricted: i % 10 === 9 })),
      );
    }
    let agree = 0;
    const disagreements: string[] = [];
    for (const query of queries) {
      const [fts5, postgres] = await Promise.all(
        engines.map(async (engine) =>
          (await ranked(engine, query, { excluded: new Set(['agent-19']) })).map((hit) => hit.id),
        ),
      );
      if (JSON.stringify(fts5) === JSON.stringify(postgres)) agree++;
      else disagreements.push(query);
    }
    const share = agree / queries.length;
    t.diagnostic(`top-10 orders agree on ${agree} of ${queries.length} queries`);
    assert.ok(
      share >= 0.95,
      `top-10 orders agree on ${agree}/${queries.length}: ${disagreements.join(' | ')}`,
    );
  });
});

describe('the lexical index on PostgreSQL: postings, counts and kept statistics', () => {
  const postgres = () => engines[1]!;
  const collection = () =>
    fc.sample(fc.array(generatedFields, { minLength: 40, maxLength: 40 }), { seed: 7, numRuns: 1 })[0]!;
  const queries = [
    'weather forecast',
    'city rain',
    'rep*',
    '"code review"',
    'github issue query',
    'map route',
  ];

  /** Each lexeme's kept count against its public postings, and the totals against the documents. */
  async function countsDisagree(db: Kysely<Tables>): Promise<unknown[]> {
    const lexemes = await sql<{ lexeme: string; kept: number; counted: number }>`
      SELECT coalesce(t.lexeme, p.lexeme) AS lexeme, coalesce(t.public_rows, 0) AS kept, coalesce(p.n, 0) AS counted
      FROM search_lexical_terms AS t
      FULL JOIN (SELECT lexeme, count(*)::integer AS n FROM search_lexical_postings WHERE NOT restricted
                 GROUP BY lexeme) AS p ON p.lexeme = t.lexeme
      WHERE coalesce(t.public_rows, 0) <> coalesce(p.n, 0)`.execute(db);
    const totals = await sql<{
      restricted: boolean;
      rows: string;
      tokens: string;
      stored: string;
      length: string;
    }>`
      SELECT t.restricted, t.rows, t.tokens, count(d.row_id) AS stored, coalesce(sum(d.length), 0) AS length
      FROM search_lexical_totals AS t LEFT JOIN search_lexical_documents AS d ON d.restricted = t.restricted
      GROUP BY t.restricted, t.rows, t.tokens
      HAVING t.rows <> count(d.row_id) OR t.tokens <> coalesce(sum(d.length), 0)`.execute(db);
    return [...lexemes.rows, ...totals.rows];
  }

  it('keeps each word’s count of public agents and the totals true through rewrites, restrictions and removals', async () => {
    const engine = postgres();
    const fields = collection();
    await engine.reset();
    await engine.index.write(
      engine.db,
      fields.map((entry, i) => ({ id: `agent-${i}`, fields: entry, restricted: i % 7 === 3 })),
    );
    assert.deepEqual(await countsDisagree(engine.db), []);
    // One batch rewrites agents (new text, restriction flipped both ways), repeats an id and adds new ones.
    await engine.index.write(engine.db, [
      ...fields.slice(0, 12).map((_, i) => ({
        id: `agent-${i}`,
        fields: fields[39 - i]!,
        restricted: i % 7 !== 3,
      })),
      { id: 'agent-5', fields: fields[5]!, restricted: false },
      { id: 'new-1', fields: fields[20]! },
    ]);
    assert.deepEqual(await countsDisagree(engine.db), []);
    await engine.index.remove(engine.db, ['agent-0', 'agent-3', 'agent-30', 'new-1', 'missing']);
    assert.deepEqual(await countsDisagree(engine.db), []);
    assert.equal(await engine.index.count(engine.db), 40 - 3);
  });

  it('takes writes of the same new agents from two transactions at once, one after the other', async () => {
    const engine = postgres();
    const fields = collection();
    await engine.reset();
    // Two replicas registering overlapping agents, every one of them new, each in a transaction of its own.
    const write = (from: number, to: number, restricted: boolean) =>
      engine.db.transaction().execute((trx) =>
        engine.index.write(
          trx,
          fields.slice(from, to).map((entry, i) => ({ id: `agent-${from + i}`, fields: entry, restricted })),
        ),
      );
    await Promise.all([write(0, 30, false), write(10, 40, true), write(5, 35, false)]);
    assert.deepEqual(await countsDisagree(engine.db), []);
    assert.equal(await engine.index.count(engine.db), 40);
  });

  it('ranks a database indexed before the postings migration as one written now', async () => {
    const older = await freshPostgres();
    const olderDb = new Kysely<Tables>({
      dialect: new PostgresDialect({ pool: new pg.Pool({ connectionString: older.url, max: 2 }) }),
    });
    try {
      const [first, ...rest] = Object.entries(postgresLexicalMigrations);
      const firstOnly = await new Migrator({
        db: olderDb,
        provider: { getMigrations: async () => Object.fromEntries([first!]) },
      }).migrateToLatest();
      if (firstOnly.error) throw firstOnly.error;
      // What the engine before postings wrote: a row per agent with a tsvector per field and one of them all.
      const fields = collection();
      let publicRows = 0;
      let publicTokens = 0;
      for (const [i, entry] of fields.entries()) {
        const words = FIELD_COLUMNS.map(([field]) => indexWords(entry[field]).join(' '));
        const length = words.reduce((sum, text) => sum + (text === '' ? 0 : text.split(' ').length), 0);
        const restricted = i % 7 === 3;
        if (!restricted) {
          publicRows++;
          publicTokens += length;
        }
        const vector = (text: string) => sql`to_tsvector('agentry_english'::regconfig, ${text})`;
        await sql`INSERT INTO search_lexical_documents (agent_id, restricted, length,
                    ${sql.raw(FIELD_COLUMNS.map(([, column]) => column).join(', '))},
                    ${sql.raw(FIELD_COLUMNS.map(([, column]) => `${column}_v`).join(', '))}, document)
                  VALUES (${`agent-${i}`}, ${restricted}, ${length}, ${sql.join(words)},
                          ${sql.join(words.map(vector))}, ${vector(words.join(' '))})`.execute(olderDb);
      }
      await sql`UPDATE search_lexical_totals SET rows = ${publicRows}, tokens = ${publicTokens}
                WHERE NOT restricted`.execute(olderDb);
      await sql`UPDATE search_lexical_totals SET rows = ${fields.length - publicRows},
                  tokens = (SELECT coalesce(sum(length), 0) FROM search_lexical_documents WHERE restricted)
                WHERE restricted`.execute(olderDb);
      const migrated = await new Migrator({
        db: olderDb,
        provider: { getMigrations: async () => ({ ...postgresLexicalMigrations }) },
      }).migrateToLatest();
      if (migrated.error) throw migrated.error;
      assert.deepEqual(
        migrated.results?.map((result) => result.migrationName),
        rest.map(([name]) => name),
      );

      const engine = postgres();
      await engine.reset();
      await engine.index.write(
        engine.db,
        fields.map((entry, i) => ({ id: `agent-${i}`, fields: entry, restricted: i % 7 === 3 })),
      );
      assert.deepEqual(await countsDisagree(olderDb), []);
      for (const query of queries) {
        for (const options of [{}, { excluded: new Set(['agent-3']) }]) {
          const lexicalQuery = parseLexicalQuery(query);
          const [written, rebuilt] = await Promise.all([
            engine.index.search(engine.db, lexicalQuery, { limit: 20, ...options }),
            engine.index.search(olderDb, lexicalQuery, { limit: 20, ...options }),
          ]);
          assert.ok(written.length > 0, query);
          assert.deepEqual(rebuilt, written, query);
        }
      }
    } finally {
      await olderDb.destroy();
      await older.drop();
    }
  });

  it('keeps its statistics between searches only until the change counter moves, and never a restricted agent in them', async () => {
    const writer = postgres();
    let changes = 0;
    const reader = createPostgresLexicalIndex({ changeCount: () => changes });
    const fresh = () => createPostgresLexicalIndex();
    const fields = collection();
    await writer.reset();
    await writer.index.write(
      writer.db,
      fields.slice(0, 30).map((entry, i) => ({ id: `agent-${i}`, fields: entry })),
    );
    changes++;
    const search = (index: LexicalIndex, query: string) =>
      index.search(writer.db, parseLexicalQuery(query), { limit: 20, excluded: new Set(['hidden']) });
    for (const query of queries) assert.deepEqual(await search(reader, query), await search(fresh(), query));

    // Another writer (another replica) adds public agents and a restricted one that says every query's words.
    await writer.index.write(writer.db, [
      ...fields.slice(30).map((entry, i) => ({ id: `late-${i}`, fields: entry })),
      {
        id: 'hidden',
        fields: { ...fields[0]!, description: `${queries.join(' ').replaceAll(/["*]/g, '')} weather city` },
        restricted: true,
      },
    ]);
    // Its commit is heard of: the counter moves, and the reader ranks as an index that keeps nothing.
    changes++;
    let moved = 0;
    for (const query of queries) {
      const [kept, read] = await Promise.all([search(reader, query), search(fresh(), query)]);
      assert.deepEqual(kept, read, query);
      assert.ok(!kept.some((hit) => hit.id === 'hidden'), query);
      if (kept.some((hit) => hit.id.startsWith('late-'))) moved++;
    }
    assert.ok(moved > 0);
  });
});
