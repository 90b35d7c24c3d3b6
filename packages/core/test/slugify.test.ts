/** slugify: the one-pass path for printable ASCII gives what the general (Unicode) path gives. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { slugify } from '../src/codecs/urls.js';

const runs = Number(process.env['AGENTRY_PROPERTY_RUNS'] ?? 300);

/** The general path, applied to any text. */
function generalSlug(text: string): string {
  const slug = text
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '');
  return slug === '' ? 'agent' : slug;
}

test('slugify agrees with the general path on any text', () => {
  const ascii = fc.string({ unit: fc.constantFrom(...' -_.:/AZaz09Mm~'.split('')) });
  fc.assert(
    fc.property(fc.oneof(ascii, fc.string(), fc.string({ unit: 'grapheme' })), (text) => {
      assert.equal(slugify(text), generalSlug(text));
    }),
    { numRuns: runs * 10 },
  );
  for (const text of [
    'Document Summarizer',
    '  --Flights.Example.COM--  ',
    '',
    '---',
    'Café Crème',
    'İstanbul',
    'a\tb',
  ])
    assert.equal(slugify(text), generalSlug(text), text);
});
