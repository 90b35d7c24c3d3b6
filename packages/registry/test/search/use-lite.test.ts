/** Semantic search with the bundled USE-lite model, for real (loaded once for the file: about a second). */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createUseLiteProvider } from '@agentry/embeddings';
import { createSearchIndex, type SearchIndex } from '../../src/search/index.js';
import { doc, openTestDatabase, type TestDatabase } from './helpers.js';

const provider = createUseLiteProvider({ batchSize: 4 });

describe('semantic search with USE-lite', () => {
  let database: TestDatabase;
  let index: SearchIndex;
  /** The same vectors without the relevance floors: the ranking itself, every agent returned. */
  let unfloored: SearchIndex;
  before(async () => {
    database = await openTestDatabase();
    index = await createSearchIndex(database.db, provider);
    const { similarityFloors: _floors, ...withoutFloors } = provider;
    unfloored = await createSearchIndex(database.db, {
      ...withoutFloors,
      embed: provider.embed.bind(provider),
    });
    await index.upsert([
      doc('weather', {
        name: 'Skycast',
        description: 'Tells you whether it will rain or snow in your city tomorrow.',
      }),
      doc('invoices', {
        name: 'Billing desk',
        description: 'Creates invoices for customers and emails them.',
      }),
      doc('translate', {
        name: 'Polyglot',
        description: 'Translates documents between English, French and German.',
      }),
      doc('recipes', { name: 'Chef', description: 'Suggests dinner recipes from what is in your fridge.' }),
    ]);
  });
  after(() => database.dispose());

  it('ranks a paraphrase above unrelated agents, with no word in common', async () => {
    const hits = await unfloored.search('Do I need an umbrella in London?', { top: 4, mode: 'semantic' });
    assert.equal(hits[0]?.id, 'weather');
    assert.ok(hits[0]!.semantic! > hits[3]!.semantic!);
    assert.deepEqual(await index.search('Do I need an umbrella in London?', { top: 4, mode: 'lexical' }), []);
  });

  it('returns an agent that shares no word with the query only when it is at least as similar as the floor says', async () => {
    // "rain" is a word the weather agent says: the lower floor, and the unrelated agents stay out.
    const worded = await index.search('will it rain in London', { top: 4 });
    assert.deepEqual(
      worded.map((hit) => hit.id),
      ['weather'],
    );
    // No agent says any word of these: only an agent at least 0.6 similar would be returned (nonsense reaches 0.58).
    for (const query of ['Do I need an umbrella in London?', 'xyzzy plugh', 'qwertyuiop']) {
      const hits = await unfloored.search(query, { top: 4, mode: 'semantic' });
      const expected = hits.filter((hit) => hit.semantic! >= 0.6).map((hit) => hit.id);
      assert.deepEqual(
        (await index.search(query, { top: 4 })).map((hit) => hit.id),
        expected,
        query,
      );
    }
  });

  it('fuses both rankings in hybrid mode', async () => {
    const hits = await index.search('what should I cook tonight', { top: 2 });
    assert.equal(hits[0]?.id, 'recipes');
    const invoice = await index.search('send a bill to a client', { top: 1 });
    assert.equal(invoice[0]?.id, 'invoices');
    const [both] = await index.search('translate my documents to French', { top: 1 });
    assert.equal(both?.id, 'translate');
    assert.ok(both!.lexical !== undefined && both!.semantic !== undefined);
  });
});
