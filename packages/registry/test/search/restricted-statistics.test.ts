/**
 * What a caller may not see counts in none of its search statistics: restricted agents are kept apart from the
 * public ones' BM25 statistics and scored against what the caller may see (`lexical/visible-bm25.ts`).
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import Database from 'better-sqlite3';
import fc from 'fast-check';
import { Kysely, SqliteDialect } from 'kysely';
import type { SearchDocument, SearchHit } from '../../src/search/index.js';
import { sqliteRestrictedLexicalMigration } from '../../src/search/lexical/sqlite.js';
import { aidipAgent, asArray, startRegistry, tempDir } from '../support.js';
import { createSearchIndex, doc, openTestDatabase, rankingLexicallyInMemory } from './helpers.js';

const publicAgents = [
  doc('weather', { name: 'get_weather', description: 'Current conditions and a forecast for any city.' }),
  doc('news', { name: 'News digest', description: 'Summarises the news, including weather reports.' }),
  doc('tides', { name: 'Tide tables', description: 'Tide tables and harbour water levels for any port.' }),
  doc('translator', { name: 'Translator', description: 'Translates text between languages.' }),
];

async function searchWith(
  documents: readonly SearchDocument[],
  query: string,
  scope: { candidates?: ReadonlySet<string>; excluded?: ReadonlySet<string> },
): Promise<SearchHit[]> {
  const database = await openTestDatabase();
  try {
    const index = await createSearchIndex(database.db, undefined);
    await index.upsert(documents);
    return await index.search(query, { top: 10, ...scope });
  } finally {
    await database.dispose();
  }
}

describe('restricted agents and search statistics', () => {
  it('gives a caller the same answer whatever the words of agents hidden from it', async () => {
    const hidden = (description: string) => ({
      ...doc('internal', { name: 'Internal', description }),
      restricted: true,
    });
    const excluded = new Set(['internal']);
    for (const query of ['weather forecast', 'tide tables', 'translate text']) {
      const quiet = await searchWith([...publicAgents, hidden('Ledger exports.')], query, { excluded });
      const loud = await searchWith(
        [...publicAgents, hidden('Weather weather forecast tide tables translate text, weather everywhere.')],
        query,
        { excluded },
      );
      assert.ok(quiet.length > 0, query);
      assert.deepEqual(loud, quiet, `${query}: ids, order, scores and reasons are the same`);
    }
  });

  it('scores the restricted agents a caller may see without the ones it may not', async () => {
    const teamA = {
      ...doc('team-a', { name: 'Team A weather', description: 'Weather for team A.' }),
      restricted: true,
    };
    const teamB = (description: string) => ({
      ...doc('team-b', { name: 'Team B', description }),
      restricted: true,
    });
    const scope = { excluded: new Set(['team-b']) };
    const quiet = await searchWith([...publicAgents, teamA, teamB('Ledger exports.')], 'weather', scope);
    const loud = await searchWith(
      [...publicAgents, teamA, teamB('Weather weather weather.')],
      'weather',
      scope,
    );
    assert.ok(quiet.some((hit) => hit.id === 'team-a'));
    assert.deepEqual(loud, quiet);
  });

  it("scores restricted agents by FTS5's own BM25 formula", async () => {
    // Every agent restricted and visible: the statistics are those of the whole collection, as FTS5's are when
    // every agent is public, so the two rankings must agree to rounding.
    const words = [
      'weather',
      'forecast',
      'tide',
      'harbour',
      'news',
      'city',
      'translate',
      'text',
      'port',
      'rain',
    ];
    const text = fc.array(fc.constantFrom(...words), { minLength: 1, maxLength: 12 }).map((w) => w.join(' '));
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.record({ name: text, description: text, tags: fc.array(text, { maxLength: 2 }) }), {
          minLength: 1,
          maxLength: 8,
        }),
        fc.array(fc.constantFrom(...words), { minLength: 1, maxLength: 4 }),
        async (agents, queryWords) => {
          const documents = agents.map((agent, i) => doc(`a${i}`, agent));
          const query = queryWords.join(' ');
          const asPublic = await searchWith(documents, query, {});
          const asRestricted = await searchWith(
            documents.map((document) => ({ ...document, restricted: true })),
            query,
            {},
          );
          const scores = (hits: SearchHit[]) => new Map(hits.map((hit) => [hit.id, hit.score]));
          const expected = scores(asPublic);
          const actual = scores(asRestricted);
          assert.deepEqual([...actual.keys()].sort(), [...expected.keys()].sort());
          for (const [id, score] of expected) {
            assert.ok(
              Math.abs(actual.get(id)! - score) <= 1e-9 * Math.max(1, Math.abs(score)),
              `${id}: ${actual.get(id)} against ${score}`,
            );
          }
        },
      ),
      { seed: 20261127, numRuns: 40 },
    );
  });

  it('moves an agent between public and restricted when its access changes', async () => {
    const database = await openTestDatabase();
    try {
      const index = await createSearchIndex(database.db, undefined);
      await index.upsert(publicAgents);
      await index.upsert([{ ...publicAgents[2]!, restricted: true }]);
      const hidden = new Set(['tides']);
      assert.deepEqual(await index.search('tide tables', { top: 10, excluded: hidden }), []);
      assert.deepEqual(
        (await index.search('tide tables', { top: 10 })).map((hit) => hit.id),
        ['tides'],
      );
      await index.upsert([publicAgents[2]!]);
      assert.deepEqual(
        (await index.search('tide tables', { top: 10, excluded: new Set() })).map((hit) => hit.id),
        ['tides'],
      );
      await index.remove(['tides']);
      assert.deepEqual(await index.search('tide tables', { top: 10 }), []);
    } finally {
      await database.dispose();
    }
  });
});

// A registry started whole ranks by its own threshold, not by this file's indexes: search-memory.test.ts's in-memory
// run would run this case unchanged, so it runs in the stored run only.
if (!rankingLexicallyInMemory())
  describe('a registry file indexed before restricted agents had a table of their own', () => {
    it('moves its restricted agents there in the migration, and still finds them for those who may see them', async () => {
      const dir = tempDir();
      const first = await startRegistry({}, { path: dir.path, remove: () => undefined });
      for (const [id, access] of [
        ['open-tides', undefined],
        ['team-tides', { groups: ['team-a'] }],
      ] as const) {
        const document = { ...aidipAgent({ id, name: `Tide tables ${id}` }), ...(access ? { access } : {}) };
        const answer = await first.request('/agents', { token: first.admin, body: document });
        assert.equal(answer.status, 201, answer.text);
      }
      await first.close();
      // As the index was before: every agent in search_lexical, and no table for restricted ones.
      const database = new Database(first.dbPath);
      database.exec(`
      INSERT INTO search_lexical (rowid, name, description, tags, capabilities, operation_names, operation_text, parameters)
        SELECT rowid, name, description, tags, capabilities, operation_names, operation_text, parameters
        FROM search_lexical_restricted;
      DROP TABLE search_lexical_restricted;
      DROP INDEX search_lexical_rows_restricted;
      ALTER TABLE search_lexical_rows DROP COLUMN restricted;`);
      const db = new Kysely<unknown>({ dialect: new SqliteDialect({ database }) });
      await sqliteRestrictedLexicalMigration.up(db);
      const where = (table: string) =>
        database
          .prepare(
            `SELECT rows.agent_id AS id FROM ${table} JOIN search_lexical_rows AS rows ON rows.row_id = ${table}.rowid`,
          )
          .all()
          .map((row) => (row as { id: string }).id);
      assert.deepEqual(where('search_lexical'), ['open-tides']);
      assert.deepEqual(where('search_lexical_restricted'), ['team-tides']);
      await db.destroy();
      const second = await startRegistry({ databasePath: first.dbPath }, dir);
      try {
        const ids = async (token?: string) =>
          asArray(
            (
              await second.request('/agents/search', {
                ...(token ? { token } : {}),
                body: { query: 'tide tables' },
              })
            ).json,
          )
            .map((hit) => hit['id'])
            .sort();
        assert.deepEqual(await ids(), ['open-tides']);
        assert.deepEqual(await ids(second.admin), ['open-tides', 'team-tides']);
      } finally {
        await second.close();
      }
    });
  });
