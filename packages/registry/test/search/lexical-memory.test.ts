/**
 * The lexical index in memory (lexical/memory-mirror.ts) against the stored engine on the same database: the same
 * ranking and explanations; what another connection writes (registrations, new text, removals, access changes)
 * seen at the next search; loaded at start from its threshold on, and while running when the index grows to it;
 * exact whatever writes land while it loads. Runs on SQLite files here and on PostgreSQL from
 * search-postgres.test.ts (test-dialect.ts); a second connection is `reopen()` of the same database. On PostgreSQL
 * another connection's write is seen once its notification is heard, as the vectors are (search-index.ts).
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import type { SearchDocument, SearchHit, SearchIndex, SearchOptions } from '../../src/search/index.js';
import { aidipAgent, asArray, startRegistry } from '../support.js';
import { testDialect } from '../test-dialect.js';
import { createSearchIndex, doc, openTestDatabase, type TestDatabase } from './helpers.js';

const agents = [
  doc('weather', { name: 'Weather', description: 'Rain and wind forecast for any city.', tags: ['weather'] }),
  doc('news', { name: 'News digest', description: 'Summarises the news, with weather reports.' }),
  doc('tides', { name: 'Tide tables', description: 'Tide tables and harbour water levels for any port.' }),
  doc('translator', { name: 'Translator', description: 'Translates text between languages.' }),
  doc('surf', { name: 'Surf report', description: 'Wave height, wind and tide for surfers.' }),
  doc('flights', { name: 'Flight finder', description: 'Cheap airline tickets to any city.' }),
];

const QUERIES = [
  'weather forecast',
  'tide tables',
  '"tide tables"',
  'wind',
  'wea*',
  'city port',
  'nothing here',
];

/** The memory-backed index and the stored engine's, on one connection, and a writer on a second connection. */
interface Trio {
  memory: SearchIndex;
  stored: SearchIndex;
  writer: SearchIndex;
  close(): Promise<void>;
}

async function trio(memoryFrom = 0, database?: TestDatabase, loadPage?: number): Promise<Trio> {
  const serving = database ?? (await openTestDatabase());
  const second = await serving.reopen();
  const writer = await createSearchIndex(second.db, undefined, { lexicalInMemoryFrom: Infinity });
  const memory = await createSearchIndex(serving.db, undefined, {
    lexicalInMemoryFrom: memoryFrom,
    ...(loadPage === undefined ? {} : { lexicalLoadPage: loadPage }),
  });
  const stored = await createSearchIndex(serving.db, undefined, { lexicalInMemoryFrom: Infinity });
  return {
    memory,
    stored,
    writer,
    async close() {
      for (const index of [memory, stored, writer]) index.close();
      await second.close();
      await serving.dispose();
    },
  };
}

/**
 * The memory-backed index answers as the stored engine: the same agents, scores and explanations, in the same order
 * but for agents of equal score, which may be ordered otherwise when two connections registered them side by side
 * (each index places its own writes first).
 */
