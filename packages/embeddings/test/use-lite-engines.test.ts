/**
 * The native USE-lite encoder (use-lite-encoder.ts on the native kernels) gives the vectors of the TF.js model it
 * replaces: in float32 to a cosine of 0.99999, in int8 and int8-bf16 to 0.9995, so vectors stored by one engine
 * compare with queries embedded by another. Short and long texts, texts past the model's 128 tokens, Unicode and
 * unknown characters, and the blank text.
 */
import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { loadNativeKernels, loadUseLiteModel, type UseLiteModel } from '../src/use-lite/index.js';
import { cosine } from './helpers.js';

const texts = [
  'book a plane ticket to Paris',
  ' ',
  'Flight Booker. Search and book flights between airports, compare fares, hold a seat and pay for it. ' +
    'Tags: travel, flights, booking. Operations: search_flights: find flights for a route and a date; ' +
    'book_flight: book a seat on a flight; cancel_booking: cancel an existing booking and refund it.',
  'Übersetzt Texte ins Chinesische: 你好, 世界 🙂',
  'weather '.repeat(150),
];

describe('USE-lite engines', () => {
  let float32: UseLiteModel;
  let tfjs: UseLiteModel;
  const kernels = loadNativeKernels();
  const int8 = !(kernels instanceof Error) && kernels.int8;
  const bf16 = int8 && !(kernels instanceof Error) && kernels.bf16;
  before(async () => {
    [float32, tfjs] = await Promise.all([loadUseLiteModel('float32'), loadUseLiteModel('tfjs')]);
  });

  it('the default engine is the fastest this machine runs', async () => {
    assert.equal(float32.engine, 'float32');
    assert.equal(tfjs.engine, 'tfjs');
    assert.equal((await loadUseLiteModel()).engine, bf16 ? 'int8-bf16' : int8 ? 'int8' : 'float32');
    if (!int8) await assert.rejects(loadUseLiteModel('int8'), /AVX-512 VNNI or AVX2/);
    if (!bf16) await assert.rejects(loadUseLiteModel('int8-bf16'), /AVX-512 (VNNI|BF16)/);
  });

  it('float32 gives the TF.js model’s vectors, unit length, for every kind of text', async () => {
    const [ours, theirs] = await Promise.all([float32.embed(texts), tfjs.embed(texts)]);
    for (const [i, vector] of ours.entries()) {
      assert.equal(vector.length, 512);
      const length = Math.sqrt(vector.reduce((sum, x) => sum + x * x, 0));
      assert.ok(Math.abs(length - 1) < 1e-5, `text ${i}: length ${length}`);
      const similarity = cosine(vector, theirs[i]!);
      assert.ok(similarity > 0.99999, `text ${i}: cosine ${similarity} with the TF.js vector`);
    }
    // Different texts still get different vectors.
    assert.ok(cosine(ours[0]!, ours[2]!) < 0.9);
  });

  for (const engine of ['int8', 'int8-bf16'] as const) {
    it(`${engine} stays within a cosine of 0.9995 of the TF.js vectors (where the CPU runs it)`, async (t) => {
      if (!(engine === 'int8' ? int8 : bf16)) {
        t.diagnostic(
          `this CPU lacks the AVX-512 extensions of the ${engine} engine (its refusal is checked above)`,
        );
        return;
      }
      const [ours, theirs] = await Promise.all([
        (await loadUseLiteModel(engine)).embed(texts),
        tfjs.embed(texts),
      ]);
      for (const [i, vector] of ours.entries()) {
        const length = Math.sqrt(vector.reduce((sum, x) => sum + x * x, 0));
        assert.ok(Math.abs(length - 1) < 1e-5, `text ${i}: length ${length}`);
        const similarity = cosine(vector, theirs[i]!);
        assert.ok(similarity > 0.9995, `text ${i}: cosine ${similarity} with the TF.js vector`);
      }
    });
  }
});
