/** The docs stay true to the code: the carries tables of docs/formats.md are generated from the codecs. */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { BEGIN, carriesTables, END, unknownCarryPaths } from '../../../scripts/carries-table.js';
import { repoRoot } from './helpers.js';

test('every carry declaration names a canonical path', () => {
  assert.deepEqual(unknownCarryPaths(), []);
});

test('docs/formats.md has the current carries tables (regenerate: node --import tsx scripts/carries-table.ts --write)', () => {
  const doc = readFileSync(join(repoRoot, 'docs/formats.md'), 'utf8');
  const block = doc.slice(doc.indexOf(BEGIN), doc.indexOf(END) + END.length);
  assert.equal(block, carriesTables());
});