async function assertAgree(
  { memory, stored }: Pick<Trio, 'memory' | 'stored'>,
  query: string,
  scope: Partial<SearchOptions> = {},
): Promise<void> {
  const options = { top: 100, ...scope };
  const label = `${query} ${JSON.stringify({ excluded: [...(scope.excluded ?? [])] })}`;
  const [fromMemory, fromStore] = [await memory.search(query, options), await stored.search(query, options)];
  const tiesById = (hits: SearchHit[]) =>
    [...hits].sort((a, b) => b.score - a.score || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  const [expected, found] = [tiesById(fromStore), tiesById(fromMemory)];
  assert.deepEqual(
    found.map((hit) => hit.id),
    expected.map((hit) => hit.id),
    label,
  );
  found.forEach((hit, i) => {
    const want = expected[i]!;
    assert.ok(
      Math.abs(hit.score - want.score) <= 1e-9 * Math.abs(want.score),
      `${label}: score of ${hit.id}`,
    );
    assert.deepEqual(explained(hit.why), explained(want.why), `${label}: why of ${hit.id}`);
  });
  fromMemory.forEach((hit, i) => {
    assert.ok(Math.abs(hit.score - fromStore[i]!.score) <= 1e-9 * Math.abs(hit.score), `${label}: order`);
  });
}

/**
 * A hit's reasons as compared: on PostgreSQL the stored engine marks a phrase's words one by one ('tide', 'tables')
 * where FTS5 and the index in memory mark the phrase ('tide tables').
 */
function explained(why: readonly string[]): string[] {
  return testDialect() === 'postgres' ? why.map((line) => line.replaceAll("', '", ' ')) : [...why];
}

async function ids(index: SearchIndex, query: string, scope: Partial<SearchOptions> = {}): Promise<string[]> {
  return (await index.search(query, { top: 20, ...scope })).map((hit) => hit.id);
}

/**
 * Checks what another connection wrote: on SQLite at once (the change log is read at every search); on PostgreSQL
 * once the serving connection has heard of the commit (LISTEN/NOTIFY, a moment after it), so the check is tried
 * again (a bounded number of times) until it holds.
 */
async function heard(check: () => Promise<void>): Promise<void> {
  for (let look = 1; ; look++) {
    try {
      return await check();
    } catch (error) {
      if (testDialect() !== 'postgres' || look === 200) throw error;
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
  }
}

/** Waits (a bounded number of looks) until the index ranks in memory. */
async function untilInMemory(index: SearchIndex): Promise<boolean> {
  for (let look = 0; look < 1000; look++) {
    if ((await index.stats()).lexicalInMemory) return true;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  return false;
}

describe('the lexical index in memory', () => {
  it('ranks and explains as the stored engine', async () => {
    const indexes = await trio();
    try {
      await indexes.memory.upsert(agents);
      assert.equal((await indexes.memory.stats()).lexicalInMemory, true);
      assert.equal((await indexes.stored.stats()).lexicalInMemory, undefined);
      for (const query of QUERIES) await assertAgree(indexes, query);
      await assertAgree(indexes, 'wind tide', { candidates: new Set(['surf', 'tides', 'weather']) });
      await assertAgree(indexes, 'wind tide', { excluded: new Set(['surf']) });
      const [top] = await indexes.memory.search('tide tables', { top: 1 });
      assert.ok(
        top?.why.some((line) => line.startsWith('name matches')),
        JSON.stringify(top?.why),
      );
      assert.equal((await indexes.memory.stats()).documents, agents.length);
    } finally {
      await indexes.close();
    }
  });

  it('explains from the documents its caller read as from the text it holds, in memory and stored', async () => {
    // A served search hands over the records it reads to show the hits (listing.ts), so each hit is read once.
    const indexes = await trio();
    try {
      await indexes.memory.upsert(agents);
      const byId = new Map(agents.map((agent) => [agent.id, agent]));
      for (const query of QUERIES) {
        const expected = await indexes.stored.search(query, { top: 100 });
        for (const index of [indexes.memory, indexes.stored]) {
          const asked: string[][] = [];
          const hits = await index.search(query, {
            top: 100,
            hitDocuments: async (ids) => {
              asked.push([...ids]);
              return (id) => byId.get(id);
            },
          });
          assert.deepEqual(
            hits.map((hit) => [hit.id, explained(hit.why)]),
            expected.map((hit) => [hit.id, explained(hit.why)]),
            query,
          );
          // Asked once, for every hit in rank order; never when nothing was found.
          assert.deepEqual(asked, hits.length === 0 ? [] : [hits.map((hit) => hit.id)], query);
        }
      }

      // Hits the caller does not show (left out of what it returns) and a ranking only counted: no words read.
      const [first, second] = await indexes.memory.search('tide tables', {
        top: 2,
        hitDocuments: async (ids) => (id) => (id === ids[0] ? byId.get(id) : undefined),
      });
      assert.ok(
        first?.why.some((line) => line.startsWith('name matches')),
        JSON.stringify(first?.why),
      );
      assert.deepEqual(second?.why, []);
      const counted = await indexes.stored.search('tide tables', { top: 2, hitDocuments: false });
      assert.deepEqual(
        counted.map((hit) => [hit.id, hit.why]),
        [
          ['tides', []],
          ['surf', []],
        ],
      );
    } finally {
      await indexes.close();
    }
  });

  it("follows another connection's registrations, new texts, removals and access changes", async () => {
    const indexes = await trio();
    const { memory, writer } = indexes;
    try {
      await writer.upsert(agents);
      await heard(async () => {
        assert.deepEqual(await ids(memory, 'tide tables'), ['tides', 'surf']);
        for (const query of QUERIES) await assertAgree(indexes, query);
      });

      await writer.upsert([
        doc('weather', { name: 'Weather', description: 'Snow and avalanche bulletins.' }),
      ]);
      await heard(async () => {
        assert.deepEqual(await ids(memory, 'avalanche'), ['weather']);
        assert.ok(!(await ids(memory, 'rain')).includes('weather'));
      });

      await writer.remove(['news']);
      await heard(async () => {
        assert.ok(!(await ids(memory, 'news digest')).includes('news'));
        assert.equal((await memory.stats()).documents, agents.length - 1);
      });

      await writer.upsert([{ ...agents[2]!, restricted: true }]);
      const hidden = new Set(['tides']);
      await heard(async () => {
        assert.deepEqual(await ids(memory, 'tide tables', { excluded: hidden }), ['surf']);
        assert.deepEqual(await ids(memory, 'tide tables'), ['tides', 'surf']);
        for (const query of QUERIES) {
          await assertAgree(indexes, query);
          await assertAgree(indexes, query, { excluded: hidden });
        }
      });
      await writer.upsert([agents[2]!]);
      await heard(() => assertAgree(indexes, 'tide tables', { excluded: new Set() }));
    } finally {
      await indexes.close();
    }
  });

  it('loads at start a database holding its threshold of agents, and not one below it', async () => {
    const database = await openTestDatabase();
    const first = await createSearchIndex(database.db, undefined, { lexicalInMemoryFrom: Infinity });
    await first.upsert(agents);
    first.close();
    const at = await createSearchIndex(database.db, undefined, { lexicalInMemoryFrom: agents.length });
    const below = await createSearchIndex(database.db, undefined, { lexicalInMemoryFrom: agents.length + 1 });
    try {
      assert.equal((await at.stats()).lexicalInMemory, true);
      assert.equal((await below.stats()).lexicalInMemory, undefined);
      assert.deepEqual(await ids(at, 'tide tables'), await ids(below, 'tide tables'));
    } finally {
      at.close();
      below.close();
      await database.dispose();
    }
  });

  it('moves into memory when it grows to its threshold while running, through its own writes or others', async () => {
    const indexes = await trio(4);
    const { memory, writer } = indexes;
    try {
      await memory.upsert(agents.slice(0, 2));
      assert.equal((await memory.stats()).lexicalInMemory, undefined);
      await writer.upsert(agents.slice(2, 4));
      await memory.search('wind', { top: 5 });
      assert.ok(await untilInMemory(memory), 'in memory once four agents are indexed');
      await memory.upsert(agents.slice(4));
      for (const query of QUERIES) await assertAgree(indexes, query);

      const own = await trio(3);
      try {
        await own.memory.upsert(agents.slice(0, 3));
        assert.ok(await untilInMemory(own.memory));
        for (const query of QUERIES) await assertAgree(own, query);
      } finally {
        await own.close();
      }
    } finally {
      await indexes.close();
    }
  });

  it("ranks a registry's searches in memory with lexicalInMemoryFrom, hiding what a caller may not see", async () => {
    const served = await startRegistry({ lexicalInMemoryFrom: 0 });
    try {
      for (const [id, access] of [
        ['open-tides', undefined],
        ['team-tides', { groups: ['team-a'] }],
      ] as const) {
        const document = { ...aidipAgent({ id, name: `Tide tables ${id}` }), ...(access ? { access } : {}) };
        const answer = await served.request('/agents', { token: served.admin, body: document });
        assert.equal(answer.status, 201, answer.text);
      }
      assert.equal((await served.registry.search.stats()).lexicalInMemory, true);
      const found = async (token?: string) =>
        asArray(
          (
            await served.request('/agents/search', {
              ...(token ? { token } : {}),
              body: { query: 'tide tables' },
            })
          ).json,
        ).map((hit) => hit['id']);
      assert.deepEqual(await found(), ['open-tides']);
      assert.deepEqual((await found(served.admin)).sort(), ['open-tides', 'team-tides']);
    } finally {
      await served.close();
    }
  });

  it('stays exact whatever writes land, from either connection, while it loads', async () => {
    const vocabulary = ['rain', 'wind', 'tide', 'port', 'city', 'flight', 'news', 'surf', 'snow', 'map'];
    const operation = fc.record({
      by: fc.constantFrom('memory' as const, 'writer' as const),
      kind: fc.constantFrom('upsert', 'upsert', 'remove', 'restrict'),
      agent: fc.integer({ min: 0, max: 24 }),
      words: fc.array(fc.constantFrom(...vocabulary), { minLength: 1, maxLength: 5 }),
    });
    const agentOf = (n: number, words: readonly string[], restricted = false): SearchDocument => ({
      ...doc(`agent-${n}`, { name: words[0]!, description: words.join(' ') }),
      ...(restricted ? { restricted } : {}),
    });
    const hidden = new Set(Array.from({ length: 25 }, (_, n) => `agent-${n}`).filter((_, n) => n % 2 === 0));
    await fc.assert(
      fc.asyncProperty(fc.array(operation, { minLength: 1, maxLength: 12 }), async (operations) => {
        const database = await openTestDatabase();
        const preload = await createSearchIndex(database.db, undefined, { lexicalInMemoryFrom: Infinity });
        await preload.upsert(Array.from({ length: 20 }, (_, n) => agentOf(n, [vocabulary[n % 10]!, 'base'])));
        preload.close();
        // Loaded two agents a page, in the background, once a search sees the index has grown to 21 agents.
        const indexes = await trio(21, database, 2);
        try {
          await indexes.writer.upsert([agentOf(20, ['base'])]);
          await indexes.memory.search('base', { top: 1 });
          const apply = (op: (typeof operations)[number]) => {
            const index = indexes[op.by];
            if (op.kind === 'remove') return index.remove([`agent-${op.agent}`]);
            return index.upsert([agentOf(op.agent, op.words, op.kind === 'restrict')]);
          };
          // On PostgreSQL the two connections write side by side; two SQLite connections in one thread cannot
          // (the second would wait synchronously for the first's lock), so there they take turns.
          if (testDialect() === 'postgres') await Promise.all(operations.map(apply));
          else for (const op of operations) await apply(op);
          assert.ok(await untilInMemory(indexes.memory));
          await heard(async () => {
            for (const query of [...vocabulary, 'base', 'rain wind', 'base tide city']) {
              await assertAgree(indexes, query);
              await assertAgree(indexes, query, { excluded: hidden });
            }
          });
        } finally {
          await indexes.close();
        }
      }),
      { seed: 20261128, numRuns: 12 },
    );
  });
});
