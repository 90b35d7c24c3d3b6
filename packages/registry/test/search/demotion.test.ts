/**
 * Standing demotions in the search index: an agent that is inactive, unreachable or synthetic ranks below one that
 * matches as well, in every mode, says why, and keeps its demotion across a restart until it is lifted.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { SearchDocument } from '../../src/search/index.js';
import { embeddingSuite } from './embedding-suite.js';
import { createSearchIndex, doc, openTestDatabase } from './helpers.js';

/** Two agents that say the same thing; only their standing differs. */
const twin = (id: string, demotion?: SearchDocument['demotion']): SearchDocument => ({
  ...doc(id, {
    name: 'Weather forecast',
    description: 'rain and wind forecast for a city',
    tags: ['weather'],
  }),
  ...(demotion === undefined ? {} : { demotion }),
});
const unreachable = { penalty: 1, reasons: ['did not answer its liveness probe at 2026-11-22T00:00:00Z'] };

describe('search demotions', () => {
  const suite = embeddingSuite({ dimensions: 64 });

  for (const mode of ['hybrid', 'lexical', 'semantic'] as const) {
    it(`ranks a demoted agent below an equal match (${mode}) and says why`, () =>
      suite.withIndex(async (index) => {
        // The demoted one is written first, so without the demotion it would win the tie.
        await index.upsert([twin('a-dead', unreachable), twin('b-live')]);
        const hits = await index.search('rain forecast', { top: 2, mode });
        assert.deepEqual(
          hits.map((hit) => hit.id),
          ['b-live', 'a-dead'],
        );
        assert.ok(hits[0]!.score > hits[1]!.score);
        assert.ok(hits[1]!.why.includes(`ranked lower: ${unreachable.reasons[0]}`), hits[1]!.why.join(' | '));
        assert.ok(!hits[0]!.why.some((why) => why.startsWith('ranked lower')));
      }));
  }

  it('keeps a far better match above a demoted average one', () =>
    suite.withIndex(async (index) => {
      const others = Array.from({ length: 20 }, (_, i) =>
        doc(`other-${i}`, { name: `Tool ${i}`, description: `spreadsheet ledger invoice ${i}` }),
      );
      await index.upsert([
        ...others,
        {
          ...doc('exact', { name: 'Tide tables', description: 'tide tables harbour tide times' }),
          demotion: { penalty: 0.5, reasons: ['synthetic description (generated)'] },
        },
        doc('weak', { name: 'Harbour guide', description: 'museums and harbour walks' }),
      ]);
      const hits = await index.search('tide tables', { top: 3, mode: 'hybrid' });
      assert.equal(hits[0]?.id, 'exact');
    }));

  it('keeps demotions across a restart and lifts them when the agent recovers', async () => {
    const first = await openTestDatabase();
    const index = await createSearchIndex(first.db, suite.provider());
    await index.upsert([twin('a-dead', unreachable), twin('b-live')]);
    await first.close();

    const second = await first.reopen();
    try {
      const reopened = await createSearchIndex(second.db, suite.provider());
      const before = await reopened.search('rain forecast', { top: 2 });
      assert.deepEqual(
        before.map((hit) => hit.id),
        ['b-live', 'a-dead'],
      );
      await reopened.upsert([twin('a-dead')]); // it answered again
      const recovered = await reopened.search('rain forecast', { top: 2 });
      assert.equal(recovered[0]?.id, 'a-dead');
      assert.ok(!recovered.some((hit) => hit.why.some((why) => why.startsWith('ranked lower'))));
      const rows = await second.db.selectFrom('search_demotions').selectAll().execute();
      assert.deepEqual(rows, []);

      await reopened.upsert([twin('a-dead', unreachable)]);
      await reopened.remove(['a-dead']);
      assert.deepEqual(await second.db.selectFrom('search_demotions').selectAll().execute(), []);
    } finally {
      await second.dispose();
    }
  });
});
