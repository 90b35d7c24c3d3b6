/**
 * USE-lite in its worker thread gives the vectors the model gives on the calling thread, in input order, and the
 * model really runs there: none of it shows in a CPU profile of the calling thread (from the TypeScript sources the
 * worker needs a loader of its own, and without one the provider would quietly fall back to this thread).
 */
import assert from 'node:assert/strict';
import { Session } from 'node:inspector/promises';
import { describe, it } from 'node:test';
import { createUseLiteProvider } from '../../src/search/index.js';

describe('USE-lite in a worker thread', () => {
  it('embeds queries and batches of documents exactly as on the calling thread', async () => {
    const threaded = createUseLiteProvider({ batchSize: 4 });
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
    const modelFrames = profile.nodes.filter((node) => node.callFrame.url.includes('@energetic-ai'));
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
});
