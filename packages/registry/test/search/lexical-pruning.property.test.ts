/**
 * Pruning common-only matches out of the lexical ranking must never change what FTS5 itself ranks at the top: these
 * tests compare the pruned index with the same index scoring every match (`commonShare: 1`), on generated
 * collections whose word frequencies range from rare to nearly universal.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import Database from 'better-sqlite3';
import fc from 'fast-check';
import { Kysely, SqliteDialect } from 'kysely';
import type { Database as RegistryDatabase } from '../../src/db/database.js';
import { parseLexicalQuery } from '../../src/search/lexical/query.js';
import { createSqliteLexicalIndex } from '../../src/search/lexical/sqlite.js';
import type { LexicalFields, LexicalMatch } from '../../src/search/lexical/types.js';
import { lexicalFieldsOf, openTestDatabase, type TestDatabase } from './helpers.js';

const pruned = createSqliteLexicalIndex();
const full = createSqliteLexicalIndex({ commonShare: 1 });

/**
 * Words with the share of agents that say them (%): some common enough to be pruned yet rare enough to count in
 * BM25 (FTS5 floors the weight of a word most agents share), some rare. Each sits in one field, one to four times,
 * so that an agent saying only common words, many times and in its name, can outscore one saying a rare word once.
 */
const WORDS: ReadonlyArray<readonly [string, number]> = [
  ['alpha', 45],
  ['beta', 35],
  ['gamma', 25],
  ['delta', 15],
  ['epsilon', 8],
  ['zeta', 4],
  ['eta', 2],
];
const FIELDS = ['name', 'description', 'tags', 'operationNames', 'operationText'] as const;
const FILLER = Array.from({ length: 30 }, (_, i) => `filler${i}`);
const fields: fc.Arbitrary<LexicalFields> = fc
  .tuple(
    fc.tuple(
      ...WORDS.map(([word, percent]) =>
        fc.record({
          word: fc.constant(word),
          present: fc.integer({ min: 0, max: 99 }).map((n) => n < percent),
          field: fc.constantFrom(...FIELDS),
          times: fc.integer({ min: 1, max: 4 }),
        }),
      ),
    ),
    fc.array(fc.tuple(fc.constantFrom(...FIELDS), fc.constantFrom(...FILLER)), { maxLength: 12 }),
  )
  .map(([words, filler]) => {
    const texts: Record<string, string[]> = Object.fromEntries(FIELDS.map((field) => [field, []]));
    for (const { word, present, field, times } of words)
      if (present) texts[field]!.push(...Array(times).fill(word));
    for (const [field, word] of filler) texts[field]!.push(word);
    return lexicalFieldsOf(Object.fromEntries(FIELDS.map((field) => [field, texts[field]!.join(' ')])));
  });
const queryWords = fc.array(fc.constantFrom(...WORDS.map(([word]) => word), 'filler1'), {
  minLength: 1,
  maxLength: 5,
});

/** The first `depth` hits of each ranking: same agents, same order, same scores. */
function assertSameTop(actual: LexicalMatch[], expected: LexicalMatch[], depth: number): void {
  const top = (hits: LexicalMatch[]) =>
    hits.slice(0, depth).map((hit) => `${hit.id} ${hit.score.toFixed(9)}`);
  assert.deepEqual(top(actual), top(expected));
}

describe('lexical pruning of common-only matches', () => {
  let database: TestDatabase;
  before(async () => {
    database = await openTestDatabase();
  });
  after(() => database.dispose());

  /** Removes the generated collection's agents, then writes these, in one transaction. */
  const replaceGenerated = (entries: ReadonlyArray<{ id: string; fields: LexicalFields }>) =>
    database.db.transaction().execute(async (trx) => {
      await full.remove(
        trx,
        Array.from({ length: 80 }, (_, i) => `agent-${i}`),
      );
      await full.write(trx, entries);
    });

  it('ranks the top of every generated collection exactly as scoring every match does', async () => {
    let collection = 0;
    await fc.assert(
      fc.asyncProperty(
        fc.array(fields, { minLength: 1, maxLength: 80 }),
        queryWords,
        fc.constantFrom(1, 5, 10, 1000),
        async (agents, words, limit) => {
          collection++;
          await replaceGenerated(agents.map((agentFields, i) => ({ id: `agent-${i}`, fields: agentFields })));
          const query = parseLexicalQuery(words.join(' '));
          const expected = await full.search(database.db, query, { limit });
          const actual = await pruned.search(database.db, query, { limit });
          assertSameTop(actual, expected, Math.min(limit, 100));
          // Below the proven top the pool may be shorter (limit 1000 holds every match here), never padded.
          if (limit < 1000) assert.equal(actual.length, expected.length);
          const matched = new Set(expected.map((hit) => hit.id));
          for (const hit of actual) assert.ok(matched.has(hit.id), `${hit.id} does not match`);
        },
      ),
      { numRuns: 150 },
    );
    assert.ok(collection >= 150);
  });

  it('leaves agents that match only a word most agents share out of the pool below the proven top', async () => {
    // 600 agents say "data"; 120 of them (a fifth) also say "weather". The 100 best for "weather data" are all
    // weather agents, and no agent with only "data" can outscore them: those 480 are not scored at all.
    await replaceGenerated(
      Array.from({ length: 600 }, (_, i) => ({
        id: `bulk-${i}`,
        fields: lexicalFieldsOf({
          description: i % 5 === 0 ? `weather data number ${i}` : `data number ${i}`,
        }),
      })),
    );
    const query = parseLexicalQuery('weather data');
    const everything = await full.search(database.db, query, { limit: 1000 });
    const pool = await pruned.search(database.db, query, { limit: 1000 });
    assert.equal(everything.length, 600);
    assert.equal(pool.length, 120);
    assertSameTop(pool, everything, 120);
    // Ten asked for: the same ten either way.
    assertSameTop(await pruned.search(database.db, query, { limit: 10 }), everything, 10);
  });

  it('counts again after this connection or another one changes the index', async () => {
    const query = parseLexicalQuery('weather data');
    const rewrite = async (db: Kysely<RegistryDatabase>, describe: (i: number) => string) =>
      db.transaction().execute((trx) =>
        full.write(
          trx,
          Array.from({ length: 600 }, (_, i) => ({
            id: `bulk-${i}`,
            fields: lexicalFieldsOf({ description: describe(i) }),
          })),
        ),
      );
    const assertExact = async () =>
      assertSameTop(
        await pruned.search(database.db, query, { limit: 100 }),
        await full.search(database.db, query, { limit: 100 }),
        100,
      );
    // Counted while "weather" is the rare word. Then this connection makes "data" the rare one: counts kept from
    // before would rank only weather agents, all of them below the hundred data agents.
    await pruned.search(database.db, query, { limit: 10 });
    await rewrite(database.db, (i) => (i < 100 ? `data sheet ${i}` : `weather report ${i}`));
    await assertExact();

    // Another connection to the same file turns the frequencies back.
    const other = new Kysely<RegistryDatabase>({
      dialect: new SqliteDialect({ database: new Database(database.path) }),
    });
    try {
      await rewrite(other, (i) => (i < 100 ? `weather report ${i}` : `data sheet ${i}`));
    } finally {
      await other.destroy();
    }
    await assertExact();
  });
});

