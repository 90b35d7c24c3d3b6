/** Format detection by a document's keys (vectors/detection.json), and the error for unrecognised documents. */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { codecs, detectFormat, FORMAT_NAMES, type FormatName, readDocument } from '../src/index.js';
import { readVector } from './helpers.js';

const { cases } = readVector<{
  cases: Array<{ name: string; expect: FormatName | null; document: unknown }>;
}>('detection.json');

describe('detectFormat', () => {
  for (const { name, expect, document } of cases) {
    test(`${name} → ${expect ?? 'not recognised'}`, () => {
      assert.equal(detectFormat(document) ?? null, expect);
    });
  }

  test('no document is claimed by two codecs that the order would hide', () => {
    for (const { name, expect, document } of cases) {
      if (expect === null) continue;
      const claims = FORMAT_NAMES.filter((format) => codecs[format].detect(document));
      assert.ok(claims.includes(expect), `${name}: ${expect} must claim it (claims: ${claims.join(', ')})`);
    }
  });

  test('an unrecognised document is an error naming every format checked', () => {
    const result = readDocument({ openapi: '3.1.0' });
    assert.equal(result.valid, false);
    assert.equal(result.format, undefined);
    const [issue] = result.issues;
    assert.equal(issue?.code, 'format.unrecognised');
    for (const format of FORMAT_NAMES) assert.match(issue?.message ?? '', new RegExp(`\\b${format} \\(`));
    assert.match(issue?.message ?? '', /"openapi"/);
  });
});
