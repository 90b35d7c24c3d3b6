/**
 * USE-lite in its worker thread gives the vectors the model gives on the calling thread, in input order, and the
 * model really runs there: none of it shows in a CPU profile of the calling thread (from the TypeScript sources the
 * worker needs a loader of its own, and without one the provider would quietly fall back to this thread).
 */
import assert from 'node:assert/strict';
import { Session } from 'node:inspector/promises';
import { describe, it } from 'node:test';
import { createUseLiteProvider } from '../src/index.js';

describe('USE-lite in a worker thread', () => {
  it('embeds queries and batches of documents exactly as on the calling thread', async () => {
    // One worker, so that its batches are the calling thread's: a text's vector shifts a little with its batch.
    const threaded = createUseLiteProvider({ batchSize: 4, threads: 1 });
    const local = createUseLiteProvider({ batchSize: 4, thread: false });
    const documents = [
      'Forecasts rain, snow and wind for any city, a week ahead.',
      'Translates documents between English, French and German.',
      'Books train tickets.',
      '',
      'Summarises long contracts into the clauses that matter to a buyer, with references to each page.',
      'Creates invoices.',
    ];
    // A query sent while the documents are embedded comes back too, each answer to its own call.
    const profiler = new Session();
    profiler.connect();
    await profiler.post('Profiler.enable');
    await profiler.post('Profiler.start');
    const [fromWorker, query] = await Promise.all([
      threaded.embed(documents),
      threaded.embed(['will it rain tomorrow']),
    ]);
    const { profile } = await profiler.post('Profiler.stop');
    profiler.disconnect();
    const modelFrames = profile.nodes.filter((node) =>
      ['@energetic-ai', 'use-lite-encoder', 'use-lite-tokenizer'].some((part) =>
        node.callFrame.url.includes(part),
      ),
    );
    assert.deepEqual(
      modelFrames.map((node) => node.callFrame.functionName),
      [],
      'the model ran on the calling thread',
    );
    const fromThread = await local.embed(documents);
    assert.equal(fromWorker.length, documents.length);
    for (const [i, vector] of fromWorker.entries()) assert.deepEqual([...vector], [...fromThread[i]!]);
    assert.deepEqual([...query[0]!], [...(await local.embed(['will it rain tomorrow']))[0]!]);
    assert.deepEqual(await threaded.embed([]), []);
  });

  it('answers a query before documents that were waiting, however few texts they have', async () => {
    const provider = createUseLiteProvider({ batchSize: 4, threads: 1 });
    await provider.embed(['loads the model'], { purpose: 'document' });
    const finished: string[] = [];
    const track = (name: string, pending: Promise<Float32Array[]>) =>
      pending.then((vectors) => {
        finished.push(name);
        return vectors;
      });
    // The first call occupies the only worker; the second waits, and the query sent after it goes first.
    await Promise.all([
      track('running', provider.embed(['Books train tickets.'], { purpose: 'document' })),
      track('waiting', provider.embed(['Creates invoices.'], { purpose: 'document' })),
      track('query', provider.embed(['will it rain tomorrow'], { purpose: 'query' })),
    ]);
    assert.deepEqual(finished, ['running', 'query', 'waiting']);
  });

  it('spreads documents over several workers and gives each text its own vector, in input order', async () => {
    const pooled = createUseLiteProvider({ batchSize: 4, threads: 2 });
    const local = createUseLiteProvider({ batchSize: 4, thread: false });
    const documents = Array.from(
      { length: 10 },
      (_, i) => `Agent number ${i} ${'plans trips and books hotels '.repeat(1 + (i % 3))}`,
    );
    await pooled.embed(['loads the first model'], { purpose: 'document' });
    const [pooledVectors, query] = await Promise.all([
      pooled.embed(documents, { purpose: 'document' }),
      pooled.embed(['cheap hotel in Lisbon'], { purpose: 'query' }),
    ]);
    const localVectors = await local.embed(documents);
    assert.equal(pooledVectors.length, documents.length);
    for (const [i, vector] of pooledVectors.entries()) assert.deepEqual([...vector], [...localVectors[i]!]);
    assert.deepEqual([...query[0]!], [...(await local.embed(['cheap hotel in Lisbon']))[0]!]);
  });
});
