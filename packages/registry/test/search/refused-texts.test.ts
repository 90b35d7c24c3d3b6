/**
 * A provider may refuse some texts outright (an OpenAI-compatible server answers 400 or 413 for an input too long
 * for its model, or one it will not take). Such a text must not hold back the other agents waiting for a vector:
 * the index sets it aside and embeds the rest. A provider that fails whatever the texts (down, 5xx) is not probed
 * text by text.
 */
import assert from 'node:assert/strict';
import { afterEach, describe, it } from 'node:test';
import { EmbeddingError } from '@agentry/embeddings';
import { embeddingSuite } from './embedding-suite.js';
import { doc } from './helpers.js';

describe('texts the embedding provider refuses', () => {
  /** What the server answers instead of embeddings: 400 for a batch holding a refused word, 503 while down. */
  let down = false;
  const REFUSED_WORD = 'forbiddenword';
  const suite = embeddingSuite({
    dimensions: 32,
    refuse: (input) => {
      if (down) return { status: 503, message: 'model loading' };
      if (input.some((text) => text.toLowerCase().includes(REFUSED_WORD)))
        return { status: 400, message: 'input rejected' };
      return undefined;
    },
  });
  afterEach(() => {
    down = false;
  });
  const inputsSent = suite.takeInputs;

  const waiting = [
    doc('ferries', { name: 'Ferries', description: 'ferry crossings and sailings' }),
    doc('poison', { name: 'Odd one', description: `a ${REFUSED_WORD} in its text` }),
    doc('trains', { name: 'Trains', description: 'railway timetables and platforms' }),
    doc('buses', { name: 'Buses', description: 'bus stops and routes' }),
    doc('trams', { name: 'Trams', description: 'tram lines' }),
  ];

  it('embeds every other waiting agent, reports the refused one, and does not offer it again', () => {
    const errors: unknown[] = [];
    return suite.withIndex(
      async (index) => {
        down = true;
        await index.upsert(waiting);
        down = false;
        inputsSent();
        errors.length = 0;

        assert.equal(await index.embedPending({ batchSize: 8 }), 4);
        assert.equal((await index.stats()).embedded, 4);
        assert.equal(errors.length, 1);
        assert.ok(errors[0] instanceof EmbeddingError);
        assert.match((errors[0] as Error).message, /refused the text of agent poison/);
        assert.equal((errors[0] as EmbeddingError).status, 400);
        const semantic = await index.search('railway platforms', { top: 1, mode: 'semantic' });
        assert.equal(semantic[0]?.id, 'trains');
        // Still found by its words.
        const lexical = await index.search(REFUSED_WORD, { top: 1, mode: 'lexical' });
        assert.equal(lexical[0]?.id, 'poison');

        inputsSent();
        assert.equal(await index.embedPending(), 0);
        assert.deepEqual(inputsSent(), [], 'the refused text is not sent again');

        // A new text for the agent is tried.
        await index.upsert([doc('poison', { name: 'Odd one', description: 'harbour pilots' })]);
        assert.equal((await index.stats()).embedded, 5);
      },
      { onEmbeddingError: (error) => errors.push(error) },
    );
  });

  it('sends one request, not one per text, while the provider fails whatever the texts', () =>
    suite.withIndex(async (index) => {
      down = true;
      await index.upsert(waiting);
      inputsSent();
      await assert.rejects(index.embedPending({ batchSize: 8 }), EmbeddingError);
      assert.equal(inputsSent().length, 1);
      assert.equal((await index.stats()).embedded, 0);
    }));
});
