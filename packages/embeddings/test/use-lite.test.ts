/** The bundled USE-lite model, for real (loaded once for the file: about a second, then milliseconds a text). */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createUseLiteProvider } from '../src/index.js';
import { cosine } from './helpers.js';

const provider = createUseLiteProvider({ batchSize: 4 });

describe('USE-lite embedding provider', () => {
  it('embeds texts into 512 dimensions, the same alone or in a batch, in input order', async () => {
    const texts = [
      'book a flight to Rome',
      '',
      'a much longer sentence about the weather in the mountains this weekend',
    ];
    const together = await provider.embed(texts);
    assert.equal(together.length, 3);
    for (const vector of together) assert.equal(vector.length, 512);
    const alone = await provider.embed([texts[2]!]);
    assert.ok(cosine(together[2]!, alone[0]!) > 0.999);
    assert.ok(cosine(together[0]!, together[2]!) < 0.9);
    assert.deepEqual(await provider.embed([]), []);
  });
});