describe('lexical ranking within a large filter', () => {
  /** Checks the candidates against the unfiltered ranking in memory (any number of candidates is large). */
  const inMemory = createSqliteLexicalIndex({ largeScope: 1 });
  /** Hands the candidates to SQLite as a list, as every filter was before. */
  const inSql = createSqliteLexicalIndex({ largeScope: Number.POSITIVE_INFINITY });
  let database: TestDatabase;
  before(async () => {
    database = await openTestDatabase();
  });
  after(() => database.dispose());

  const replaceGenerated = (
    entries: ReadonlyArray<{ id: string; fields: LexicalFields; restricted: boolean }>,
  ) =>
    database.db.transaction().execute(async (trx) => {
      await inSql.remove(
        trx,
        Array.from({ length: 80 }, (_, i) => `agent-${i}`),
      );
      await inSql.write(trx, entries);
    });

  /** Every hit: same agents, same order, same scores, same length. */
  const hitsOf = (hits: LexicalMatch[]) => hits.map((hit) => `${hit.id} ${hit.score.toFixed(9)}`);

  it('gives the hits, order and scores of the filtered SQL ranking, on generated collections and filters', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.tuple(fields, fc.boolean(), fc.integer({ min: 0, max: 19 })), {
          minLength: 1,
          maxLength: 80,
        }),
        queryWords,
        fc.constantFrom(1, 5, 10, 1000),
        async (agents, words, limit) => {
          // About half the agents pass the filter, a tenth of them restricted (and visible to the caller).
          await replaceGenerated(
            agents.map(([agentFields, , draw], i) => ({
              id: `agent-${i}`,
              fields: agentFields,
              restricted: draw < 2,
            })),
          );
          const candidates = new Set(agents.flatMap(([, kept], i) => (kept ? [`agent-${i}`] : [])));
          const query = parseLexicalQuery(words.join(' '));
          const expected = await inSql.search(database.db, query, { limit, candidates });
          const actual = await inMemory.search(database.db, query, { limit, candidates });
          assert.deepEqual(hitsOf(actual), hitsOf(expected));
        },
      ),
      { numRuns: 150 },
    );
  });

  it('ranks within the filter when its agents are not among the best matches (the filter keeps half)', async () => {
    // 600 agents say "data"; the best 300 (the word three times) are the ones the filter leaves out, so the
    // unfiltered ranking read to the filter's share holds none of those it keeps: the filtered ranking decides.
    await database.db.transaction().execute((trx) =>
      inSql.write(
        trx,
        Array.from({ length: 600 }, (_, i) => ({
          id: `bulk-${i}`,
          fields: lexicalFieldsOf({ description: i < 300 ? `data data data ${i}` : `data ${i}` }),
        })),
      ),
    );
    const candidates = new Set(Array.from({ length: 300 }, (_, i) => `bulk-${i + 300}`));
    const query = parseLexicalQuery('data');
    for (const limit of [1, 10, 100, 1000]) {
      const expected = await inSql.search(database.db, query, { limit, candidates });
      assert.equal(expected.length, Math.min(limit, 300));
      assert.deepEqual(
        hitsOf(await inMemory.search(database.db, query, { limit, candidates })),
        hitsOf(expected),
      );
    }
    // The same with a filter that keeps the best half: found in the unfiltered ranking's first reads.
    const best = new Set(Array.from({ length: 300 }, (_, i) => `bulk-${i}`));
    for (const limit of [1, 10, 100, 1000]) {
      assert.deepEqual(
        hitsOf(await inMemory.search(database.db, query, { limit, candidates: best })),
        hitsOf(await inSql.search(database.db, query, { limit, candidates: best })),
      );
    }
  });
});
