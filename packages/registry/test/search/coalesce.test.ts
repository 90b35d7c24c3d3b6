/**
 * Upserts that arrive while the index is writing are embedded together, in one call of the provider, and never
 * overtake a write queued before them. A batch is embedded while the write before it commits, and an agent that
 * write changed is not left with a vector of another text. A provider that embeds several calls at once gets that
 * many batches, still written in order.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createOpenAIEmbeddingProvider } from '@agentry/embeddings';
import type { SearchIndex } from '../../src/search/index.js';
import { embeddingSuite } from './embedding-suite.js';
import {
  createSearchIndex,
  doc,
  embeddingsHandler,
  openTestDatabase,
  startServer,
  type TestDatabase,
} from './helpers.js';

describe('coalesced upserts', () => {
  const suite = embeddingSuite({ dimensions: 64 });
  let database: TestDatabase;
  let index: SearchIndex;
  before(async () => {
    database = await openTestDatabase();
    index = await createSearchIndex(database.db, suite.provider());
  });
  after(() => database.dispose());

  /** How many texts each call of the provider since the last look embedded. */
  const callSizes = (): number[] => suite.takeInputs().map((texts) => texts.length);

  it('embeds the upserts that arrive together, or while another runs, in a single call', async () => {
    const names = ['alpha', 'bravo', 'charlie', 'delta', 'echo', 'foxtrot', 'golf', 'hotel'];
    const upsert = (name: string) =>
      index.upsert([doc(name, { description: `The ${name} forecaster of the fleet.` })]);
    await Promise.all(names.slice(0, 4).map(upsert));
    assert.deepEqual(callSizes(), [4]);

    const running = upsert(names[4]!);
    await new Promise((resolve) => setImmediate(resolve)); // the first is on its way to the model
    await Promise.all([running, ...names.slice(5).map(upsert)]);
    // The one already on its way, then the three that arrived while it ran, together.
    assert.deepEqual(callSizes(), [1, 3]);
    const hits = await index.search('hotel forecaster', { top: 3, mode: 'semantic' });
    assert.equal(hits[0]?.id, 'hotel');
    assert.equal((await index.stats()).embedded, names.length);
  });

  it('an upsert made after a removal is not merged into an upsert queued before it', async () => {
    const running = index.upsert([doc('first', { description: 'Runs first.' })]);
    const waiting = index.upsert([doc('phoenix', { description: 'An early text.' })]);
    const removal = index.remove(['phoenix']);
    const again = index.upsert([doc('phoenix', { description: 'Registered again after its removal.' })]);
    await Promise.all([running, waiting, removal, again]);
    // The first two went together; the third waited for the removal.
    assert.deepEqual(callSizes(), [2, 1]);
    const [hit] = await index.search('phoenix', { top: 1, mode: 'lexical' });
    assert.equal(hit?.id, 'phoenix');
    assert.equal((await index.search('removal', { top: 1, mode: 'semantic' }))[0]?.id, 'phoenix');
  });

  it('embeds the next batch while the write before it commits, and ends with the last text of each agent', async () => {
    await index.upsert([doc('kestrel', { description: 'Forecasts wind for sailors.' })]);
    // The second batch is checked against the stored text while the first (which changes it) is committing: the
    // stored text is the second's, but not for long, so it must be embedded after all.
    const first = index.upsert([doc('kestrel', { description: 'Books ferry crossings between islands.' })]);
    await new Promise((resolve) => setImmediate(resolve));
    const second = index.upsert([doc('kestrel', { description: 'Forecasts wind for sailors.' })]);
    await Promise.all([first, second]);
    const row = await database.db
      .selectFrom('search_vectors')
      .select(['text'])
      .where('agent_id', '=', 'kestrel')
      .executeTakeFirstOrThrow();
    // Both the stored vector and the one in memory are of the stored text (bag-of-words: similarity 1 to itself).
    const [hit] = await index.search(row.text, { top: 1, mode: 'semantic' });
    assert.equal(hit?.id, 'kestrel');
    assert.ok(hit!.semantic! > 0.999, `the vector is of another text (similarity ${hit!.semantic})`);
    assert.match(row.text, /wind for sailors/);
  });

  it('with a provider that embeds two calls at once, a batch does not wait for the one embedding before it', async () => {
    // A slow model behind a provider that says it works on two calls at once.
    let inFlight = 0;
    let mostInFlight = 0;
    const handle = embeddingsHandler(64);
    const slow = await startServer((body, request, response) => {
      inFlight++;
      mostInFlight = Math.max(mostInFlight, inFlight);
      setTimeout(() => {
        inFlight--;
        handle(body, request, response);
      }, 40);
    });
    const parallelDatabase = await openTestDatabase();
    try {
      const provider = createOpenAIEmbeddingProvider({ baseUrl: slow.url, model: 'bow' });
      const parallel = await createSearchIndex(parallelDatabase.db, {
        id: provider.id,
        dimensions: provider.dimensions,
        concurrency: 2,
        embed: (texts, options) => provider.embed(texts, options),
      });
      const first = parallel.upsert([doc('osprey', { description: 'Counts fish in the harbour.' })]);
      await new Promise((resolve) => setImmediate(resolve));
      const second = parallel.upsert([doc('osprey', { description: 'Charts the tides of the estuary.' })]);
      await Promise.all([first, second]);
      assert.equal(mostInFlight, 2);
      // Embedded side by side, written in order: the later text is the agent's.
      const row = await parallelDatabase.db
        .selectFrom('search_vectors')
        .select(['text'])
        .where('agent_id', '=', 'osprey')
        .executeTakeFirstOrThrow();
      assert.match(row.text, /tides of the estuary/);
      assert.equal((await parallel.search('tides estuary', { top: 1, mode: 'semantic' }))[0]?.id, 'osprey');
    } finally {
      await parallelDatabase.dispose();
      await slow.close();
    }
  });
});
