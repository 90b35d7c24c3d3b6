/**
 * Upserts that arrive while the index is writing are embedded together, in one call of the provider, and never
 * overtake a write queued before them.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import {
  createOpenAIEmbeddingProvider,
  createSearchIndex,
  type SearchIndex,
} from '../../src/search/index.js';
import {
  doc,
  embeddingsHandler,
  type LoopbackServer,
  openTestDatabase,
  startServer,
  type TestDatabase,
} from './helpers.js';

describe('coalesced upserts', () => {
  let server: LoopbackServer;
  let database: TestDatabase;
  let index: SearchIndex;
  before(async () => {
    server = await startServer(embeddingsHandler(64));
    database = await openTestDatabase();
    index = await createSearchIndex(
      database.db,
      createOpenAIEmbeddingProvider({ baseUrl: server.url, model: 'bow' }),
    );
  });
  after(async () => {
    await database.dispose();
    await server.close();
  });

  const embeddedTexts = (): string[][] =>
    server.requests.map((request) => (JSON.parse(request.body) as { input: string[] }).input);

  it('embeds the upserts that arrive together, or while another runs, in a single call', async () => {
    server.requests.length = 0;
    const names = ['alpha', 'bravo', 'charlie', 'delta', 'echo', 'foxtrot', 'golf', 'hotel'];
    const upsert = (name: string) =>
      index.upsert([doc(name, { description: `The ${name} forecaster of the fleet.` })]);
    await Promise.all(names.slice(0, 4).map(upsert));
    assert.deepEqual(
      embeddedTexts().map((texts) => texts.length),
      [4],
    );

    const running = upsert(names[4]!);
    await new Promise((resolve) => setImmediate(resolve)); // the first is on its way to the model
    await Promise.all([running, ...names.slice(5).map(upsert)]);
    assert.deepEqual(
      embeddedTexts().map((texts) => texts.length),
      [4, 1, 3],
    );
    const hits = await index.search('hotel forecaster', { top: 3, mode: 'semantic' });
    assert.equal(hits[0]?.id, 'hotel');
    assert.equal((await index.stats()).embedded, names.length);
  });

  it('an upsert made after a removal is not merged into an upsert queued before it', async () => {
    server.requests.length = 0;
    const running = index.upsert([doc('first', { description: 'Runs first.' })]);
    const waiting = index.upsert([doc('phoenix', { description: 'An early text.' })]);
    const removal = index.remove(['phoenix']);
    const again = index.upsert([doc('phoenix', { description: 'Registered again after its removal.' })]);
    await Promise.all([running, waiting, removal, again]);
    // The first two went together; the third waited for the removal.
    assert.deepEqual(
      embeddedTexts().map((texts) => texts.length),
      [2, 1],
    );
    const [hit] = await index.search('phoenix', { top: 1, mode: 'lexical' });
    assert.equal(hit?.id, 'phoenix');
    assert.equal((await index.search('removal', { top: 1, mode: 'semantic' }))[0]?.id, 'phoenix');
  });
});
