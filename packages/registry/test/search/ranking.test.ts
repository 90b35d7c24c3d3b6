import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { DEFAULT_FUSION, fuse, rankSemantic } from '../../src/search/fusion.js';
import { QueryEmbeddingCache } from '../../src/search/semantic/query-cache.js';

describe('fusion', () => {
  const semantic = { ids: ['a', 'b', 'c', 'd'], whole: [0.9, 0.1, 0.2, 0.3], clauses: [] };

  it('puts an agent strong in both rankings first and keeps agents only one ranker found', () => {
    const hits = fuse({
      lexical: [
        { id: 'b', score: 12 },
        { id: 'a', score: 10 },
        { id: 'x', score: 1 },
      ],
      semantic,
      top: 10,
    });
    assert.equal(hits[0]?.id, 'a');
    assert.deepEqual(new Set(hits.map((hit) => hit.id)), new Set(['a', 'b', 'c', 'd', 'x']));
    const x = hits.find((hit) => hit.id === 'x')!;
    assert.equal(x.semantic, undefined);
    assert.equal(x.lexical, 1);
    assert.equal(hits.find((hit) => hit.id === 'd')!.lexical, undefined);
  });

  it('ranks the same whether the agents are placed through positionOf or found in ids (property)', () => {
    fc.assert(
      fc.property(
        fc.uniqueArray(fc.nat(60), { minLength: 1, maxLength: 40 }),
        fc.array(fc.tuple(fc.nat(80), fc.float({ min: 0, max: 20, noNaN: true })), { maxLength: 30 }),
        (vectorIds, lexicalPairs) => {
          const ids = vectorIds.map((n) => `a${n}`);
          const whole = ids.map((_, i) => Math.sin(i + 1));
          const lexical = [...new Map(lexicalPairs.map(([n, score]) => [`a${n}`, score])).entries()].map(
            ([id, score]) => ({ id, score }),
          );
          const positionOf = (id: string) => (ids.includes(id) ? ids.indexOf(id) : undefined);
          const plain = fuse({ lexical, semantic: { ids, whole, clauses: [] }, top: 100 });
          const placed = fuse({ lexical, semantic: { ids, whole, clauses: [], positionOf }, top: 100 });
          assert.deepEqual(placed, plain);
        },
      ),
      { numRuns: 80 },
    );
  });

  it('lifts agents similar to the leaders (feedback)', () => {
    const input = { lexical: [{ id: 'a', score: 5 }], semantic, top: 4 };
    const without = fuse({ ...input, settings: { ...DEFAULT_FUSION, feedbackWeight: 0 } });
    // b is last on its own; it is the one most like the leader a.
    const withFeedback = fuse({ ...input, similarToCentroid: () => [1, 0.99, 0, 0] });
    assert.equal(without[3]?.id, 'b');
    assert.equal(withFeedback[1]?.id, 'b');
  });

  it('scores a request by its best clause as well as by the whole', () => {
    const clauses = {
      ids: ['a', 'b', 'c'],
      whole: [0.5, 0.4, 0.3],
      clauses: [
        [0.5, 0.4, 0.3],
        [0, 0, 0.9],
      ],
    };
    assert.deepEqual(
      rankSemantic(clauses, 3).map((hit) => hit.id),
      ['a', 'c', 'b'],
    );
    assert.deepEqual(
      rankSemantic({ ...clauses, clauses: [] }, 3).map((hit) => hit.id),
      ['a', 'b', 'c'],
    );
  });
});

describe('query embedding cache', () => {
  it('evicts the least recently used', () => {
    const cache = new QueryEmbeddingCache(2);
    cache.set('a', Float32Array.of(1));
    cache.set('b', Float32Array.of(2));
    assert.ok(cache.get('a'));
    cache.set('c', Float32Array.of(3));
    assert.equal(cache.get('b'), undefined);
    assert.ok(cache.get('a') && cache.get('c'));
    assert.equal(cache.size, 2);
    const off = new QueryEmbeddingCache(0);
    off.set('a', Float32Array.of(1));
    assert.equal(off.get('a'), undefined);
  });
});
