/**
 * Two registries on one database file, as `agentry serve` and `agentry crawl` (or two registry processes) share
 * one: an agent written through one is found by meaning through the other's API at once, and a deleted one is
 * gone from it.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createOpenAIEmbeddingProvider } from '@agentry/embeddings';
import { embeddingsHandler, type LoopbackServer, startServer } from '../search/helpers.js';
import { aidipAgent, asArray, startRegistry, type TestRegistry, tempDir } from '../support.js';

describe('registries sharing one database file', () => {
  let embeddings: LoopbackServer;
  let serving: TestRegistry;
  let writing: TestRegistry;
  const dir = tempDir();

  before(async () => {
    embeddings = await startServer(embeddingsHandler(64));
    const embeddingProvider = () => createOpenAIEmbeddingProvider({ baseUrl: embeddings.url, model: 'bow' });
    const databasePath = `${dir.path}/shared.db`;
    serving = await startRegistry({ databasePath, embeddingProvider: embeddingProvider() }, tempDir());
    writing = await startRegistry({ databasePath, embeddingProvider: embeddingProvider() }, tempDir());
  });
  after(async () => {
    await serving.close();
    await writing.close();
    await embeddings.close();
    dir.remove();
  });

  const semanticSearch = async (query: string) => {
    const answer = await serving.request('/agents/search', {
      method: 'POST',
      body: { query, mode: 'semantic', top: 5 },
    });
    assert.equal(answer.status, 200, answer.text);
    return asArray(answer.json);
  };

  it('finds by meaning, through one, an agent registered through the other', async () => {
    const registered = await writing.request('/agents', {
      method: 'POST',
      token: writing.admin,
      body: aidipAgent({ id: 'tides', name: 'Tide tables', description: 'high tide low tide harbour times' }),
    });
    assert.equal(registered.status, 201, registered.text);

    const hits = await semanticSearch('when is high tide in the harbour');
    assert.equal(hits[0]?.['id'], 'tides');
    assert.ok(
      ((hits[0]?.['why'] ?? []) as string[]).some((line) => line.startsWith('semantic similarity')),
      JSON.stringify(hits[0]),
    );
  });

  it('drops from memory, through one, an agent deleted through the other', async () => {
    const registered = await serving.request('/agents', {
      method: 'POST',
      token: serving.admin,
      body: aidipAgent({ id: 'ferries', name: 'Ferry times', description: 'ferry crossings and sailings' }),
    });
    assert.equal(registered.status, 201, registered.text);
    assert.equal((await semanticSearch('ferry sailings'))[0]?.['id'], 'ferries');
    const embeddedBefore = (await serving.registry.search.stats()).embedded;

    const deleted = await writing.request('/agents/ferries', { method: 'DELETE', token: writing.admin });
    assert.equal(deleted.status, 204, deleted.text);
    assert.ok(!(await semanticSearch('ferry sailings')).some((hit) => hit['id'] === 'ferries'));
    assert.equal((await serving.registry.search.stats()).embedded, embeddedBefore - 1);
  });
});
