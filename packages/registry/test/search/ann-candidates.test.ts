/**
 * The slot arithmetic of the approximate index's pool (semantic/ann-candidates.ts): the query vectors' hits and the
 * lexical matches become one set of slots, and a scope's population sample keeps only slots in scope. Properties on
 * generated slot lists, fixed seed (scripts/fixed-seed.mjs).
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { SlotScope } from '@agentry/embeddings';
import fc from 'fast-check';
import { populationInScope, SAMPLE_SIZE, uniqueSorted } from '../../src/search/semantic/ann-candidates.js';

const slotLists = fc.array(fc.array(fc.integer({ min: 0, max: 5000 }), { maxLength: 400 }), { maxLength: 6 });

describe('ann candidates', () => {
  it('pools several lists of slots into each slot once, in slot order (property)', () => {
    fc.assert(
      fc.property(slotLists, (lists) => {
        const pooled = Array.from(uniqueSorted(lists.map((list) => Int32Array.from(list))));
        assert.deepEqual(
          pooled,
          [...new Set(lists.flat())].sort((a, b) => a - b),
        );
      }),
    );
  });

  it('samples only slots in scope, a stride over a filter’s candidates (property)', () => {
    fc.assert(
      fc.property(
        fc.uniqueArray(fc.integer({ min: 0, max: 20_000 }), { maxLength: 3000 }),
        fc.uniqueArray(fc.integer({ min: 0, max: 20_000 }), { maxLength: 6000 }),
        fc.boolean(),
        (drawnList, scopeList, asCandidates) => {
          const drawn = Int32Array.from(drawnList).sort();
          const inScope = new Uint8Array(20_001);
          for (const slot of scopeList) inScope[slot] = 1;
          const candidateSlots = Int32Array.from(scopeList).sort();
          const scope: SlotScope = asCandidates
            ? { inScope, size: candidateSlots.length, candidateSlots }
            : { inScope, size: scopeList.length, candidateSlots: undefined };
          const { size, sample } = populationInScope(scope, drawn);
          assert.equal(size, scopeList.length);
          for (const slot of sample) assert.equal(inScope[slot], 1);
          if (asCandidates) {
            assert.equal(sample.length, Math.min(candidateSlots.length, SAMPLE_SIZE));
            assert.equal(new Set(sample).size, sample.length);
          } else {
            assert.deepEqual(
              Array.from(sample),
              drawnList.filter((slot) => inScope[slot] === 1).sort((a, b) => a - b),
            );
          }
        },
      ),
    );
  });

  it('keeps the whole sample when the scope is every agent', () => {
    const drawn = Int32Array.of(3, 9, 40);
    const { size, sample } = populationInScope(
      { inScope: undefined, size: 77, candidateSlots: undefined },
      drawn,
    );
    assert.equal(size, 77);
    assert.deepEqual(Array.from(sample), [3, 9, 40]);
  });
});
