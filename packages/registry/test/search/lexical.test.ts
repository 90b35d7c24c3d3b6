import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import fc from 'fast-check';
import type { SearchIndex } from '../../src/search/index.js';
import { parseLexicalQuery } from '../../src/search/lexical/query.js';
import { createSqliteLexicalIndex } from '../../src/search/lexical/sqlite.js';
import { createSearchIndex, doc, openTestDatabase, type TestDatabase } from './helpers.js';

const agents = [
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

describe('lexical search', () => {
  let database: TestDatabase;
  let index: SearchIndex;
  before(async () => {
    database = await openTestDatabase();
    index = await createSearchIndex(database.db, undefined);
    await index.upsert(agents);
  });
  after(() => database.dispose());

  const ids = async (query: string, options: Partial<Parameters<SearchIndex['search']>[1]> = {}) =>
    (await index.search(query, { top: 10, ...options })).map((hit) => hit.id);

  it('ranks a match in the name above one in a description', async () => {
    assert.deepEqual((await ids('weather')).slice(0, 2), ['weather', 'mentions-weather']);
  });

  it('splits identifiers into words, in documents and in queries', async () => {
    assert.equal((await ids('create issue'))[0], 'issues');
    assert.equal((await ids('createIssue'))[0], 'issues');
    assert.equal((await ids('repository name'))[0], 'issues');
    assert.equal((await ids('get forecast'))[0], 'weather');
  });

  it('reads a path in a request as a file and a link as a web page', async () => {
    // Neither request says "file" or "page"; the agents say nothing of paths or links.
    assert.equal((await ids('put the summary in /srv/notes/today.md'))[0], 'disk');
    assert.equal((await ids('summarise https://example.org/post/3 for me'))[0], 'browser');
  });

  it('stems English words and folds case and accents', async () => {
    assert.equal((await ids('FORECASTS'))[0], 'weather');
    assert.equal((await ids('translating'))[0], 'translator');
    assert.equal((await ids('Météorology'))[0], 'weather');
  });

  it('ranks a quoted phrase side by side first, and still finds its words apart', async () => {
    const phraseIndex = await openTestDatabase();
    try {
      const search = await createSearchIndex(phraseIndex.db, undefined);
      await search.upsert([
        doc('apart', {
          name: 'Reports',
          description: 'Reports on traffic, reports on roads, and the weather.',
        }),
        doc('side-by-side', { name: 'Digest', description: 'Daily weather reports.' }),
        doc('neither', { name: 'Translator', description: 'Translates text.' }),
      ]);
      const ranked = async (query: string) => (await search.search(query, { top: 10 })).map((hit) => hit.id);
      assert.deepEqual(await ranked('"weather reports"'), ['side-by-side', 'apart']);
      // Without the quotes, the agent that says "reports" most (and in its name) comes first.
      assert.equal((await ranked('weather reports'))[0], 'apart');
      // A phrase that no agent holds does not leave the query empty-handed.
      assert.deepEqual(new Set(await ranked('"reports weather"')), new Set(['apart', 'side-by-side']));
    } finally {
      await phraseIndex.dispose();
    }
  });

  it('matches a word* prefix', async () => {
    assert.equal((await ids('transl*'))[0], 'translator');
    assert.deepEqual(await ids('transl'), []);
  });

  it('finds Chinese text by neighbouring characters', async () => {
    assert.deepEqual(await ids('必应搜索'), ['search-cn']);
    assert.deepEqual(await ids('关键词'), ['search-cn']);
  });

  it('ignores function words unless nothing else is asked', async () => {
    assert.equal((await ids('please can you tell me the weather'))[0], 'weather');
    // Only function words: then they are the query ("the" and "and" occur in two descriptions).
    assert.deepEqual(new Set(await ids('the and of')), new Set(['mentions-weather', 'weather']));
  });

  it('explains which fields matched', async () => {
    const [hit] = await index.search('weather forecast', { top: 1 });
    assert.equal(hit?.id, 'weather');
    assert.ok(hit.why.includes("name matches 'weather'"), hit.why.join('; '));
    assert.ok(
      hit.why.some((reason) => reason.startsWith('description matches') && reason.includes("'forecast'")),
    );
    assert.ok(hit.lexical !== undefined && hit.lexical > 0);
    assert.equal(hit.semantic, undefined);
  });

  it('explains hits the same whether it looks each one up or filters the matches', async () => {
    // A registry of millions explains by looking its hits up; a small one filters the query's matches.
    const query = parseLexicalQuery('weather forecast for a city');
    const hits = ['weather', 'mentions-weather', 'translator', 'no-such-agent'];
    const filtered = await createSqliteLexicalIndex().explain(database.db, query, hits);
    const lookedUp = await createSqliteLexicalIndex({ explainLookupsFrom: 0 }).explain(
      database.db,
      query,
      hits,
    );
    assert.deepEqual(new Map([...lookedUp].sort()), new Map([...filtered].sort()));
    assert.deepEqual([...filtered.keys()].sort(), ['mentions-weather', 'weather']);
    assert.deepEqual(filtered.get('weather')?.name, ['weather']);
  });

  it('treats FTS5 syntax in a query as plain words', async () => {
    for (const query of [
      '"AND OR NEAR(',
      '*',
      'weather AND',
      'NOT weather',
      'name:weather',
      '{name}: x',
      '^weather',
      'a"b"c"',
      '(',
      ')',
      '""',
      '-',
      'NEAR(weather forecast, 2)',
    ]) {
      await assert.doesNotReject(index.search(query, { top: 5 }), query);
    }
    assert.ok((await ids('name:weather')).includes('weather'));
  });

  it('never throws, whatever the query (property)', async () => {
    await fc.assert(
      fc.asyncProperty(fc.string({ unit: 'binary', maxLength: 60 }), async (query) => {
        const hits = await index.search(query, { top: 5 });
        assert.ok(hits.length <= 5);
      }),
      { numRuns: 300 },
    );
  });

  it('ranks only the candidates it is given', async () => {
    assert.deepEqual(await ids('weather', { candidates: new Set(['mentions-weather', 'translator']) }), [
      'mentions-weather',
    ]);
    assert.deepEqual(await ids('weather', { candidates: new Set() }), []);
    assert.deepEqual(await ids('weather', { candidates: new Set(['unknown']) }), []);
  });

  it('never ranks the agents it is told to leave out', async () => {
    const all = await ids('weather');
    assert.ok(all.includes('weather') && all.includes('mentions-weather'));
    const without = await ids('weather', { excluded: new Set(['weather', 'unknown']) });
    assert.deepEqual(
      without,
      all.filter((id) => id !== 'weather'),
    );
    assert.deepEqual(
      await ids('weather', {
        candidates: new Set(['weather', 'mentions-weather']),
        excluded: new Set(['mentions-weather']),
      }),
      ['weather'],
    );
  });

  it('honours top', async () => {
    assert.equal((await ids('weather', { top: 1 })).length, 1);
    assert.deepEqual(await ids('weather', { top: 0 }), []);
  });

  it('falls back to lexical ranking when asked for semantic without a provider', async () => {
    const hits = await index.search('weather', { top: 3, mode: 'semantic' });
    assert.equal(hits[0]?.id, 'weather');
    assert.ok(hits.every((hit) => hit.semantic === undefined));
  });
});

describe('lexical index writes', () => {
  it('replaces an agent on upsert, removes it, and keeps both across a restart', async () => {
    const database = await openTestDatabase();
    try {
      const index = await createSearchIndex(database.db, undefined);
      await index.upsert([
        doc('a', { name: 'Alpha', description: 'finds flights' }),
        doc('b', { name: 'Beta', description: 'books hotels' }),
      ]);
      await index.upsert([doc('a', { name: 'Alpha', description: 'rents cars' })]);
      assert.deepEqual(
        (await index.search('flights', { top: 5 })).map((hit) => hit.id),
        [],
      );
      assert.deepEqual(
        (await index.search('cars', { top: 5 })).map((hit) => hit.id),
        ['a'],
      );
      assert.equal((await index.stats()).documents, 2);

      await index.remove(['b', 'never-indexed']);
      assert.deepEqual(
        (await index.search('hotels', { top: 5 })).map((hit) => hit.id),
        [],
      );
      const before = await index.search('cars alpha', { top: 5 });

      await database.close();
      const reopened = await database.reopen();
      try {
        const again = await createSearchIndex(reopened.db, undefined);
        assert.deepEqual(await again.search('cars alpha', { top: 5 }), before);
        assert.equal((await again.stats()).documents, 1);
      } finally {
        await reopened.close();
      }
    } finally {
      await database.dispose();
    }
  });

  it('keeps the last of several documents with the same id in one upsert', async () => {
    const database = await openTestDatabase();
    try {
      const index = await createSearchIndex(database.db, undefined);
      await index.upsert([
        doc('x', { description: 'first words' }),
        doc('x', { description: 'second words' }),
      ]);
      assert.deepEqual(
        (await index.search('second', { top: 5 })).map((hit) => hit.id),
        ['x'],
      );
      assert.deepEqual(
        (await index.search('first', { top: 5 })).map((hit) => hit.id),
        [],
      );
    } finally {
      await database.dispose();
    }
  });
});
