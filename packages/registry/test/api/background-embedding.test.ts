/**
 * The registry embeds agents left without a vector in the background: one whose embedding failed when it was
 * registered (the provider was down), and those another process indexed without a provider. Until then they are
 * ranked lexically only; after, by meaning too, without a restart or a reindex.
 */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { createOpenAIEmbeddingProvider } from '@agentry/embeddings';
import { embeddingsHandler, type LoopbackServer, startServer } from '../search/helpers.js';
import { aidipAgent, asArray, startRegistry, type TestRegistry, tempDir } from '../support.js';

describe('background embedding', () => {
  let embeddings: LoopbackServer;
  /** While true, the embeddings server answers 503. */
  let down = false;
  before(async () => {
    const answer = embeddingsHandler(64);
    embeddings = await startServer((body, request, response) => {
      if (!down) return answer(body, request, response);
      response.writeHead(503, { 'content-type': 'application/json' });
      response.end(JSON.stringify({ error: { message: 'model loading' } }));
    });
  });
  after(() => embeddings.close());

  const provider = () => createOpenAIEmbeddingProvider({ baseUrl: embeddings.url, model: 'bow' });

  async function eventually(check: () => Promise<boolean>, what: string): Promise<void> {
    const deadline = Date.now() + 10_000;
    while (!(await check())) {
      if (Date.now() > deadline) assert.fail(`timed out waiting until ${what}`);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  }

  const semanticIds = async (registry: TestRegistry, query: string): Promise<unknown[]> => {
    const answer = await registry.request('/agents/search', {
      method: 'POST',
      body: { query, mode: 'semantic', top: 5 },
    });
    assert.equal(answer.status, 200, answer.text);
    return asArray(answer.json).map((hit) => hit['id']);
  };

  it('embeds, once the provider is back, an agent registered while it was down', async () => {
    const registry = await startRegistry({
      embeddingProvider: provider(),
      backgroundEmbedding: { retryMs: 50, intervalMs: 60_000 },
    });
    try {
      down = true;
      const registered = await registry.request('/agents', {
        method: 'POST',
        token: registry.admin,
        body: aidipAgent({
          id: 'tides',
          name: 'Tide tables',
          description: 'high tide low tide harbour times',
        }),
      });
      assert.equal(registered.status, 201, registered.text);
      assert.equal((await registry.registry.search.stats()).embedded, 0);

      down = false;
      await eventually(
        async () => (await registry.registry.search.stats()).embedded === 1,
        'the agent is embedded',
      );
      assert.deepEqual(await semanticIds(registry, 'when is high tide in the harbour'), ['tides']);
    } finally {
      down = false;
      await registry.close();
    }
  });

  it('embeds at start the agents another process indexed without a provider', async () => {
    const dir = tempDir();
    const databasePath = join(dir.path, 'registry.db');
    try {
      // As `agentry crawl --embeddings none` leaves them.
      const lexicalOnly = await startRegistry({ databasePath, embeddings: 'none' }, tempDir());
      const agents: Array<[string, string]> = [
        ['ferries', 'ferry crossings and sailings'],
        ['trains', 'railway timetables and platforms'],
        ['buses', 'bus stops and routes'],
      ];
      for (const [id, description] of agents) {
        const answer = await lexicalOnly.request('/agents', {
          method: 'POST',
          token: lexicalOnly.admin,
          body: aidipAgent({ id, name: id, description }),
        });
        assert.equal(answer.status, 201, answer.text);
      }
      await lexicalOnly.close();

      const serving = await startRegistry({ databasePath, embeddingProvider: provider() }, tempDir());
      try {
        await eventually(
          async () => (await serving.registry.search.stats()).embedded === 3,
          'every agent is embedded',
        );
        assert.equal((await semanticIds(serving, 'railway platforms'))[0], 'trains');
      } finally {
        await serving.close();
      }
    } finally {
      dir.remove();
    }
  });

  it('does nothing when turned off', async () => {
    const registry = await startRegistry({ embeddingProvider: provider(), backgroundEmbedding: false });
    try {
      down = true;
      const registered = await registry.request('/agents', {
        method: 'POST',
        token: registry.admin,
        body: aidipAgent({ id: 'docks', name: 'Docks', description: 'dock berths' }),
      });
      assert.equal(registered.status, 201, registered.text);
      down = false;
      await new Promise((resolve) => setTimeout(resolve, 200));
      assert.equal((await registry.registry.search.stats()).embedded, 0);
      assert.equal(await registry.registry.search.embedPending(), 1);
      assert.equal((await registry.registry.search.stats()).embedded, 1);
    } finally {
      down = false;
      await registry.close();
    }
  });
});
