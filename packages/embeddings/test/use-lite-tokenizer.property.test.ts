/**
 * Our USE-lite tokenizer splits every text into the token ids that the tokenizer of `@energetic-ai/embeddings`
 * (the one in front of the TF.js model) gives: texts made of vocabulary pieces, of arbitrary Unicode, with spaces,
 * unknown characters and astral symbols.
 */
import assert from 'node:assert/strict';
import { before, test } from 'node:test';
import { EmbeddingsModel } from '@energetic-ai/embeddings';
import fc from 'fast-check';
import { readUseLiteFiles, UseLiteTokenizer } from '../src/use-lite/index.js';

let ours: UseLiteTokenizer;
let reference: { encode(text: string): number[] };
let pieces: string[];

before(async () => {
  const { vocabulary } = await readUseLiteFiles();
  ours = new UseLiteTokenizer(vocabulary);
  // The reference tokenizer is built by the model class; the graph itself is not needed for it.
  reference = new EmbeddingsModel({
    vocabulary: vocabulary as [string, number][],
    model: undefined as never,
  }).tokenizer;
  pieces = vocabulary.slice(6).map(([piece]) => piece.replaceAll('\u2581', ' '));
});

test('known texts split as the reference splits them', () => {
  for (const text of [
    '',
    ' ',
    'book a plane ticket to Paris',
    'Translate "hello" into Chinese: 你好!',
    'search_flights(origin, destination) → JSON',
    'emoji 🙂🙂 and 𝔘𝔫𝔦𝔠𝔬𝔡𝔢',
    'ﬁ ligatures and Ｆｕｌｌｗｉｄｔｈ forms',
  ]) {
    assert.deepEqual(ours.encode(text), reference.encode(text), JSON.stringify(text));
  }
  assert.ok(ours.encode('book a plane ticket').every((id) => id >= 6));
});

test('any text splits as the reference splits it', () => {
  const vocabularyText = fc
    .array(
      fc.oneof(
        fc.constantFrom(...pieces),
        fc.constantFrom(' ', '  ', '\u00e9', '\u00df', '_', '-', '🙂', '\u0301'),
      ),
      { maxLength: 40 },
    )
    .map((parts) => parts.join(''));
  fc.assert(
    fc.property(
      fc.oneof(vocabularyText, fc.string({ unit: 'grapheme', maxLength: 60 }), fc.string()),
      (text) => {
        assert.deepEqual(ours.encode(text), reference.encode(text));
      },
    ),
    { numRuns: 400 },
  );
});
