/**
 * The search index's semantic plumbing, with an OpenAI-compatible loopback server whose "model" is a bag of words
 * (fast and deterministic): vectors written and reloaded, re-embedding only what changed, failures, the query
 * cache, candidates. The real USE-lite model is exercised in use-lite.test.ts.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { SearchIndex, SearchIndexStats } from '../../src/search/index.js';
import { embeddingSuite } from './embedding-suite.js';
import { createSearchIndex, doc } from './helpers.js';

const agents = [
  doc('forecast', { name: 'Forecaster', description: 'rain sun wind outlook', tags: ['weather'] }),
  doc('flights', { name: 'Flight finder', description: 'cheap flights airline tickets' }),
  doc('hotels', { name: 'Hotel booking', description: 'rooms stays nights' }),
];

/** The index's stats but whether it ranks lexically in memory (search-memory.test.ts runs this file with it on). */
async function vectorStats(index: SearchIndex): Promise<Omit<SearchIndexStats, 'lexicalInMemory'>> {
  const { lexicalInMemory: _, ...stats } = await index.stats();
  return stats;
}

describe('search index with an embedding provider', () => {
  let failNext = 0;
  const suite = embeddingSuite({
    dimensions: 64,
    refuse: () => {
      if (failNext === 0) return undefined;
      failNext--;
      return { status: 503, message: 'model loading' };
    },
  });
  const { provider, takeTexts: embeddedTexts } = suite;

  it('embeds agents when written and ranks semantically and hybrid', () =>
    suite.withIndex(async (index) => {
      await index.upsert(agents);
      assert.equal(embeddedTexts().length, 3);
      assert.deepEqual(await vectorStats(index), {
        documents: 3,
        embedded: 3,
        provider: 'openai:bow',
        dimensions: 64,
      });

      const semantic = await index.search('outlook for rain', { top: 3, mode: 'semantic' });
      assert.equal(semantic[0]?.id, 'forecast');
      assert.ok(semantic[0]!.semantic! > 0.3);
      assert.equal(semantic[0]!.lexical, undefined);
      assert.deepEqual(semantic[0]!.why, [`semantic similarity ${semantic[0]!.semantic!.toFixed(2)}`]);

      const hybrid = await index.search('cheap flights', { top: 3 });
      assert.equal(hybrid[0]?.id, 'flights');
      assert.ok(hybrid[0]!.lexical! > 0 && hybrid[0]!.semantic! > 0);
      assert.ok(hybrid[0]!.why.some((reason) => reason.startsWith('description matches')));
      assert.ok(hybrid[0]!.why.some((reason) => reason.startsWith('semantic similarity')));
      assert.ok(hybrid.every((hit, i) => i === 0 || hit.score <= hybrid[i - 1]!.score));

      const restricted = await index.search('cheap flights', {
        top: 3,
        candidates: new Set(['hotels', 'forecast']),
      });
      assert.ok(restricted.every((hit) => hit.id !== 'flights'));
      assert.equal(
        (
          await index.search('cheap flights', { top: 3, mode: 'semantic', candidates: new Set(['hotels']) })
        )[0]?.id,
        'hotels',
      );
      for (const mode of ['lexical', 'semantic', 'hybrid'] as const) {
        const every = await index.search('cheap flights', { top: 3, mode });
        assert.ok(
          every.some((hit) => hit.id === 'flights'),
          mode,
        );
        const left = await index.search('cheap flights', { top: 3, mode, excluded: new Set(['flights']) });
        assert.ok(
          left.every((hit) => hit.id !== 'flights'),
          mode,
        );
        if (mode !== 'lexical') assert.equal(left.length, 2, mode);
      }
    }));

  it('embeds a query once (cache), and its clauses too', () =>
    suite.withIndex(async (index) => {
      await index.upsert(agents);
      embeddedTexts();
      await index.search('find rain outlook, then book hotel rooms', { top: 2 });
      assert.deepEqual(embeddedTexts(), [
        'find rain outlook, then book hotel rooms',
        'find rain outlook',
        'book hotel rooms',
      ]);
      await index.search('find rain outlook, then book hotel rooms', { top: 2, mode: 'semantic' });
      await index.search('  find rain outlook, then   book hotel rooms ', { top: 2 });
      assert.deepEqual(embeddedTexts(), []);
      await index.search('flights', { top: 2, mode: 'lexical' });
      assert.deepEqual(embeddedTexts(), []);
    }));

  it('embeds a query with its paths made words and named as files', () =>
    suite.withIndex(async (index) => {
      await index.upsert(agents);
      embeddedTexts();
      await index.search('keep the outlook in /srv/notes/rain_log.md', { top: 2 });
      assert.deepEqual(embeddedTexts(), ['keep the outlook in srv notes rain log md file']);
    }));

  it('keeps vectors across a restart and re-embeds only changed agents', () =>
    suite.withIndex(async (index, database) => {
      await index.upsert(agents);
      const before = await index.search('airline tickets', { top: 3 });
      embeddedTexts();
      await database.close();

      const reopened = await database.reopen();
      try {
        const again = await createSearchIndex(reopened.db, provider());
        assert.equal((await again.stats()).embedded, 3);
        assert.deepEqual(await again.search('airline tickets', { top: 3 }), before);
        assert.deepEqual(embeddedTexts(), ['airline tickets']);

        await again.upsert([agents[0]!, { ...agents[1]!, description: 'cheap flights and trains' }]);
        assert.deepEqual(embeddedTexts(), ['Flight finder: cheap flights and trains.']);

        await again.remove(['hotels']);
        assert.deepEqual(await vectorStats(again), {
          documents: 2,
          embedded: 2,
          provider: 'openai:bow',
          dimensions: 64,
        });
        assert.ok(
          (await again.search('rooms stays', { top: 3, mode: 'semantic' })).every(
            (hit) => hit.id !== 'hotels',
          ),
        );
      } finally {
        await reopened.close();
      }
    }));

  it('indexes lexically when embedding fails, and embeds later on request', () =>
    suite.withDatabase(async (database) => {
      const errors: unknown[] = [];
      const index = await createSearchIndex(database.db, provider(), {
        onEmbeddingError: (error) => errors.push(error),
      });
      failNext = 1;
      await index.upsert(agents);
      assert.equal(errors.length, 1);
      assert.match(String(errors[0]), /503 Service Unavailable: model loading/);
      assert.equal((await index.stats()).embedded, 0);
      const lexicalOnly = await index.search('cheap flights', { top: 3 });
      assert.equal(lexicalOnly[0]?.id, 'flights');
      assert.equal(lexicalOnly[0]?.semantic, undefined);

      assert.equal(await index.embedPending(), 3);
      assert.equal((await index.stats()).embedded, 3);
      assert.equal(await index.embedPending(), 0);
      assert.ok((await index.search('cheap flights', { top: 3 }))[0]?.semantic !== undefined);
    }));

  it('re-embeds everything after a change of model', () =>
    suite.withDatabase(async (database) => {
      await (await createSearchIndex(database.db, provider('first'))).upsert(agents);
      embeddedTexts();
      const index = await createSearchIndex(database.db, provider('second'));
      assert.equal((await index.stats()).embedded, 0);
      assert.equal(await index.embedPending({ batchSize: 2 }), 3);
      assert.equal(embeddedTexts().length, 3);
      assert.deepEqual(await vectorStats(index), {
        documents: 3,
        embedded: 3,
        provider: 'openai:second',
        dimensions: 64,
      });
    }));

  it('embeds at most `limit` waiting agents a call, a batch at a time', () =>
    suite.withDatabase(async (database) => {
      await (await createSearchIndex(database.db, provider('first'))).upsert(agents);
      suite.takeInputs();
      const index = await createSearchIndex(database.db, provider('second'));
      assert.equal(await index.embedPending({ batchSize: 1, limit: 2 }), 2);
      assert.deepEqual(
        suite.takeInputs().map((input) => input.length),
        [1, 1],
      );
      assert.equal((await index.stats()).embedded, 2);
      assert.equal(await index.embedPending({ limit: 5 }), 1);
      assert.equal(await index.embedPending(), 0);
    }));

  it('ranks lexically while the provider cannot embed the query', () =>
    suite.withDatabase(async (database) => {
      const errors: unknown[] = [];
      const index = await createSearchIndex(database.db, provider(), {
        onEmbeddingError: (error) => errors.push(error),
      });
      await index.upsert(agents);
      failNext = 1;
      const hits = await index.search('hotel rooms', { top: 3, mode: 'semantic' });
      assert.equal(hits[0]?.id, 'hotels');
      assert.equal(hits[0]?.semantic, undefined);
      assert.equal(errors.length, 1);
    }));
});
