import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createEmbeddingProvider, createOpenAIEmbeddingProvider, EmbeddingError } from '../src/index.js';
import { bagOfWordsEmbedding, embeddingsHandler, type LoopbackServer, startServer } from './helpers.js';

describe('OpenAI-compatible embedding provider', () => {
  let server: LoopbackServer;
  before(async () => {
    server = await startServer(embeddingsHandler(16));
  });
  after(() => server.close());

  it('posts to {baseUrl}/embeddings in batches and returns vectors in input order', async () => {
    const provider = createOpenAIEmbeddingProvider({
      baseUrl: `${server.url}/v1/`,
      model: 'm',
      apiKey: 'k-1',
      batchSize: 2,
    });
    const texts = ['alpha beta', 'gamma', 'delta epsilon', ''];
    const vectors = await provider.embed(texts);
    assert.deepEqual(
      vectors.map((vector) => Array.from(vector)),
      texts.map((text) => bagOfWordsEmbedding(text.trim() === '' ? ' ' : text, 16)),
    );
    assert.equal(provider.dimensions, 16);
    assert.equal(provider.id, 'openai:m');
    const requests = server.requests.splice(0);
    assert.equal(requests.length, 2);
    for (const request of requests) {
      assert.equal(request.method, 'POST');
      assert.equal(request.url, '/v1/embeddings');
      assert.equal(request.headers['authorization'], 'Bearer k-1');
      assert.equal(request.headers['content-type'], 'application/json');
    }
    assert.deepEqual(JSON.parse(requests[0]!.body), {
      model: 'm',
      input: ['alpha beta', 'gamma'],
      encoding_format: 'float',
    });
    assert.deepEqual(JSON.parse(requests[1]!.body).input, ['delta epsilon', ' ']);
  });

  it('sends dimensions when configured, and no authorization without a key', async () => {
    const provider = createOpenAIEmbeddingProvider({ baseUrl: server.url, model: 'm', dimensions: 16 });
    await provider.embed(['x']);
    const [request] = server.requests.splice(0);
    assert.equal(JSON.parse(request!.body).dimensions, 16);
    assert.equal(request!.headers['authorization'], undefined);
    assert.equal(provider.id, 'openai:m:16');
  });

  it('rejects vectors of another size than configured', async () => {
    const provider = createOpenAIEmbeddingProvider({ baseUrl: server.url, model: 'm', dimensions: 8 });
    await assert.rejects(provider.embed(['x']), (error: unknown) => {
      assert.ok(error instanceof EmbeddingError);
      assert.match(error.message, /16-dimensional embeddings, expected 8/);
      return true;
    });
    server.requests.splice(0);
  });

  it('is picked by createEmbeddingProvider, which also knows use-lite and none', () => {
    assert.equal(createEmbeddingProvider('none'), undefined);
    assert.equal(createEmbeddingProvider('openai', { baseUrl: server.url, model: 'm' }).id, 'openai:m');
    assert.equal(createEmbeddingProvider('use-lite').dimensions, 512);
    assert.throws(
      () => createEmbeddingProvider('openai', { baseUrl: '', model: 'm' }),
      /baseUrl and a model/,
    );
    assert.throws(() => createEmbeddingProvider('other' as 'none'), /unknown embedding provider "other"/);
  });
});

describe('OpenAI-compatible embedding provider errors', () => {
  it('reports the status and the server’s own message', async () => {
    const server = await startServer((_body, _request, response) => {
      response.writeHead(401, { 'content-type': 'application/json' });
      response.end(
        JSON.stringify({ error: { message: 'Incorrect API key provided', type: 'invalid_request_error' } }),
      );
    });
    try {
      const provider = createOpenAIEmbeddingProvider({ baseUrl: server.url, model: 'm', apiKey: 'wrong' });
      await assert.rejects(provider.embed(['x']), (error: unknown) => {
        assert.ok(error instanceof EmbeddingError);
        assert.equal(error.status, 401);
        assert.equal(error.provider, 'openai:m');
        assert.match(error.message, /\/embeddings failed: 401 Unauthorized: Incorrect API key provided$/);
        return true;
      });
    } finally {
      await server.close();
    }
  });

  it('rejects answers it cannot use', async () => {
    const answers = [
      'not json',
      JSON.stringify({ nothing: true }),
      JSON.stringify({ data: [] }),
      JSON.stringify({ data: [{ index: 0, embedding: ['a'] }] }),
      JSON.stringify({ data: [{ index: 5, embedding: [1, 2] }] }),
    ];
    const expected = [
      /not JSON/,
      /without a "data" array/,
      /returned 0 embeddings for 1 inputs/,
      /not an array of numbers/,
      /wrong or repeated index 5/,
    ];
    let next = 0;
    const server = await startServer((_body, _request, response) => {
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end(answers[next++]);
    });
    try {
      const provider = createOpenAIEmbeddingProvider({ baseUrl: server.url, model: 'm' });
      for (const pattern of expected) await assert.rejects(provider.embed(['x']), pattern);
    } finally {
      await server.close();
    }
  });

  it('says where it could not connect', async () => {
    const server = await startServer(() => undefined);
    const url = server.url;
    await server.close();
    const provider = createOpenAIEmbeddingProvider({ baseUrl: url, model: 'm', timeoutMs: 2000 });
    await assert.rejects(provider.embed(['x']), (error: unknown) => {
      assert.ok(error instanceof EmbeddingError);
      assert.ok(error.message.startsWith(`embedding request to ${url}/embeddings failed:`), error.message);
      return true;
    });
  });
});
